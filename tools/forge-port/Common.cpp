//===- forge-port/Common.cpp ----------------------------------------------===//
#include "Common.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Measure/Measurement.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Error.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
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

Expected<std::array<int64_t, 3>> parseBlockOption(StringRef Text) {
  std::array<int64_t, 3> B{{1, 1, 1}};
  SmallVector<StringRef, 3> Parts;
  Text.split(Parts, ',');
  if (Parts.size() > 3)
    return makeUsageError("--block: expected N[,Y[,Z]], got '{0}'", Text);
  int64_t Threads = 1;
  for (size_t I = 0; I < Parts.size(); ++I) {
    if (Parts[I].trim().getAsInteger(10, B[I]) || B[I] <= 0)
      return makeUsageError("--block: expected positive integers N[,Y[,Z]], got '{0}'", Text);
    Threads *= B[I];
  }
  if (Threads > 1024)
    return makeUsageError("--block: {0} threads per block; CUDA allows at most 1024", Threads);
  return B;
}

Expected<std::unique_ptr<Nvcc>> findNvcc(StringRef CudaPath) {
  auto TK = build::CudaToolkit::find(CudaPath);
  if (!TK)
    return TK.takeError();
  auto N = std::make_unique<Nvcc>();
  build::DriverOptions DO;
  DO.Cache = &N->Cache;
  N->Driver = std::make_unique<build::NvccDriver>(*TK, DO);
  return N;
}

std::vector<std::string> nvccFlagsFor(ArrayRef<std::string> ClangArgs) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < ClangArgs.size(); ++I) {
    StringRef A = ClangArgs[I];
    bool Next = I + 1 < ClangArgs.size();
    if (A.consume_front("-I"))
      Out.push_back("-I" + (A.empty() && Next ? ClangArgs[++I] : A.str()));
    else if (A.consume_front("-D"))
      Out.push_back("-D" + (A.empty() && Next ? ClangArgs[++I] : A.str()));
    else if (A == "-isystem" && Next)
      Out.push_back("-I" + ClangArgs[++I]);
    else if (A.starts_with("-std="))
      Out.push_back(A.str());
  }
  return Out;
}

ScratchDir::~ScratchDir() {
  if (!Keep && !Path.empty())
    sys::fs::remove_directories(Path);
}

Expected<std::string> ScratchDir::make(StringRef UserPath, StringRef Prefix) {
  if (!UserPath.empty()) {
    Path = UserPath.str();
    Keep = true;
    return Path;
  }
  SmallString<128> P;
  if (auto EC = sys::fs::createUniqueDirectory(Prefix, P))
    return makeError("cannot create a working directory: {0}", EC.message());
  Path = P.str().str();
  Keep = false;
  return Path;
}

} // namespace forge::tool

forge::tool::LocalGpu forge::tool::findLocalGpu(llvm::StringRef WorkerOpt, const char *Argv0,
                                                llvm::StringRef Consequence) {
  LocalGpu G;
  auto W = measure::findWorker(WorkerOpt, executableDir(Argv0));
  if (!W) {
    llvm::WithColor::warning(llvm::errs(), "forge-port")
        << llvm::toString(W.takeError()) << "; " << Consequence << "\n";
    return G;
  }
  auto Info = measure::queryGpu(*W);
  if (!Info) {
    llvm::WithColor::warning(llvm::errs(), "forge-port")
        << llvm::toString(Info.takeError()) << "; " << Consequence << "\n";
    return G;
  }
  return {*W, Info->Target, Info->Name};
}
