//===- Report/PortReport.h - What `forge-port port` prints -----*- C++ -*-===//
///
/// \file
/// A port session's result for people (the per-file messages, the summary
/// line and the resource table, after the compiler-style diagnostics the
/// session printed as it went) and for scripts (JSON, SARIF 2.1.0).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_REPORT_PORTREPORT_H
#define FORGE_REPORT_PORTREPORT_H

#include "forge/Port/PortSession.h"
#include "forge/Support/Json.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace forge::report {

/// The text of one file's result: its notes and errors, "k.cu: 1 error(s),
/// 2 warning(s) for sm_100; 1 fixed ...", the resources per kernel (source
/// arch -> target, occupancy predicted) and what failed while writing.
/// Writing: the run writes a result (-o, -i, --diff). AllKernels: a row
/// for every kernel nvcc compiled, not only those launched (--all).
void renderPortText(llvm::raw_ostream &OS, const port::FilePortResult &R, bool Writing,
                    unsigned AssumedBlockThreads, bool AllKernels = false);

/// The messages of a file that explain a failure (its Failure and errors),
/// for runs whose stdout carries JSON or SARIF.
void renderPortErrors(llvm::raw_ostream &OS, const port::FilePortResult &R);

/// One file as the JSON of docs/port.md.
Json portFileJson(const port::FilePortResult &R, unsigned AssumedBlockThreads,
                  bool AllKernels = false);

/// A line per project file that the run's fixes reach (its edits, the
/// files they come from, whether it was written or why not).
void renderProjectFiles(llvm::raw_ostream &OS, const port::PortResult &R);

/// The build files' findings (GPU targets nvcc 13 rejects), compiler-style,
/// each with its replacement.
void renderBuildFiles(llvm::raw_ostream &OS, const port::PortResult &R);

/// The end of a run over several files: a row per file (errors, warnings,
/// fixed, nvcc's verdict) and the totals.
void renderPortSummary(llvm::raw_ostream &OS, const port::PortResult &R);

/// The whole run as a SARIF 2.1.0 log; Rules: every pass, for the rule list.
Json portSarif(const port::PortResult &R, llvm::ArrayRef<port::PassInfo> Rules);

} // namespace forge::report

#endif
