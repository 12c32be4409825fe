//===- forge-port/Common.cpp ----------------------------------------------===//
#include "Common.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Support/Error.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace forge::tool {

int reportError(Error E) {
  int Code = ExitFailure;
  handleAllErrors(
      std::move(E),
      [&](const UsageError &U) {
        Code = ExitUsage;
        WithColor::error(errs(), "forge-port") << U.message() << "\n";
      },
      [&](const ErrorInfoBase &EI) {
        WithColor::error(errs(), "forge-port") << EI.message() << "\n";
      });
  return Code;
}

bool parseOptions(const Invocation &Inv, StringRef Overview) {
  std::string Err;
  raw_string_ostream ES(Err);
  bool OK = cl::ParseCommandLineOptions(int(Inv.Args.size()), Inv.Args.data(), Overview, &ES);
  if (!OK) {
    ES.flush();
    errs() << Err;
    if (!StringRef(Err).ends_with("\n"))
      errs() << "\n";
    errs() << "Run 'forge-port " << (Inv.Args.size() > 1 ? "" : "") << "--help' for usage.\n";
  }
  return OK;
}

Expected<frontend::ParseOptions> makeParseOptions(StringRef File, StringRef BuildDir,
                                                  StringRef Arch,
                                                  ArrayRef<std::string> ExtraArgs) {
  frontend::ParseOptions Opts;
  if (!BuildDir.empty()) {
    auto Flags = frontend::flagsFromCompilationDatabase(BuildDir, File);
    if (!Flags)
      return Flags.takeError();
    Opts.ExtraArgs = Flags->ClangArgs;
    if (!Flags->Archs.empty())
      Opts.Arch = Flags->Archs.front();
  }
  Opts.ExtraArgs.insert(Opts.ExtraArgs.end(), ExtraArgs.begin(), ExtraArgs.end());
  if (!Arch.empty())
    Opts.Arch = Arch.str();
  std::string Effective = frontend::effectiveArch(Opts);
  auto T = arch::lookupTarget(Effective);
  if (!T)
    return T.takeError();
  Opts.Arch = T->Name;
  return Opts;
}

} // namespace forge::tool
