//===- forge-port/List.cpp - `forge-port list` ----------------------------===//
///
/// \file
/// Prints every kernel, launch site and tunable of the given files, as a
/// table for people or as the JSON contract of DESIGN.md for scripts
/// (Frontend/KernelIndexText.h, KernelIndexJson.h).
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "SharedOptions.h"
#include "forge/Frontend/CompileDatabase.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Frontend/KernelIndexJson.h"
#include "forge/Frontend/KernelIndexText.h"
#include "forge/Support/Error.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace forge;
using namespace forge::frontend;
using namespace forge::tool;

namespace {
cl::OptionCategory ListCategory("forge-port list options");
cl::list<std::string> Files(cl::Positional, cl::desc("<file.cu>..."), cl::OneOrMore,
                            cl::cat(ListCategory), cl::sub(listCommand()));
enum class Format { Text, Json };
cl::opt<Format> OutputFormat("format", cl::desc("Output format"),
                             cl::values(clEnumValN(Format::Text, "text", "a table (default)"),
                                        clEnumValN(Format::Json, "json", "the JSON contract")),
                             cl::init(Format::Text), cl::cat(ListCategory),
                             cl::sub(listCommand()));
cl::opt<std::string> Arch("arch",
                          cl::desc("Device target to read the files for (default: the "
                                   "arch in the compile flags, else sm_80)"),
                          cl::value_desc("sm_XX"), cl::cat(ListCategory),
                          cl::sub(listCommand()));
cl::opt<bool> ShowWarnings("show-parse-warnings",
                           cl::desc("Also print the compiler's warnings"),
                           cl::cat(ListCategory), cl::sub(listCommand()));
} // namespace

int forge::tool::runList(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port list: the kernels, launch sites and tunables of CUDA files\n"))
    return ExitUsage;
  Toolchain TC = Toolchain::detect(Inv.Argv0, CudaPath);
  if (!CudaPath.empty() && !TC.hasCuda())
    return reportError(makeUsageError("'{0}' is not a CUDA toolkit (no include/cuda_runtime.h)",
                                      CudaPath));
  auto Target = optionalTarget(Arch);
  if (!Target)
    return reportError(Target.takeError());
  int Status = ExitOK;
  Json All = Json::array();
  bool First = true;
  for (const std::string &File : Files) {
    auto Opts = frontend::makeParseOptions(File, BuildPath, *Target, Inv.ExtraArgs);
    if (!Opts) {
      int Code = reportError(Opts.takeError());
      if (Code == ExitUsage)
        return Code;
      Status = ExitFailure;
      continue;
    }
    Opts->ShowWarnings = ShowWarnings;
    // A .cpp or .c that nvcc hands to the host compiler alone is read as
    // that compiler sees it, as `port` reads it (C for a .c): one side, and
    // no kernels.
    if (isHostSourceName(File)) {
      std::vector<std::string> Command;
      if (!BuildPath.empty()) {
        if (auto DB = CompileDatabase::load(BuildPath)) {
          if (auto Args = (*DB)->argumentsOf(File))
            Command = std::move(*Args);
          else
            consumeError(Args.takeError());
        } else {
          consumeError(DB.takeError());
        }
      }
      Opts->HostCompiler = isHostUnit(File, Command, Inv.ExtraArgs);
    }
    ParseDiagnostics Diags(&errs(), ShowWarnings);
    auto Index = Opts->HostCompiler ? buildHostIndex(TC, *Opts, File, Diags)
                                    : buildKernelIndex(TC, *Opts, File, Diags);
    if (!Index) {
      reportError(Index.takeError());
      Status = ExitFailure;
      continue;
    }
    if (Index->Errors) {
      WithColor::warning(errs(), "forge-port")
          << File << ": " << Index->Errors << " error" << (Index->Errors == 1 ? "" : "s")
          << " while parsing; listing what could be recovered\n";
      Status = ExitFailure;
    }
    if (OutputFormat == Format::Json) {
      All.push_back(toJson(*Index));
    } else {
      if (!First)
        outs() << "\n";
      renderText(*Index, outs());
      First = false;
    }
  }
  if (OutputFormat == Format::Json)
    outs() << (All.size() == 1 ? All[0] : All).dump(2) << "\n";
  return Status;
}
