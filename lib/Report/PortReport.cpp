//===- Report/PortReport.cpp ----------------------------------------------===//
#include "forge/Report/PortReport.h"
#include "forge/Arch/Occupancy.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"
#include <optional>

using namespace llvm;

namespace forge::report {

using port::FilePortResult;
using port::Finding;
using port::SessionMessage;
using port::Severity;

namespace {

std::string occupancyText(const arch::TargetInfo &T, const build::KernelResources &R,
                          const port::LaunchShape &Shape) {
  arch::KernelResources K;
  K.ThreadsPerBlock = int(Shape.Threads);
  K.RegistersPerThread = R.Registers;
  K.StaticSharedBytes = int(R.SharedMemBytes);
  K.DynamicSharedBytes = int(Shape.DynamicShared);
  auto O = arch::computeOccupancy(T, K);
  if (!O) {
    consumeError(O.takeError());
    return "cannot launch";
  }
  return formatv("{0:P0}", O->Occupancy).str();
}

void printMessage(raw_ostream &OS, const SessionMessage &M) {
  switch (M.K) {
  case SessionMessage::Kind::Note:
    WithColor::note(OS, "forge-port") << M.Text << "\n";
    break;
  case SessionMessage::Kind::Error:
    WithColor::error(OS, "forge-port") << M.Text << "\n";
    break;
  case SessionMessage::Kind::CompilerDiagnostic:
    OS << M.Text << "\n";
    break;
  }
}

void printResources(raw_ostream &OS, const FilePortResult &R, unsigned Assumed) {
  const port::Validation &V = R.Check;
  if (!V.Ran || V.Results.empty())
    return;
  const build::CompileResult &TR = V.Results[0];
  const build::CompileResult *SR = V.Results.size() > 1 ? &V.Results[1] : nullptr;
  if (none_of(TR.Resources, [](const build::KernelResources &K) { return K.IsEntry; }))
    return;
  OS << "resources per kernel, " << R.Source->Name << " -> " << R.Target->Name
     << " (occupancy predicted from the Arch database; no GPU measured it):\n";
  OS << formatv("  {0,-32} {1,-12} {2,-12} {3,-16} {4,-14} {5}\n", "kernel", "registers",
                "spills (B)", "static smem (B)", "block", "occupancy");
  for (const build::KernelResources &K : TR.Resources) {
    if (!K.IsEntry)
      continue;
    const build::KernelResources *S = SR ? SR->findKernel(K.MangledName) : nullptr;
    auto Pair = [&](uint64_t A, std::optional<uint64_t> B) {
      return B ? formatv("{0} -> {1}", *B, A).str() : std::to_string(A);
    };
    auto [Shape, FromLaunch] = port::launchShapeFor(R, K.MangledName, Assumed);
    std::string Block = std::to_string(Shape.Threads) + (FromLaunch ? "" : " (assumed)");
    if (Shape.DynamicShared)
      Block += " +" + std::to_string(Shape.DynamicShared) + "B";
    std::string Name = K.DemangledName.empty() ? K.MangledName : K.DemangledName;
    if (Name.size() > 32)
      Name = Name.substr(0, 29) + "...";
    OS << formatv("  {0,-32} {1,-12} {2,-12} {3,-16} {4,-14} {5}\n", Name,
                  Pair(K.Registers, S ? std::optional<uint64_t>(S->Registers) : std::nullopt),
                  Pair(K.SpillStoreBytes + K.SpillLoadBytes,
                       S ? std::optional<uint64_t>(S->SpillStoreBytes + S->SpillLoadBytes)
                         : std::nullopt),
                  Pair(K.SharedMemBytes,
                       S ? std::optional<uint64_t>(S->SharedMemBytes) : std::nullopt),
                  Block,
                  (S ? occupancyText(*R.Source, *S, Shape) + " -> " : std::string()) +
                      occupancyText(*R.Target, K, Shape));
  }
}

/// A position: 1-based line and column, and the byte offset.
Json positionJson(unsigned Line, unsigned Column, unsigned Offset) {
  return {{"line", Line}, {"column", Column}, {"offset", Offset}};
}

/// Span: where the offset comes from; absent: the location's own.
Json locationJson(const frontend::Location &L, std::optional<port::SourceSpan> Span) {
  Json J = {{"file", L.File}};
  J.update(positionJson(L.Line, L.Column, Span ? Span->Offset : L.Offset));
  return J;
}

Json fixItJson(const port::FixIt &X) {
  const port::SourceSpan &S = X.Range;
  return {{"file", X.File},
          {"line", S.Line},
          {"column", S.Column},
          {"offset", S.Offset},
          {"end_line", S.EndLine},
          {"end_column", S.EndColumn},
          {"end_offset", S.Offset + S.Length},
          {"replacement", X.Replacement}};
}

Json findingJson(const Finding &F) {
  const char *Level = F.Level == Severity::Error     ? "error"
                      : F.Level == Severity::Warning ? "warning"
                                                     : "note";
  Json J = {{"pass", F.Pass},
            {"severity", Level},
            {"message", F.Message},
            {"location", locationJson(F.Loc, F.Span)},
            {"fixed", F.Fixed}};
  Json Notes = Json::array();
  for (const Finding &N : F.Notes)
    Notes.push_back({{"message", N.Message}, {"location", locationJson(N.Loc, N.Span)}});
  J["notes"] = Notes;
  Json Fixes = Json::array();
  for (const port::FixIt &X : F.FixIts)
    Fixes.push_back(fixItJson(X));
  J["fixits"] = Fixes;
  return J;
}

Json resourcesJson(const FilePortResult &R, unsigned Assumed) {
  Json Out = Json::array();
  const port::Validation &V = R.Check;
  if (!V.Ran || V.Results.empty())
    return Out;
  auto Side = [&](const arch::TargetInfo &T, const build::KernelResources &K,
                  const port::LaunchShape &Shape) {
    return Json{{"arch", T.Name},
                {"registers", K.Registers},
                {"spill_bytes", K.SpillStoreBytes + K.SpillLoadBytes},
                {"static_shared_bytes", K.SharedMemBytes},
                {"occupancy", occupancyText(T, K, Shape)},
                {"occupancy_kind", "predicted"}};
  };
  for (const build::KernelResources &K : V.Results[0].Resources) {
    if (!K.IsEntry)
      continue;
    auto [Shape, FromLaunch] = port::launchShapeFor(R, K.MangledName, Assumed);
    Json J = {{"kernel", K.DemangledName},
              {"threads_per_block", Shape.Threads},
              {"threads_from", FromLaunch ? "launch" : "assumed"},
              {"dynamic_shared_bytes", Shape.DynamicShared},
              {"target", Side(*R.Target, K, Shape)}};
    if (V.Results.size() > 1)
      if (const build::KernelResources *S = V.Results[1].findKernel(K.MangledName))
        J["source"] = Side(*R.Source, *S, Shape);
    Out.push_back(J);
  }
  return Out;
}

/// A SARIF region: 1-based lines and columns (the end exclusive) and the
/// bytes.
Json sarifRegion(const port::SourceSpan &S) {
  Json J = {{"startLine", S.Line}, {"startColumn", S.Column}};
  if (S.EndLine) {
    J["endLine"] = S.EndLine;
    J["endColumn"] = S.EndColumn;
  }
  J["byteOffset"] = S.Offset;
  J["byteLength"] = S.Length;
  return J;
}

Json sarifLocation(const std::string &File, const port::SourceSpan &S) {
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", File}}}, {"region", sarifRegion(S)}}}};
}

} // namespace

void renderPortErrors(raw_ostream &OS, const FilePortResult &R) {
  if (!R.Failure.empty())
    WithColor::error(OS, "forge-port") << R.Failure << "\n";
  for (const SessionMessage &M : R.Messages)
    if (M.K == SessionMessage::Kind::Error)
      printMessage(OS, M);
}

void renderPortText(raw_ostream &OS, const FilePortResult &R, bool Writing,
                    unsigned AssumedBlockThreads) {
  if (!R.Failure.empty()) {
    WithColor::error(OS, "forge-port") << R.Failure << "\n";
    return;
  }
  for (const SessionMessage &M : R.Messages)
    if (!M.AfterSummary)
      printMessage(OS, M);
  if (!R.Completed)
    return;
  const port::Validation &V = R.Check;
  OS << R.File << ": " << R.totalErrors() << " error(s)";
  if (R.ParseErrorsCounted || R.NvccErrors) {
    OS << " (" << R.Errors << " from the passes";
    if (R.ParseErrorsCounted)
      OS << ", " << R.ParseErrorsCounted << " from Clang's parse";
    if (R.NvccErrors)
      OS << ", " << R.NvccErrors << " from nvcc";
    OS << ")";
  }
  OS << ", " << R.Warnings << " warning(s) for " << R.Target->Name << "; " << R.Fixed
     << " fixed" << (Writing ? "" : " (use -o, -i or --diff to apply)");
  if (R.ClangOnlyParseErrors)
    OS << "; " << R.ClangOnlyParseErrors << " region(s) Clang could not parse";
  if (V.Ran)
    OS << "; nvcc " << (V.TargetOK ? "compiles" : "does not compile") << " the "
       << (R.Patched ? "patched " : "") << "file for " << R.Target->Name;
  OS << "\n";
  printResources(OS, R, AssumedBlockThreads);
  for (const SessionMessage &M : R.Messages)
    if (M.AfterSummary)
      printMessage(OS, M);
}

Json portFileJson(const FilePortResult &R, unsigned AssumedBlockThreads) {
  Json F = Json::array();
  for (const Finding &X : R.Findings)
    F.push_back(findingJson(X));
  Json Val = nullptr;
  if (R.Check.Ran)
    Val = {{"target", R.Target->Name}, {"compiles", R.Check.TargetOK}};
  return {{"file", R.File},
          {"target", R.Target->Name},
          {"source", R.Source ? R.Source->Name : ""},
          {"findings", F},
          {"parse_errors", R.ParseErrors},
          {"errors",
           {{"total", R.totalErrors()},
            {"passes", R.Errors},
            {"parse", R.ParseErrorsCounted},
            {"nvcc", R.NvccErrors},
            {"clang_only_parse_errors", R.ClangOnlyParseErrors}}},
          {"patched", R.Patched},
          {"validation", Val},
          {"resources", resourcesJson(R, AssumedBlockThreads)}};
}

Json portSarif(const port::PortResult &Run, ArrayRef<port::PassInfo> Passes) {
  Json Rules = Json::array();
  for (const port::PassInfo &P : Passes)
    Rules.push_back({{"id", P.Name},
                     {"shortDescription", {{"text", P.Summary}}},
                     {"helpUri", std::string("docs/passes/") + P.Name + ".md"}});
  Json Results = Json::array();
  for (const FilePortResult &R : Run.Files)
    for (const Finding &F : R.Completed ? R.Findings : std::vector<Finding>()) {
      Json Result = {{"ruleId", F.Pass},
                     {"level", F.Level == Severity::Error ? "error" : "warning"},
                     {"message", {{"text", F.Message}}},
                     {"locations", Json::array({sarifLocation(F.Loc.File, F.Span)})}};
      Json Related = Json::array();
      for (const Finding &N : F.Notes) {
        Json L = sarifLocation(N.Loc.File, N.Span);
        L["id"] = Related.size();
        L["message"] = {{"text", N.Message}};
        Related.push_back(L);
      }
      if (!Related.empty())
        Result["relatedLocations"] = Related;
      // The fixes forge-port applies (-o, -i, --diff), one change per file.
      if (F.Fixed && !F.FixIts.empty()) {
        Json Changes = Json::array();
        for (const port::FixIt &X : F.FixIts) {
          auto Same = std::find_if(Changes.begin(), Changes.end(), [&](const Json &C) {
            return C["artifactLocation"]["uri"] == X.File;
          });
          if (Same == Changes.end()) {
            Changes.push_back({{"artifactLocation", {{"uri", X.File}}},
                               {"replacements", Json::array()}});
            Same = Changes.end() - 1;
          }
          (*Same)["replacements"].push_back({{"deletedRegion", sarifRegion(X.Range)},
                                             {"insertedContent", {{"text", X.Replacement}}}});
        }
        Result["fixes"] = Json::array(
            {{{"description", {{"text", "the fix forge-port applies"}}},
              {"artifactChanges", Changes}}});
      }
      Results.push_back(Result);
    }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", Json::array({{{"tool",
                                  {{"driver",
                                    {{"name", "forge-port"},
                                     {"informationUri", "docs/port.md"},
                                     {"rules", Rules}}}}},
                                 {"results", Results}}})}};
}

} // namespace forge::report
