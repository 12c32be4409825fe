//===- Report/ProposeReport.h - What `forge-port propose` prints -*- C++ -*-===//
///
/// \file
/// Proposals as people read them (comment lines, then the edit blocks the
/// optimiser would validate) and as JSON, and the notes of a propose run:
/// the rules that did not apply, and in an apply run what each rule did.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_REPORT_PROPOSEREPORT_H
#define FORGE_REPORT_PROPOSEREPORT_H

#include "forge/Agent/ProposeSession.h"
#include "forge/Support/Json.h"
#include "llvm/Support/raw_ostream.h"

namespace forge::report {

/// "spec: grid.x -> ...", "spec: new tunable W in {4, 8}", "spec: why: ...".
std::vector<std::string> specChangeLines(const agent::SpecChange &S);

/// "# expert:rule: summary", the rationale and spec change as comments,
/// then the edit blocks.
void renderProposalText(llvm::raw_ostream &OS, const agent::Proposal &P);

/// A proposal as the JSON of docs/propose.md.
Json proposalJson(const agent::Proposal &P);

/// The notes of a run on a diagnostics stream: "R: not applicable: why" for
/// each rule that did not propose, and in an apply run "applied R: summary"
/// with the spec changes, in the order the rules ran.
void renderProposeNotes(llvm::raw_ostream &OS, const agent::ProposeResult &R);

} // namespace forge::report

#endif
