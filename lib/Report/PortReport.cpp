//===- Report/PortReport.cpp ----------------------------------------------===//
#include "forge/Report/PortReport.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Port/ProjectFiles.h"
#include "forge/Port/ResourceTable.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"
#include <optional>
#include <set>

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

std::string pairText(uint64_t Target, std::optional<uint64_t> Source) {
  return Source ? formatv("{0} -> {1}", *Source, Target).str() : std::to_string(Target);
}

std::string blockText(const port::ResourceRow &Row) {
  std::string Block = std::to_string(Row.Shape.Threads);
  if (!Row.FromLaunch)
    Block += " (assumed)";
  for (size_t I = 0; I < Row.OtherThreads.size(); ++I)
    Block += (I ? ", " : " (also ") + std::to_string(Row.OtherThreads[I]) +
             (I + 1 == Row.OtherThreads.size() ? ")" : "");
  if (!Row.Shape.DynamicSharedKnown)
    Block += " +?B";
  else if (Row.Shape.DynamicShared)
    Block += " +" + std::to_string(Row.Shape.DynamicShared) + "B";
  return Block;
}

port::ResourceTable tableOf(const FilePortResult &R, unsigned Assumed, bool All) {
  const port::Validation &V = R.Check;
  if (!V.Ran || V.Results.empty())
    return {};
  return port::resourceTable(V.Results[0].Resources,
                             V.Results.size() > 1 ? &V.Results[1] : nullptr, R.Launches,
                             Assumed, All);
}

constexpr size_t NameWidth = 32;

