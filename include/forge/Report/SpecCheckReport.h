//===- Report/SpecCheckReport.h - What `spec --check` prints ----*- C++ -*-===//
///
/// \file
/// A spec check (Measure/SpecCheck.h) as compiler-style diagnostics: one
/// error per place in the kernel that left a buffer (its line, the access,
/// how many threads, the first one, which buffer and by how much), a note
/// with the count that buffer would need, and a summary line.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_REPORT_SPECCHECKREPORT_H
#define FORGE_REPORT_SPECCHECKREPORT_H

#include "forge/Measure/SpecCheck.h"
#include "llvm/Support/raw_ostream.h"

namespace forge::report {

void renderSpecCheck(llvm::raw_ostream &OS, const measure::SpecCheckResult &R,
                     const measure::LaunchSpec &Spec);

} // namespace forge::report

#endif
