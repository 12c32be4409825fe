//===- Report/ReportCommon.h - What the reports share ----------*- C++ -*-===//
#ifndef FORGE_LIB_REPORT_REPORTCOMMON_H
#define FORGE_LIB_REPORT_REPORTCOMMON_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace forge::report {

/// Text for HTML (and SVG) content and attributes.
std::string escape(llvm::StringRef S);

/// "<!DOCTYPE html>...<body>" with the reports' style sheet.
std::string htmlHead(llvm::StringRef Title);

/// One bar of a chart.
struct Bar {
  std::string Label; ///< on the left
  double Value = 0;  ///< the length
  std::string Text;  ///< after the bar ("215.6 us")
  const char *Fill = "#5b7fb5";
};

/// A horizontal bar chart as an inline SVG element, longest bar = full width.
std::string barChartSvg(llvm::StringRef Title, llvm::ArrayRef<Bar> Bars);

/// "215.60" (microseconds from nanoseconds, two decimals).
std::string us(double Ns);

} // namespace forge::report

#endif
