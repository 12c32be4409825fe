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
#include "forge/Report/PortReport.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::OptionCategory PortCategory("forge-port port options");
cl::list<std::string> Files(cl::Positional, cl::desc("<file.cu>..."), cl::OneOrMore,
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
                    cl::desc("With -i or -o: rewrite a file that has no write permission"),
                    cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<bool> NoValidate("no-validate",
                         cl::desc("Do not compile the result with nvcc for the target"),
                         cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<unsigned> AssumedBlock("assume-block-size",
                               cl::desc("Threads per block for the occupancy of kernels "
                                        "without a constant launch in the file"),
                               cl::init(256), cl::cat(PortCategory), cl::sub(portCommand()));
cl::opt<bool> AllKernels("all",
                         cl::desc("List every kernel nvcc compiled in the resource table, "
                                  "not only those the file launches and its non-template "
                                  "kernels"),
                         cl::cat(PortCategory), cl::sub(portCommand()));
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
  O.Files.assign(Files.begin(), Files.end());
  O.Target = *Target;
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

  port::PortSession Session(O);
  auto R = Session.run([&](const port::FilePortResult &F) {
    if (Text)
      report::renderPortText(errs(), F, O.Output.writes(), O.AssumedBlockThreads, AllKernels);
    else
      report::renderPortErrors(errs(), F);
    if (O.Output.K == OutputChoice::Kind::Diff)
      outs() << F.DiffText;
    else if (O.Output.K == OutputChoice::Kind::Stdout && F.Completed)
      outs() << F.Result;
  });
  if (!R)
    return reportError(R.takeError());
  if (OutputFormat == Format::Json) {
    Json All = Json::array();
    for (const port::FilePortResult &F : R->Files)
      if (F.Completed)
        All.push_back(report::portFileJson(F, O.AssumedBlockThreads, AllKernels));
    outs() << (All.size() == 1 ? All[0] : All).dump(2) << "\n";
  } else if (OutputFormat == Format::Sarif) {
    outs() << report::portSarif(*R, passes::allPasses()).dump(2) << "\n";
  }
  return R->failed() ? ExitFailure : ExitOK;
}
