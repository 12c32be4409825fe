//===- forge-port/Analyze.cpp - `forge-port analyze` ----------------------===//
///
/// \file
/// Prints the analysis model of one kernel or of every kernel of a file
/// (docs/analyze.md): loops, accesses with their warp classes, footprints
/// and guards, and the computations the recognisers found.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "SharedOptions.h"
#include "forge/Analysis/AnalyzeFile.h"
#include "forge/Support/Error.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::OptionCategory AnalyzeCategory("forge-port analyze options");
cl::opt<std::string> File(cl::Positional, cl::desc("<file.cu>"), cl::Required,
                          cl::cat(AnalyzeCategory), cl::sub(analyzeCommand()));
cl::opt<std::string> KernelName("kernel",
                                cl::desc("The kernel (qualified name, or a unique name); "
                                         "default: every kernel of the file"),
                                cl::cat(AnalyzeCategory), cl::sub(analyzeCommand()));
enum class Format { Text, Json };
cl::opt<Format>
    OutputFormat("format", cl::desc("Output format"),
                 cl::values(clEnumValN(Format::Text, "text", "one line per fact (default)"),
                            clEnumValN(Format::Json, "json", "the whole model")),
                 cl::init(Format::Text), cl::cat(AnalyzeCategory), cl::sub(analyzeCommand()));
cl::opt<std::string> BlockOpt("block", cl::desc("The launch block, when known"),
                              cl::value_desc("N[,Y[,Z]]"), cl::cat(AnalyzeCategory),
                              cl::sub(analyzeCommand()));
cl::opt<std::string> Arch("arch", cl::desc("Device target to read the file for"),
                          cl::value_desc("sm_XX"), cl::cat(AnalyzeCategory), cl::sub(analyzeCommand()));
} // namespace

int forge::tool::runAnalyze(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port analyze: print the analysis model of kernels\n"))
    return ExitUsage;
  analysis::AnalysisOptions AO;
  if (!BlockOpt.empty()) {
    auto B = parseBlockDims(BlockOpt);
    if (!B)
      return reportError(B.takeError());
    AO.Block = *B;
  }
  auto Target = optionalTarget(Arch);
  if (!Target)
    return reportError(Target.takeError());
  if (Error E = checkKernelFile(File, Inv.ExtraArgs))
    return reportError(std::move(E));
  auto Opts = frontend::makeParseOptions(File, BuildPath, *Target, Inv.ExtraArgs);
  if (!Opts)
    return reportError(Opts.takeError());
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, CudaPath);
  frontend::ParseDiagnostics Diags(&errs());
  auto R = analysis::analyzeFile(TC, *Opts, File, KernelName, AO, Diags);
  if (!R)
    return reportError(R.takeError());
  if (OutputFormat == Format::Json)
    outs() << analysis::toJson(*R).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  else
    outs() << analysis::renderText(*R);
  if (R->ParseErrors) {
    WithColor::warning(errs(), "forge-port")
        << File << " has " << R->ParseErrors
        << " parse error(s); the model is from what could be recovered\n";
    return ExitFailure;
  }
  return ExitOK;
}