void printResources(raw_ostream &OS, const FilePortResult &R, unsigned Assumed, bool All) {
  port::ResourceTable T = tableOf(R, Assumed, All);
  if (T.Rows.empty() && !T.NotListed)
    return;
  // The source arch's column only where it was compiled (PortSession.h).
  std::string From = R.Check.Results.size() > 1 ? std::string(R.Source->Name) + " -> " : "";
  OS << "resources per kernel, " << From << R.Target->Name
     << " (occupancy predicted from the Arch database; no GPU measured it):\n";
  auto Line = [&](StringRef Name, StringRef Regs, StringRef Spills, StringRef Smem,
                  StringRef Block, StringRef Occ) {
    OS << "  " << left_justify(Name, NameWidth)
       << formatv(" {0,-12} {1,-12} {2,-16} {3,-14} {4}\n", Regs, Spills, Smem, Block, Occ);
  };
  Line("kernel", "registers", "spills (B)", "static smem (B)", "block", "occupancy");
  for (const port::ResourceRow &Row : T.Rows) {
    const build::KernelResources &K = *Row.Target, *S = Row.Source;
    auto Opt = [&](uint64_t V) { return S ? std::optional<uint64_t>(V) : std::nullopt; };
    std::string Name = Row.name();
    // A long name gets a line of its own, in full.
    if (Name.size() > NameWidth) {
      OS << "  " << Name << "\n";
      Name.clear();
    }
    Line(Name, pairText(K.Registers, Opt(S ? S->Registers : 0)),
         pairText(K.SpillStoreBytes + K.SpillLoadBytes,
                  Opt(S ? S->SpillStoreBytes + S->SpillLoadBytes : 0)),
         pairText(K.SharedMemBytes, Opt(S ? S->SharedMemBytes : 0)), blockText(Row),
         (S ? occupancyText(*R.Source, *S, Row.Shape) + " -> " : std::string()) +
             occupancyText(*R.Target, K, Row.Shape));
  }
  if (T.NotListed)
    OS << "  (" << T.NotListed << " more kernel" << (T.NotListed == 1 ? "" : "s")
       << " compiled that nothing in the file launches; --all lists "
       << (T.NotListed == 1 ? "it" : "them") << ")\n";
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

Json resourcesJson(const port::ResourceTable &T, const FilePortResult &R) {
  Json Out = Json::array();
  auto Side = [&](const arch::TargetInfo &Arch, const build::KernelResources &K,
                  const port::LaunchShape &Shape) {
    return Json{{"arch", Arch.Name},
                {"registers", K.Registers},
                {"spill_bytes", K.SpillStoreBytes + K.SpillLoadBytes},
                {"static_shared_bytes", K.SharedMemBytes},
                {"occupancy", occupancyText(Arch, K, Shape)},
                {"occupancy_kind", "predicted"}};
  };
  for (const port::ResourceRow &Row : T.Rows) {
    const build::KernelResources &K = *Row.Target;
    Json J = {{"kernel", Row.name()},
              {"threads_per_block", Row.Shape.Threads},
              {"threads_from", Row.FromLaunch ? "launch" : "assumed"},
              {"dynamic_shared_bytes", Row.Shape.DynamicSharedKnown
                                           ? Json(Row.Shape.DynamicShared)
                                           : Json(nullptr)},
              {"symbol", K.MangledName},
              {"launched", Row.Launched}};
    if (Row.FromLaunch) {
      J["launch"] = locationJson(Row.Shape.Loc, std::nullopt);
      J["other_threads_per_block"] = Row.OtherThreads;
    }
    J["target"] = Side(*R.Target, K, Row.Shape);
    if (Row.Source)
      J["source"] = Side(*R.Source, *Row.Source, Row.Shape);
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

/// A file as SARIF names it: "dir/../h.cuh" as "h.cuh" (lexically).
std::string sarifUri(StringRef File) {
  SmallString<256> P(File);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

Json sarifLocation(const std::string &File, const port::SourceSpan &S) {
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", sarifUri(File)}}}, {"region", sarifRegion(S)}}}};
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
                    unsigned AssumedBlockThreads, bool AllKernels) {
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
    OS << "; " << R.ClangOnlyParseErrors << " error(s) in code Clang could not parse";
  if (V.Ran)
    OS << "; nvcc " << (V.TargetOK ? "compiles" : "does not compile") << " the "
       << (R.Patched ? "patched " : "") << "file for " << R.Target->Name;
  OS << "\n";
  printResources(OS, R, AssumedBlockThreads, AllKernels);
  for (const SessionMessage &M : R.Messages)
    if (M.AfterSummary)
      printMessage(OS, M);
}

Json portFileJson(const FilePortResult &R, unsigned AssumedBlockThreads, bool AllKernels) {
  Json F = Json::array();
  for (const Finding &X : R.Findings)
    F.push_back(findingJson(X));
  port::ResourceTable Table = tableOf(R, AssumedBlockThreads, AllKernels);
  Json Val = nullptr;
  if (R.Check.Ran) {
    Val = {{"target", R.Target->Name},
           {"compiles", R.Check.TargetOK},
           {"source_compile", port::sourceCompileName(R.Check.Source).str()}};
    if (R.Check.Results.size() > 1)
      Val["source_compiles"] = R.Check.sourceOK();
  }
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
          {"resources", resourcesJson(Table, R)},
          {"resources_not_listed", Table.NotListed},
          {"project_fix_files", R.ProjectFixFiles}};
}

void renderProjectFiles(raw_ostream &OS, const port::PortResult &R) {
  for (const port::ProjectFileResult &P : R.ProjectFiles) {
    std::string From;
    for (const std::string &F : P.From)
      From += (From.empty() ? "" : ", ") + F;
    auto &Note = WithColor::note(OS, "forge-port");
    Note << "project file '" << P.File << "': " << P.Edits << " edit(s) from " << From;
    if (!P.Rejected.empty())
      Note << "; not applied: " << P.Rejected;
    else if (!P.WriteError.empty())
      Note << "; not written: " << P.WriteError;
    else if (P.Written)
      Note << "; written";
    Note << "\n";
  }
}

void renderBuildFiles(raw_ostream &OS, const port::PortResult &R) {
  for (const port::BuildFileResult &B : R.BuildFiles) {
    for (const port::BuildFlagFinding &F : B.Findings) {
      OS << B.File << ":" << F.Line << ":" << F.Column << ": ";
      if (F.Level == port::BuildFlagLevel::Error)
        WithColor(OS, raw_ostream::RED, true) << "error: ";
      else
        WithColor(OS, raw_ostream::BLACK, true) << "note: ";
      OS << F.Message << " [build-flags]\n";
      if (!F.Replacement.empty())
        WithColor::note(OS, "forge-port")
            << "'" << F.Spelling << "' -> '" << F.Replacement << "'"
            << (B.Fixed ? (B.Written || !B.DiffText.empty() ? "" : " (not written)")
                        : " (use -i, --diff or -o DIR to apply)")
            << "\n";
    }
    if (!B.WriteError.empty())
      WithColor::error(OS, "forge-port") << B.WriteError << "\n";
  }
}

void renderPortSummary(raw_ostream &OS, const port::PortResult &R) {
  unsigned Errors = 0, Warnings = 0, Fixed = 0, Compiles = 0, Fails = 0, Unchecked = 0;
  // Files below the current directory are named relative to it.
  std::string Here = absolutePath(".");
  auto Name = [&](const std::string &File) {
    std::string Abs = absolutePath(File);
    return sys::path::is_absolute(File) && port::isUnder(Abs, Here)
               ? port::relativePath(Abs, Here)
               : File;
  };
  size_t Width = 4;
  for (const FilePortResult &F : R.Files)
    Width = std::max(Width, Name(F.File).size());
  Width = std::min<size_t>(Width, 60);
  OS << "per file:\n  " << left_justify("file", Width)
     << formatv(" {0,-7} {1,-9} {2,-6} {3}\n", "errors", "warnings", "fixed", "nvcc");
  for (const FilePortResult &F : R.Files) {
    std::string Nvcc;
    if (!F.Failure.empty())
      Nvcc = "not ported: " + F.Failure;
    else if (!F.Completed)
      Nvcc = "not ported";
    else if (!F.Check.Ran)
      Nvcc = "not validated";
    else
      Nvcc = F.Check.TargetOK ? "compiles" : "does not compile";
    if (F.Completed && F.Check.Ran)
      ++(F.Check.TargetOK ? Compiles : Fails);
    else
      ++Unchecked;
    unsigned E = F.Completed ? F.totalErrors() : (F.Failed ? 1 : 0);
    Errors += E;
    Warnings += F.Warnings;
    Fixed += F.Fixed;
    std::string N = Name(F.File);
    if (N.size() > Width)
      OS << "  " << N << "\n  " << left_justify("", Width);
    else
      OS << "  " << left_justify(N, Width);
    OS << formatv(" {0,-7} {1,-9} {2,-6} {3}\n", E, F.Warnings, F.Fixed, Nvcc);
  }
  OS << formatv("{0} file(s): {1} error(s), {2} warning(s), {3} fixed; nvcc compiles {4}, "
                "does not compile {5}, not checked {6}",
                R.Files.size(), Errors, Warnings, Fixed, Compiles, Fails, Unchecked);
  if (!R.ProjectFiles.empty())
    OS << "; " << R.ProjectFiles.size() << " project file(s) with fixes";
  if (!R.BuildFiles.empty()) {
    unsigned Open = 0, Fixed = 0;
    for (const port::BuildFileResult &B : R.BuildFiles) {
      Open += B.openErrors(R.Writing);
      Fixed += B.Fixed;
    }
    OS << "; " << R.BuildFiles.size() << " build file(s) name GPU targets for CUDA 13 to fix ("
       << Fixed << " fixed, " << Open << " error(s) left)";
  }
  OS << "\n";
}

Json portSarif(const port::PortResult &Run, ArrayRef<port::PassInfo> Passes) {
  Json Rules = Json::array();
  for (const port::PassInfo &P : Passes)
    Rules.push_back({{"id", P.Name},
                     {"shortDescription", {{"text", P.Summary}}},
                     {"helpUri", std::string("docs/passes/") + P.Name + ".md"}});
  Json Results = Json::array();
  // A finding in a shared header that several files report is one result.
  std::set<std::string> Seen;
  for (const FilePortResult &R : Run.Files)
    for (const Finding &F : R.Completed ? R.Findings : std::vector<Finding>()) {
      if (!Seen.insert((absolutePath(F.Loc.File) + ":" + Twine(F.Span.Offset) + ":" + F.Pass + ":" + F.Message)
                           .str())
               .second)
        continue;
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
            return C["artifactLocation"]["uri"] == sarifUri(X.File);
          });
          if (Same == Changes.end()) {
            Changes.push_back({{"artifactLocation", {{"uri", sarifUri(X.File)}}},
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
  if (!Run.BuildFiles.empty())
    Rules.push_back({{"id", "build-flags"},
                     {"shortDescription",
                      {{"text", "GPU targets in build files that nvcc 13 rejects"}}},
                     {"helpUri", "docs/build-flags.md"}});
  for (const port::BuildFileResult &B : Run.BuildFiles)
    for (const port::BuildFlagFinding &F : B.Findings) {
      port::SourceSpan S;
      S.Line = S.EndLine = F.Line;
      S.Column = F.Column;
      S.EndColumn = F.Column + F.Length;
      S.Offset = F.Offset;
      S.Length = F.Length;
      Json Result = {{"ruleId", "build-flags"},
                     {"level", F.Level == port::BuildFlagLevel::Error ? "error" : "note"},
                     {"message", {{"text", F.Message}}},
                     {"locations", Json::array({sarifLocation(B.File, S)})}};
      if (!F.Replacement.empty())
        Result["fixes"] = Json::array(
            {{{"description", {{"text", "the replacement target"}}},
              {"artifactChanges",
               Json::array({{{"artifactLocation", {{"uri", sarifUri(B.File)}}},
                             {"replacements",
                              Json::array({{{"deletedRegion", sarifRegion(S)},
                                            {"insertedContent",
                                             {{"text", F.Replacement}}}}})}}})}}});
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
