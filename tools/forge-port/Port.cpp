//===- forge-port/Port.cpp - `forge-port [port]` --------------------------===//
///
/// \file
/// Options, one call of the port driver (Port/PortSession.h) and rendering
/// (Report/PortReport.h).
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "PassRegistry.h"
#include "SharedOptions.h"
#include "forge/Port/PortSession.h"
#include "forge/Port/ProjectFiles.h"
#include "forge/Report/PortReport.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <chrono>
#include <thread>

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::OptionCategory PortCategory("forge-port port options");
cl::list<std::string> Files(cl::Positional, cl::desc("<file.cu>... | --all [<dir>...]"),
                            cl::ZeroOrMore,
                            cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<std::string> From("from",
                          cl::desc("Source architecture for the resource comparison "
                                   "(default: the arch in the compile flags, else sm_80)"),
                          cl::value_desc("arch"), cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<std::string> Checks("checks", cl::desc("Comma-separated globs of passes ('-' excludes)"),
                            cl::init("*"), cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<bool> ListChecks("list-checks", cl::desc("List the passes and exit"),
                         cl::cat(PortCategory), cl::sub(portCommand()));
enum class Format { Text, Json, Sarif };
cl::opt<Format> OutputFormat(
    "format", cl::desc("Findings format"),
    cl::values(clEnumValN(Format::Text, "text", "compiler-style diagnostics (default)"),
               clEnumValN(Format::Json, "json", "JSON on stdout"),
               clEnumValN(Format::Sarif, "sarif", "SARIF 2.1.0 on stdout")),
    cl::init(Format::Text), cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<std::string> Depfile("depfile",
                             cl::desc("With -o FILE: write FILE's dependencies (the input and "
                                      "the user headers it includes) as a Makefile-style "
                                      "depfile, for the build system"),
                             cl::value_desc("file.d"), cl::cat(PortCategory),
                             cl::sub(portCommand()));
cl::opt<std::string> DepfileTarget("depfile-target",
                                   cl::desc("The target the depfile names (default: the -o "
                                            "file), as -MT does"),
                                   cl::value_desc("file"), cl::cat(PortCategory),
                                   cl::sub(portCommand()));
cl::opt<bool> WarningsAsErrors("warnings-as-errors", cl::desc("Treat warnings as errors"),
                               cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<bool> Force("force",
                    cl::desc("With -i, -o or --sarif-log: rewrite a file, or write into a "
                             "directory, that has no write permission"),
                    cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<bool> NoValidate("no-validate",
                         cl::desc("Do not compile the result with nvcc for the target"),
                         cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<unsigned> AssumedBlock("assume-block-size",
                               cl::desc("Threads per block for the occupancy of kernels "
                                        "without a constant launch in the file"),
                               cl::init(256), cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<bool> All("all",
                  cl::desc("Project mode: port every CUDA translation unit of the compile "
                           "database (-p) or under the directories given; and list every "
                           "kernel nvcc compiled in the resource table, not only those the "
                           "file launches and its non-template kernels"),
                  cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<unsigned> Jobs("j", cl::desc("Translation units ported at once (default: the cores)"),
                       cl::init(0), cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<std::string> SarifLog("sarif-log",
                              cl::desc("Also write the run's findings as a SARIF 2.1.0 log "
                                       "to this file (project mode: to forge-port.sarif in "
                                       "-o DIR or the current directory unless given)"),
                              cl::value_desc("file"), cl::cat(PortCategory),
                              cl::sub(portCommand()));

} // namespace

int forge::tool::runPort(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port port: report and fix what breaks or must be retuned on "
                         "another GPU target\n"))
    return ExitUsage;
  if (ListChecks) {
    for (const port::PassInfo &P : passes::allPasses())
      outs() << formatv("{0,-28} {1}\n", P.Name, P.Summary);
    return ExitOK;
  }
  port::PortSessionOptions O;
  auto Output = outputChoice();
  if (!Output)
    return reportError(Output.takeError());
  O.Output = *Output;
  // -o DIR: an existing directory, or a path that ends in '/'.
  if (O.Output.K == OutputChoice::Kind::File &&
      (sys::fs::is_directory(O.Output.Path) || StringRef(O.Output.Path).ends_with("/")))
    O.Output.K = OutputChoice::Kind::Tree;
  auto Inputs = port::portInputs(std::vector<std::string>(Files.begin(), Files.end()),
                                 BuildPath, All);
  if (!Inputs)
    return reportError(Inputs.takeError());
  for (const std::string &N : Inputs->Notes)
    errs() << "forge-port: " << N << "\n";
  O.Files = std::move(Inputs->Files);
  O.ProjectRoot = std::move(Inputs->ProjectRoot);
  O.Database = std::move(Inputs->Database);
  bool Project = O.Files.size() > 1 || O.Output.K == OutputChoice::Kind::Tree;
  O.ScanBuildFiles = All && !O.ProjectRoot.empty();
  bool Text = OutputFormat == Format::Text;
  if (O.Output.K == OutputChoice::Kind::Diff && !Text)
    return reportError(makeUsageError("--diff and --format={0} both write stdout; pick one",
                                      OutputFormat == Format::Json ? "json" : "sarif"));
  auto Target = targetOption(/*Required=*/true);
  if (!Target)
    return reportError(Target.takeError());
  auto Source = optionalTarget(From);
  if (!Source)
    return reportError(Source.takeError());
  O.Source = *Source;
  auto Selected = passes::selectPasses(Checks);
  if (!Selected)
    return reportError(Selected.takeError());
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, CudaPath);
  O.Target = *Target;
  O.Jobs = Jobs ? Jobs : std::max(1u, std::thread::hardware_concurrency());
  O.BuildDir = BuildPath;
  O.ExtraArgs = Inv.ExtraArgs;
  O.Passes = *Selected;
  O.DepfilePath = Depfile;
  O.DepfileTarget = DepfileTarget;
  O.WarningsAsErrors = WarningsAsErrors;
  O.Force = Force;
  O.Validate = !NoValidate;
  O.CudaPath = CudaPath;
  O.AssumedBlockThreads = AssumedBlock;
  O.DiagOS = &errs();
  O.ParseDiagOS = Text ? &errs() : nullptr;
  O.Toolchain = &TC;

  // The SARIF log is checked before any work, as the session checks its
  // outputs; in -o DIR it is one more file of the tree (its directory is
  // checked with the tree; a read-only log there is refused here).
  std::string Log = SarifLog;
  bool LogInTree = false;
  if (Log.empty() && All) {
    LogInTree = O.Output.K == OutputChoice::Kind::Tree;
    SmallString<256> P(LogInTree ? O.Output.Path : ".");
    sys::path::append(P, "forge-port.sarif");
    Log = P.str().str();
  }
  if (!Log.empty() && Log != "-" && !LogInTree) // "-": stdout
    if (Error E = port::checkOutputFile(Log, "--sarif-log", Force, "the SARIF log "))
      return reportError(std::move(E));
  if (LogInTree)
    if (Error E = port::checkOverwrite(Log, Force))
      return reportError(std::move(E));

  port::PortSession Session(O);
  size_t Done = 0, ErrorsSoFar = 0;
  auto Start = std::chrono::steady_clock::now();
  auto R = Session.run([&](const port::FilePortResult &F) {
    if (Text)
      report::renderPortText(errs(), F, O.Output.writes(), O.AssumedBlockThreads, All);
    else
      report::renderPortErrors(errs(), F);
    ++Done;
    ErrorsSoFar += F.Completed ? F.totalErrors() : F.Failed;
    if (Project) {
      double S = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
      errs() << formatv("forge-port: [{0}/{1}] {2} error(s) so far; {3:F0} s elapsed, ETA "
                        "{4:F0} s\n",
                        Done, O.Files.size(), ErrorsSoFar, S,
                        S / Done * (O.Files.size() - Done));
    }
    if (O.Output.K == OutputChoice::Kind::Diff)
      outs() << F.DiffText;
    else if (O.Output.K == OutputChoice::Kind::Stdout && F.Completed)
      outs() << F.Result;
  });
  if (!R)
    return reportError(R.takeError());
  if (O.Output.K == OutputChoice::Kind::Diff) {
    for (const port::ProjectFileResult &P : R->ProjectFiles)
      outs() << P.DiffText;
    for (const port::BuildFileResult &B : R->BuildFiles)
      outs() << B.DiffText;
  }
  report::renderProjectFiles(errs(), *R);
  report::renderBuildFiles(errs(), *R);
  if (Project && Text)
    report::renderPortSummary(errs(), *R);
  if (O.Output.K == OutputChoice::Kind::Tree)
    errs() << formatv("forge-port: the tree is in {0} ({1} file(s) ported, {2} project "
                      "file(s) patched, {3} copied as they are)\n",
                      O.Output.Path, R->Files.size(), R->ProjectFiles.size(),
                      R->CopiedToTree);
  if (!Log.empty()) {
    if (LogInTree) // a tree with nothing written in it yet
      if (std::error_code EC = sys::fs::create_directories(O.Output.Path))
        return reportError(
            makeError("cannot create '{0}': {1}", O.Output.Path, EC.message()));
    if (Error E = writeFileAtomically(
            Log, report::portSarif(*R, passes::allPasses()).dump(2) + "\n"))
      return reportError(std::move(E));
    errs() << "forge-port: SARIF log written to " << Log << "\n";
  }
  if (OutputFormat == Format::Json) {
    Json Rows = Json::array();
    for (const port::FilePortResult &F : R->Files)
      if (F.Completed)
        Rows.push_back(report::portFileJson(F, O.AssumedBlockThreads, All));
    outs() << (Rows.size() == 1 && !Project ? Rows[0] : Rows).dump(2) << "\n";
  } else if (OutputFormat == Format::Sarif) {
    outs() << report::portSarif(*R, passes::allPasses()).dump(2) << "\n";
  }
  return R->failed() ? ExitFailure : ExitOK;
}
