//===- Report/ProposeReport.cpp -------------------------------------------===//
#include "forge/Report/ProposeReport.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace forge::report {

std::vector<std::string> specChangeLines(const agent::SpecChange &S) {
  std::vector<std::string> Out;
  for (const auto &[Field, Expr] : S.Geometry)
    Out.push_back("spec: " + Field + " -> " + Expr);
  for (const auto &[Name, Values] : S.NewTunables) {
    std::vector<std::string> V;
    for (int64_t X : Values)
      V.push_back(std::to_string(X));
    Out.push_back("spec: new tunable " + Name + " in {" + join(V, ", ") + "}");
  }
  for (const auto &[Name, Value] : S.Values)
    Out.push_back("spec: " + Name + " = " + std::to_string(Value));
  for (const std::string &C : S.NewConstraints)
    Out.push_back("spec: new constraint " + C);
  if (!S.Justification.empty())
    Out.push_back("spec: why: " + S.Justification);
  return Out;
}

void renderProposalText(raw_ostream &OS, const agent::Proposal &P) {
  OS << "# " << P.Origin << ": " << P.Summary << "\n";
  SmallVector<StringRef, 8> Lines;
  StringRef(P.Rationale).split(Lines, '\n');
  for (StringRef L : Lines)
    if (!L.trim().empty())
      OS << "# " << L.rtrim() << "\n";
  if (P.Spec)
    for (const std::string &L : specChangeLines(*P.Spec))
      OS << "# " << L << "\n";
  OS << P.Edits;
}

Json proposalJson(const agent::Proposal &P) {
  StringRef Rule = P.Origin;
  Rule.consume_front("expert:");
  Json J = {{"origin", P.Origin},
            {"rule", Rule.str()},
            {"summary", P.Summary},
            {"rationale", P.Rationale},
            {"edits", P.Edits}};
  if (P.Spec) {
    Json Tunables = Json::object();
    for (const auto &[Name, Values] : P.Spec->NewTunables)
      Tunables[Name] = Values;
    J["spec"] = {{"geometry", P.Spec->Geometry},
                 {"new_tunables", Tunables},
                 {"values", P.Spec->Values},
                 {"new_constraints", P.Spec->NewConstraints},
                 {"justification", P.Spec->Justification}};
  } else {
    J["spec"] = nullptr;
  }
  return J;
}

static void skips(raw_ostream &OS, ArrayRef<agent::RuleSkip> Skipped) {
  for (const agent::RuleSkip &S : Skipped)
    WithColor::note(OS, "forge-port") << S.Rule << ": not applicable: " << S.Reason << "\n";
}

void renderProposeNotes(raw_ostream &OS, const agent::ProposeResult &R) {
  skips(OS, R.Skipped);
  for (const agent::ApplyStep &S : R.Steps) {
    skips(OS, S.Skipped);
    if (!S.Applied)
      continue;
    WithColor::note(OS, "forge-port")
        << "applied " << S.Applied->Origin << ": " << S.Applied->Summary << "\n";
    if (S.Applied->Spec)
      for (const std::string &L : specChangeLines(*S.Applied->Spec))
        WithColor::note(OS, "forge-port") << S.Rule << ": " << L << "\n";
  }
}

} // namespace forge::report
