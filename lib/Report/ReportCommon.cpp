//===- Report/ReportCommon.cpp - What the reports share -------------------===//
#include "ReportCommon.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

namespace forge::report {

std::string escape(llvm::StringRef S) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '&': Out += "&amp;"; break;
    case '"': Out += "&quot;"; break;
    default: Out += C;
    }
  }
  return Out;
}

std::string htmlHead(llvm::StringRef Title) {
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(Title) +
         "</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
         "text-align:left}pre{background:#f6f6f6;padding:8px;overflow:auto}</style>"
         "</head><body>\n";
}

std::string barChartSvg(llvm::StringRef Title, llvm::ArrayRef<Bar> Bars) {
  const unsigned H = 16, Gap = 4, Left = 220, Width = 440;
  double Max = 0;
  for (const Bar &B : Bars)
    Max = std::max(Max, B.Value);
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Left + Width + 110
     << "\" height=\"" << unsigned(Bars.size()) * (H + Gap) + 30
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  OS << "<text x=\"" << Left << "\" y=\"12\">" << escape(Title) << "</text>\n";
  unsigned Y = 20;
  for (const Bar &B : Bars) {
    double W = Max > 0 ? B.Value / Max * Width : 0;
    OS << "<text x=\"" << Left - 6 << "\" y=\"" << Y + 12 << "\" text-anchor=\"end\">"
       << escape(B.Label) << "</text>\n";
    OS << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2:F1}\" height=\"{3}\" "
                        "fill=\"{4}\"/>\n",
                        Left, Y, W, H, B.Fill);
    OS << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\">{2}</text>\n", Left + W + 4, Y + 12,
                        escape(B.Text));
    Y += H + Gap;
  }
  OS << "</svg>\n";
  return S;
}

std::string us(double Ns) { return llvm::formatv("{0:F2}", Ns / 1000).str(); }

} // namespace forge::report
