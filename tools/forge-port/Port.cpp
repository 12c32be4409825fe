//===- forge-port/Port.cpp - `forge-port [port]` --------------------------===//
///
/// \file
/// Runs the porting passes for a target, applies the safe fixes as a patch
/// (-o, -i or --diff), checks the patched file re-parses with no new errors,
/// validates it with nvcc for the target and compares resources and
/// occupancy between the source and the target arch.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "PassRegistry.h"
#include "PortRunner.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Build/CompileCache.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Patch/ReparseCheck.h"
#include "forge/Patch/UnifiedDiff.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Json.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace forge;
using namespace forge::passes;

namespace {
cl::SubCommand PortSub("port", "port kernels to another GPU target");
cl::OptionCategory PortCategory("forge-port port options");
cl::list<std::string> Files(cl::Positional, cl::desc("<file.cu>..."), cl::OneOrMore,
                            cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<std::string> To("to", cl::desc("Target architecture (sm_80, sm_90a, sm_100, ...)"),
                        cl::value_desc("arch"), cl::Required, cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<std::string> From("from",
                          cl::desc("Source architecture for the resource comparison "
                                   "(default: the arch in the compile flags, else sm_80)"),
                          cl::value_desc("arch"), cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<std::string> BuildPath("p", cl::desc("Build directory with compile_commands.json"),
                               cl::value_desc("build-dir"), cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<std::string> Output("o", cl::desc("Write the patched source here ('-' for stdout)"),
                            cl::value_desc("file"), cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<bool> InPlace("i", cl::desc("Rewrite the input files in place (atomically)"),
                      cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<bool> Diff("diff", cl::desc("Print the patch as a unified diff on stdout"),
                   cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<std::string> Checks("checks", cl::desc("Comma-separated globs of passes ('-' excludes)"),
                            cl::init("*"), cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<bool> ListChecks("list-checks", cl::desc("List the passes and exit"),
                         cl::cat(PortCategory), cl::sub(PortSub));
enum class Format { Text, Json, Sarif };
cl::opt<Format> OutputFormat(
    "format", cl::desc("Findings format"),
    cl::values(clEnumValN(Format::Text, "text", "compiler-style diagnostics (default)"),
               clEnumValN(Format::Json, "json", "JSON on stdout"),
               clEnumValN(Format::Sarif, "sarif", "SARIF 2.1.0 on stdout")),
    cl::init(Format::Text), cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<bool> WarningsAsErrors("warnings-as-errors", cl::desc("Treat warnings as errors"),
                               cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<bool> NoValidate("no-validate",
                         cl::desc("Do not compile the result with nvcc for the target"),
                         cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<std::string> CudaPathOpt("cuda-path", cl::desc("CUDA toolkit to use"),
                                 cl::cat(PortCategory), cl::sub(PortSub));
cl::opt<unsigned> AssumedBlock("assume-block-size",
                               cl::desc("Threads per block for the occupancy of kernels "
                                        "without a constant launch in the file"),
                               cl::init(256), cl::cat(PortCategory), cl::sub(PortSub));
} // namespace

static Json findingJson(const Finding &F) {
  const char *Level = F.Level == Severity::Error     ? "error"
                      : F.Level == Severity::Warning ? "warning"
                                                     : "note";
  Json J = {{"pass", F.Pass},
            {"severity", Level},
            {"message", F.Message},
            {"location", {{"file", F.Loc.File}, {"line", F.Loc.Line}, {"column", F.Loc.Column}}},
            {"fixed", F.Fixed}};
  Json Notes = Json::array();
  for (const Finding &N : F.Notes)
    Notes.push_back({{"message", N.Message},
                     {"location", {{"file", N.Loc.File}, {"line", N.Loc.Line}, {"column", N.Loc.Column}}}});
  J["notes"] = Notes;
  J["fixits"] = F.FixIts;
  return J;
}

static Json sarifLog(const std::vector<std::pair<std::string, std::vector<Finding>>> &All) {
  Json Rules = Json::array();
  for (const PassInfo &P : allPasses())
    Rules.push_back({{"id", P.Name}, {"shortDescription", {{"text", P.Summary}}},
                     {"helpUri", std::string("docs/passes/") + P.Name + ".md"}});
  Json Results = Json::array();
  for (const auto &[File, Findings] : All)
    for (const Finding &F : Findings) {
      Json Loc = {{"physicalLocation",
                   {{"artifactLocation", {{"uri", F.Loc.File}}},
                    {"region", {{"startLine", F.Loc.Line}, {"startColumn", F.Loc.Column}}}}}};
      Results.push_back({{"ruleId", F.Pass},
                         {"level", F.Level == Severity::Error ? "error" : "warning"},
                         {"message", {{"text", F.Message}}},
                         {"locations", Json::array({Loc})}});
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

/// Include directories and defines from the Clang arguments, for nvcc.
namespace {
struct Validation {
  bool Ran = false;
  bool TargetOK = false;
  std::string Note;
  std::vector<build::CompileResult> Results; ///< [target, source]
};
} // namespace

/// Compiles Contents for the target and the source arch (in parallel).
static Validation validate(StringRef File, StringRef Contents, const frontend::ParseOptions &PO,
                           const arch::TargetInfo &Target, const arch::TargetInfo &Source) {
  Validation V;
  auto Tools = tool::findNvcc(CudaPathOpt);
  if (!Tools) {
    V.Note = "not validated: " + toString(Tools.takeError());
    return V;
  }
  SmallString<128> Tmp;
  if (auto EC = sys::fs::createTemporaryFile("forge-port", "cu", Tmp)) {
    V.Note = "not validated: " + EC.message();
    return V;
  }
  if (Error E = writeFileAtomically(Tmp, Contents)) {
    V.Note = "not validated: " + toString(std::move(E));
    return V;
  }
  SmallString<256> Dir(File);
  sys::fs::make_absolute(Dir);
  sys::path::remove_filename(Dir);
  std::vector<build::CompileJob> Jobs;
  for (const arch::TargetInfo *T : {&Target, &Source}) {
    build::CompileJob J;
    J.Source = Tmp.str().str();
    J.Targets = {*T};
    J.Output = build::OutputKind::ResourceCheck;
    J.ResourceUsage = true;
    J.IncludeDirs.push_back(Dir.str().str());
    J.ExtraFlags = tool::nvccFlagsFor(PO.ExtraArgs);
    J.TimeoutSeconds = 600;
    Jobs.push_back(J);
    if (StringRef(Target.Name) == Source.Name)
      break; // one compile serves both
  }
  auto Results = (*Tools)->Driver->compileAll(Jobs, 2);
  sys::fs::remove(Tmp);
  V.Ran = true;
  for (auto &R : Results) {
    if (!R) {
      V.Note = "not validated: " + toString(R.takeError());
      V.Ran = false;
      return V;
    }
    // Report diagnostics against the user's file, not the temporary copy.
    for (build::CompilerDiagnostic &D : R->Diagnostics)
      if (D.File == Tmp.str())
        D.File = File.str();
    V.Results.push_back(std::move(*R));
  }
  V.TargetOK = V.Results[0].ok();
  return V;
}

using LaunchMap = std::map<std::string, LaunchShape>;

/// Threads per block and dynamic shared memory for a kernel's occupancy:
/// its first constant launch in the file, else the assumed block size.
static std::pair<LaunchShape, bool> shapeFor(const LaunchMap &Launches, StringRef Mangled) {
  auto It = Launches.find(Mangled.str());
  if (It != Launches.end())
    return {It->second, true};
  LaunchShape S;
  S.Threads = AssumedBlock;
  return {S, false};
}

static std::string occupancyText(const arch::TargetInfo &T, const build::KernelResources &R,
                                 const LaunchShape &Shape) {
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

static void printResources(raw_ostream &OS, const Validation &V, const arch::TargetInfo &Target,
                           const arch::TargetInfo &Source, const LaunchMap &Launches) {
  if (!V.Ran || V.Results.empty())
    return;
  const build::CompileResult &TR = V.Results[0];
  const build::CompileResult *SR = V.Results.size() > 1 ? &V.Results[1] : nullptr;
  bool Any = false;
  for (const build::KernelResources &K : TR.Resources)
    Any |= K.IsEntry;
  if (!Any)
    return;
  OS << "resources per kernel, " << Source.Name << " -> " << Target.Name
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
    auto [Shape, FromLaunch] = shapeFor(Launches, K.MangledName);
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
                  Pair(K.SharedMemBytes, S ? std::optional<uint64_t>(S->SharedMemBytes) : std::nullopt),
                  Block,
                  (S ? occupancyText(Source, *S, Shape) + " -> " : std::string()) +
                      occupancyText(Target, K, Shape));
  }
}

static Json resourcesJson(const Validation &V, const arch::TargetInfo &Target,
                          const arch::TargetInfo &Source, const LaunchMap &Launches) {
  Json Out = Json::array();
  if (!V.Ran || V.Results.empty())
    return Out;
  auto Side = [&](const arch::TargetInfo &T, const build::KernelResources &K,
                  const LaunchShape &Shape) {
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
    auto [Shape, FromLaunch] = shapeFor(Launches, K.MangledName);
    Json J = {{"kernel", K.DemangledName},
              {"threads_per_block", Shape.Threads},
              {"threads_from", FromLaunch ? "launch" : "assumed"},
              {"dynamic_shared_bytes", Shape.DynamicShared},
              {"target", Side(Target, K, Shape)}};
    if (V.Results.size() > 1)
      if (const build::KernelResources *S = V.Results[1].findKernel(K.MangledName))
        J["source"] = Side(Source, *S, Shape);
    Out.push_back(J);
  }
  return Out;
}

int forge::tool::runPort(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port port: report and fix what breaks or must be retuned on "
                         "another GPU target\n"))
    return ExitUsage;
  if (ListChecks) {
    for (const PassInfo &P : allPasses())
      outs() << formatv("{0,-28} {1}\n", P.Name, P.Summary);
    return ExitOK;
  }
  unsigned Modes = !Output.empty() + InPlace + Diff;
  if (Modes > 1)
    return reportError(makeUsageError("-o, -i and --diff exclude each other"));
  if (!Output.empty() && Files.size() > 1)
    return reportError(makeUsageError("-o takes one input file; use -i or --diff for several"));
  if (Diff && OutputFormat != Format::Text)
    return reportError(makeUsageError("--diff and --format={0} both write stdout; pick one",
                                      OutputFormat == Format::Json ? "json" : "sarif"));
  auto Target = arch::lookupTarget(To);
  if (!Target)
    return reportError(Target.takeError());
  auto Selected = selectPasses(Checks);
  if (!Selected)
    return reportError(Selected.takeError());
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, CudaPathOpt);

  int Status = ExitOK;
  Json JsonFiles = Json::array();
  std::vector<std::pair<std::string, std::vector<Finding>>> AllFindings;
  for (const std::string &File : Files) {
    auto PO = makeParseOptions(File, BuildPath, From, Inv.ExtraArgs);
    if (!PO) {
      int Code = reportError(PO.takeError());
      if (Code == ExitUsage)
        return Code;
      Status = ExitFailure;
      continue;
    }
    const arch::TargetInfo *Source = &PO->target();
    auto Original = readFile(File);
    if (!Original) {
      reportError(Original.takeError());
      Status = ExitFailure;
      continue;
    }
    if (Error E = frontend::checkCudaInput(File)) {
      reportError(std::move(E));
      Status = ExitFailure;
      continue;
    }

    bool Text = OutputFormat == Format::Text;
    PortDiagnostics Diag(&errs(), WarningsAsErrors);
    frontend::ParseDiagnostics ParseDiags(Text ? &errs() : nullptr);
    LaunchMap Launches;
    PortOptions Opts;
    Opts.Launches = &Launches;
    Opts.Target = &*Target;
    Opts.Source = Source;
    Opts.Passes = *Selected;
    Opts.Parse = *PO;
    if (Error E = runPortPasses(TC, Opts, File, Diag, ParseDiags)) {
      reportError(std::move(E));
      Status = ExitFailure;
      continue;
    }

    // The result: the original, or the original with the safe fixes.
    std::string Result = *Original;
    bool Patched = false;
    unsigned RemainingParseErrors = ParseDiags.errors();
    // Fixes apply to the file being ported; a fix-it in a project header is
    // shown but not applied (the header is shared by other files).
    patch::PatchSet Patches;
    std::string MainKey = patch::PatchSet::normalizePath(File);
    for (const std::string &F : Diag.patches().files()) {
      if (F != MainKey) {
        if (Text)
          WithColor::note(errs(), "forge-port")
              << "fix-its in '" << F << "' are not applied; port that file itself\n";
        continue;
      }
      for (const patch::Edit &E : Diag.patches().editsFor(F))
        if (Error Err = Patches.add(E.Replacement, E.originText()))
          consumeError(std::move(Err)); // already conflict-free in Diag
    }
    if (!Patches.empty()) {
      auto New = Patches.applyTo(File, *Original);
      if (!New) {
        reportError(New.takeError());
        Status = ExitFailure;
        continue;
      }
      // The original's count is known from the run; only the patched text is
      // parsed again (host and target).
      frontend::ParseOptions Reparse = *PO;
      Reparse.Target = &*Target;
      unsigned AfterCount = 0;
      auto Count = [&](StringRef F, StringRef Contents) -> Expected<unsigned> {
        if (Contents == *Original)
          return ParseDiags.errors();
        auto N = countParseErrors(TC, Reparse, F, Contents);
        if (N)
          AfterCount = *N;
        return N;
      };
      patch::ContentsProvider Provide = [&](StringRef) -> Expected<std::string> {
        return *Original;
      };
      if (Error E = patch::verifyNoNewErrors(Patches, Provide, Count)) {
        WithColor::error(errs(), "forge-port")
            << toString(std::move(E)) << "; nothing was written\n";
        Status = ExitFailure;
        continue;
      }
      Result = *New;
      Patched = true;
      RemainingParseErrors = AfterCount;
    }

    unsigned Errors = Diag.errors();
    unsigned Fixed = count_if(Diag.findings(), [&](const Finding &F) {
      return F.Fixed && patch::PatchSet::normalizePath(F.Loc.File) == MainKey;
    });
    // Errors that the written result still has.
    bool Writing = !Output.empty() || InPlace || Diff;
    unsigned LeftParseErrors = Writing ? RemainingParseErrors : ParseDiags.errors();
    if (Errors || LeftParseErrors)
      Status = ExitFailure;

    Validation V;
    if (!NoValidate && !LeftParseErrors) {
      V = validate(File, Result, *PO, *Target, *Source);
      if (V.Ran && !V.TargetOK) {
        Status = ExitFailure;
        for (const build::CompilerDiagnostic &D : V.Results[0].Diagnostics)
          if (D.isError() && Text)
            errs() << D.format() << "\n";
        if (Text)
          WithColor::error(errs(), "forge-port")
              << File << ": nvcc does not compile the " << (Patched ? "patched " : "")
              << "file for " << Target->Name << "\n";
      } else if (!V.Ran && Text) {
        WithColor::note(errs(), "forge-port") << V.Note << "\n";
      }
    }

    if (Text) {
      errs() << File << ": " << Diag.errors() << " error(s), " << Diag.warnings()
             << " warning(s) for " << Target->Name << "; " << Fixed << " fixed"
             << (Writing ? "" : " (use -o, -i or --diff to apply)");
      if (V.Ran)
        errs() << "; nvcc " << (V.TargetOK ? "compiles" : "does not compile") << " the "
               << (Writing && Patched ? "patched " : "") << "file for " << Target->Name;
      errs() << "\n";
      printResources(errs(), V, *Target, *Source, Launches);
    }

    // Write only a result that does not have more errors than the input.
    if (!Output.empty()) {
      if (Error E = writeFileAtomically(Output, Result)) {
        reportError(std::move(E));
        Status = ExitFailure;
      }
    } else if (InPlace && Patched) {
      if (Error E = writeFileAtomically(File, Result)) {
        reportError(std::move(E));
        Status = ExitFailure;
      }
    } else if (Diff && Patched) {
      outs() << patch::unifiedDiff(*Original, Result, "a/" + File, "b/" + File);
    }

    if (OutputFormat == Format::Json) {
      Json F = Json::array();
      for (const Finding &X : Diag.findings())
        F.push_back(findingJson(X));
      Json Val = nullptr;
      if (V.Ran)
        Val = {{"target", Target->Name}, {"compiles", V.TargetOK}};
      JsonFiles.push_back({{"file", File},
                           {"target", Target->Name},
                           {"source", Source->Name},
                           {"findings", F},
                           {"parse_errors", ParseDiags.errorMessages()},
                           {"patched", Patched},
                           {"validation", Val},
                           {"resources", resourcesJson(V, *Target, *Source, Launches)}});
    }
    AllFindings.push_back({File, Diag.findings()});
  }
  if (OutputFormat == Format::Json)
    outs() << (JsonFiles.size() == 1 ? JsonFiles[0] : JsonFiles).dump(2) << "\n";
  else if (OutputFormat == Format::Sarif)
    outs() << sarifLog(AllFindings).dump(2) << "\n";
  return Status;
}
