//===- Frontend/CudaInvocation.cpp ----------------------------------------===//
#include "forge/Frontend/CudaInvocation.h"
#include "forge/Frontend/CompileDatabase.h"
#include "forge/Support/Error.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace forge::frontend {

static bool isArchArg(StringRef A) {
  return A.starts_with("--cuda-gpu-arch=") || A.starts_with("--offload-arch=");
}

/// Flags that only mean something to a CUDA compilation.
static bool isCudaOnlyArg(StringRef A) {
  return isArchArg(A) || A.starts_with("--cuda-") || A.starts_with("-fgpu-") ||
         A.starts_with("-fcuda-") || A.starts_with("-Xcuda-") || A.starts_with("--offload") ||
         A == "-nocudainc" || A == "-nocudalib";
}

/// A -std= value that names a C standard (c99, gnu11, iso9899:1999), not
/// a C++ one.
static bool isCStandard(StringRef Std) {
  return !Std.contains("++") &&
         (Std.starts_with("c") || Std.starts_with("gnu") || Std.starts_with("iso9899"));
}

/// The host compiler's view of a unit nvcc does not compile as CUDA: what
/// nvcc -dryrun shows it passing to gcc for a .cpp (CUDA 13.0), '-x c++',
/// or for a .c, '-x c': C, in the host compiler's default standard unless
/// the flags name a C one.
static std::vector<std::string> hostCompilerCommand(const Toolchain &TC, const ParseOptions &Opts,
                                                    StringRef File) {
  bool C = isCSourceName(File);
  std::vector<std::string> Cmd = {C ? "clang" : "clang++", "-x", C ? "c" : "c++",
                                  "-fsyntax-only", "-D__NVCC__"};
  if (TC.hasCuda()) {
    // nvcc gives gcc the toolkit's directory with -I; as a system one here,
    // so that the passes leave its headers alone, as they do in CUDA mode.
    Cmd.push_back("-isystem");
    Cmd.push_back(TC.CudaPath + "/include");
    Cmd.push_back("-isystem");
    Cmd.push_back(TC.CudaPath + "/include/cccl");
  }
  if (TC.CudaVersion > 0) {
    Cmd.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(TC.CudaVersion / 1000));
    Cmd.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(TC.CudaVersion % 1000 / 10));
    Cmd.push_back("-D__CUDA_API_VER_MAJOR__=" + std::to_string(TC.CudaVersion / 1000));
    Cmd.push_back("-D__CUDA_API_VER_MINOR__=" + std::to_string(TC.CudaVersion % 1000 / 10));
  }
  Cmd.push_back("-resource-dir=" + TC.ResourceDir);
  Cmd.push_back("-ferror-limit=0");
  Cmd.push_back("-fno-color-diagnostics");
  if (Opts.NvccCompat) {
    Cmd.push_back("-Wno-reserved-user-defined-literal");
    if (!TC.OmpHeader.empty()) {
      Cmd.push_back("-idirafter");
      Cmd.push_back(std::string(PreludeDir) + "/" + OmpDir);
    }
  }
  for (const std::string &A : Opts.ExtraArgs) {
    if (isCudaOnlyArg(A))
      continue;
    // nvcc's -std names a C++ standard, which it does not give gcc for a .c
    // (nvcc -dryrun); a C one (-Xcompiler -std=c99) reaches it. Each is an
    // error to Clang in the other language.
    StringRef Std(A);
    if (Std.consume_front("-std=") && isCStandard(Std) != C)
      continue;
    Cmd.push_back(A);
  }
  Cmd.push_back(File.str());
  return Cmd;
}

std::vector<std::string> buildClangCommand(const Toolchain &TC, const ParseOptions &Opts,
                                           StringRef File, Side S) {
  if (S == Side::Host && Opts.HostCompiler)
    return hostCompilerCommand(TC, Opts, File);
  std::vector<std::string> Cmd = {"clang++", "-x", "cuda", "-fsyntax-only"};
  Cmd.push_back(S == Side::Host ? "--cuda-host-only" : "--cuda-device-only");
  // Clang 22 has no family ('f') targets and does not define nvcc's
  // __CUDA_ARCH_SPECIFIC__/__CUDA_ARCH_FAMILY_SPECIFIC__: parse an 'f'
  // target as the 'a' one, and set the macros as nvcc 13 does (checked with
  // nvcc -E): 'a' defines both plus __CUDA_ARCH_FEAT_SMxx_ALL, 'f' only the
  // family one.
  const arch::TargetInfo &T = Opts.target();
  bool Family = T.Variant == arch::ArchVariant::FamilySpecific;
  bool Specific = T.Variant == arch::ArchVariant::ArchSpecific;
  std::string Num = std::to_string(T.ccNumber());
  Cmd.push_back("--cuda-gpu-arch=" + (Family ? "sm_" + Num + "a" : std::string(T.Name)));
  if (S == Side::Device && Family) {
    Cmd.push_back("-U__CUDA_ARCH_SPECIFIC__");
    Cmd.push_back("-U__CUDA_ARCH_FEAT_SM" + Num + "_ALL");
    Cmd.push_back("-D__CUDA_ARCH_FAMILY_SPECIFIC__=" + T.archMacroValue());
  } else if (S == Side::Device && Specific) {
    Cmd.push_back("-D__CUDA_ARCH_SPECIFIC__=" + T.archMacroValue());
    Cmd.push_back("-D__CUDA_ARCH_FAMILY_SPECIFIC__=" + T.archMacroValue());
  }
  if (TC.hasCuda()) {
    Cmd.push_back("--cuda-path=" + TC.CudaPath);
    // CUDA 13 moved CUB, Thrust and libcu++ here.
    Cmd.push_back("-isystem");
    Cmd.push_back(TC.CudaPath + "/include/cccl");
  }
  Cmd.push_back("-resource-dir=" + TC.ResourceDir);
  Cmd.push_back("-Wno-unknown-cuda-version");
  Cmd.push_back("-ferror-limit=0");
  Cmd.push_back("-fno-color-diagnostics");
  // Device-side launches (dynamic parallelism) appear in the AST only with
  // relocatable device code; the host side checks kernel bodies too.
  Cmd.push_back("-fgpu-rdc");
  if (Opts.NvccCompat) {
    // `"%d\t"FMT` with FMT a macro: nvcc warns (literal-suffix) and expands
    // the macro; Clang's default is an error (a reserved user-defined
    // literal suffix). Off, Clang lexes the identifier apart, as nvcc does.
    Cmd.push_back("-Wno-reserved-user-defined-literal");
    Cmd.push_back("-isystem");
    Cmd.push_back(PreludeDir);
    Cmd.push_back("-include");
    Cmd.push_back(PreludeName);
    // <omp.h> where Clang has none (parseCuda maps TC.OmpHeader there).
    if (!TC.OmpHeader.empty()) {
      Cmd.push_back("-idirafter");
      Cmd.push_back(std::string(PreludeDir) + "/" + OmpDir);
    }
  }
  for (const std::string &A : Opts.ExtraArgs) {
    // The target of this parse is chosen above; archs in the user's flags
    // only pick the default.
    if (isArchArg(A))
      continue;
    // -Xcompiler -fopenmp reaches nvcc's host compiler only, never the
    // device side.
    if (S == Side::Device && (A == "-fopenmp" || StringRef(A).starts_with("-fopenmp=")))
      continue;
    Cmd.push_back(A);
  }
  Cmd.push_back(File.str());
  return Cmd;
}

namespace {
/// How an nvcc option is handled.
enum class NvccOpt {
  Keep,          // same spelling in Clang
  KeepWithValue, // "-I dir" style: keep both
  Drop,          // no effect on parsing
  DropWithValue, // drop the option and its separate value
  Arch,          // -arch / --gpu-architecture
  Gencode,       // -gencode arch=...,code=...
  Xcompiler,     // pass host-compiler flags that matter for parsing
  Rdc,           // -rdc=true
  Std,           // -std=c++17 / --std c++17
  Source,
};
} // namespace

static NvccOpt classify(StringRef A) {
  if (!A.starts_with("-"))
    return NvccOpt::Source;
  if (A.starts_with("-I") || A.starts_with("-D") || A.starts_with("-U") ||
      A.starts_with("-isystem") || A.starts_with("-include") ||
      A.starts_with("-iquote"))
    return A.size() == 2 || A == "-isystem" || A == "-include" || A == "-iquote"
               ? NvccOpt::KeepWithValue
               : NvccOpt::Keep;
  if (A.starts_with("--include-path") || A.starts_with("--define-macro") ||
      A.starts_with("--system-include") || A.starts_with("--pre-include"))
    return NvccOpt::KeepWithValue; // translated below
  if (A == "-arch" || A == "--gpu-architecture" || A.starts_with("-arch=") ||
      A.starts_with("--gpu-architecture="))
    return NvccOpt::Arch;
  if (A == "-gencode" || A == "--generate-code" || A.starts_with("-gencode=") ||
      A.starts_with("--generate-code="))
    return NvccOpt::Gencode;
  if (A == "-Xcompiler" || A == "--compiler-options" || A.starts_with("-Xcompiler=") ||
      A.starts_with("--compiler-options="))
    return NvccOpt::Xcompiler;
  if (A.starts_with("-rdc") || A.starts_with("--relocatable-device-code") || A == "-dc")
    return NvccOpt::Rdc;
  if (A.starts_with("-std") || A.starts_with("--std"))
    return NvccOpt::Std;
  if (A.starts_with("--cuda-gpu-arch=") || A.starts_with("--offload-arch="))
    return NvccOpt::Arch;
  return StringSwitch<NvccOpt>(A)
      .Cases({"-o", "-ccbin", "--compiler-bindir", "-Xptxas", "--ptxas-options",
              "-Xlinker", "--linker-options", "-Xnvlink", "-Xcudafe", "-MF", "-MT",
              "-MQ", "-x", "--x", "-maxrregcount", "--maxrregcount",
              "--default-stream", "-t", "--threads", "-code", "--gpu-code",
              "-Xarchive", "-Xfatbin", "--diag-suppress", "-diag-suppress",
              "--output-file", "-odir", "--output-directory", "-l", "-L",
              "--library", "--library-path"},
             NvccOpt::DropWithValue)
      .Default(NvccOpt::Drop);
}

/// "-gencode arch=compute_90a,code=sm_90a" or code=[sm_80,sm_90] -> sm_* list.
static void archsFromGencode(StringRef Spec, std::vector<std::string> &Archs) {
  SmallVector<StringRef, 4> Parts;
  Spec.split(Parts, ',');
  std::string Arch;
  for (StringRef P : Parts) {
    P = P.trim().trim("[]\"'");
    if (P.consume_front("arch="))
      Arch = P.str();
    else if (P.consume_front("code="))
      P = P.trim("[]\"'");
    if (P.starts_with("sm_") && !is_contained(Archs, P.str()))
      Archs.push_back(P.str());
  }
  if (Archs.empty() && StringRef(Arch).starts_with("compute_"))
    Archs.push_back("sm_" + StringRef(Arch).drop_front(8).str());
}

static void archsFromArchFlag(StringRef V, std::vector<std::string> &Archs) {
  SmallVector<StringRef, 4> Parts;
  V.split(Parts, ',');
  for (StringRef P : Parts) {
    P = P.trim();
    if (P == "native" || P == "all" || P == "all-major")
      continue;
    // compute_90 and sm_90 both name sm_90.
    if (!P.consume_front("compute_"))
      P.consume_front("sm_");
    std::string A = "sm_" + P.str();
    if (!P.empty() && !is_contained(Archs, A))
      Archs.push_back(A);
  }
}

/// nvcc flags without a Clang counterpart that change what nvcc accepts
/// (__device__ lambdas, constexpr host functions called from device code)
/// or generates (fast math): validation passes them on.
static bool isNvccLanguageFlag(StringRef A) {
  StringRef Name = A.split('=').first;
  Name = Name.ltrim('-');
  return StringSwitch<bool>(Name)
      .Cases({"extended-lambda", "expt-extended-lambda", "expt-relaxed-constexpr",
              "use_fast_math", "ftz", "prec-div", "prec-sqrt", "fmad"},
             true)
      .Default(false);
}

TranslatedFlags translateNvccFlags(ArrayRef<std::string> Args) {
  TranslatedFlags R;
  auto ValueOf = [&](size_t &I, StringRef A) -> std::string {
    size_t Eq = A.find('=');
    if (Eq != StringRef::npos)
      return A.substr(Eq + 1).str();
    if (I + 1 < Args.size())
      return Args[++I];
    return "";
  };
  for (size_t I = 1; I < Args.size(); ++I) {
    StringRef A = Args[I];
    switch (classify(A)) {
    case NvccOpt::Source:
      break;
    case NvccOpt::Keep:
      R.ClangArgs.push_back(A.str());
      break;
    case NvccOpt::KeepWithValue: {
      std::string Flag = A.str();
      if (A.starts_with("--include-path"))
        Flag = "-I";
      else if (A.starts_with("--define-macro"))
        Flag = "-D";
      else if (A.starts_with("--system-include"))
        Flag = "-isystem";
      else if (A.starts_with("--pre-include"))
        Flag = "-include";
      size_t Eq = A.find('=');
      std::string V = Eq != StringRef::npos ? A.substr(Eq + 1).str()
                      : I + 1 < Args.size() ? Args[++I]
                                            : "";
      if (Flag == "-I" || Flag == "-D" || Flag == "-U")
        R.ClangArgs.push_back(Flag + V);
      else {
        R.ClangArgs.push_back(Flag);
        R.ClangArgs.push_back(V);
      }
      break;
    }
    case NvccOpt::Arch:
      if (A.starts_with("--cuda-gpu-arch=") || A.starts_with("--offload-arch="))
        archsFromArchFlag(A.split('=').second, R.Archs);
      else
        archsFromArchFlag(ValueOf(I, A), R.Archs);
      break;
    case NvccOpt::Gencode:
      archsFromGencode(ValueOf(I, A), R.Archs);
      break;
    case NvccOpt::Xcompiler: {
      SmallVector<StringRef, 8> Parts;
      std::string V = ValueOf(I, A);
      StringRef(V).split(Parts, ',', -1, false);
      for (StringRef P : Parts) {
        P = P.trim().trim("\"'");
        if (P.starts_with("-D") || P.starts_with("-U") || P.starts_with("-I") ||
            P.starts_with("-std=") || P.starts_with("-f"))
          R.ClangArgs.push_back(P.str());
        else
          R.Ignored.push_back(("-Xcompiler " + P).str());
      }
      break;
    }
    case NvccOpt::Rdc: {
      StringRef V = A.contains('=') ? A.split('=').second : "true";
      if (A == "-dc" || V == "true" || V == "1")
        R.RelocatableDeviceCode = true;
      break;
    }
    case NvccOpt::Std: {
      std::string V = A.contains('=') ? A.split('=').second.str()
                      : A.size() > 4 && A.starts_with("-std") ? A.drop_front(4).str()
                                                              : ValueOf(I, A);
      R.ClangArgs.push_back("-std=" + V);
      break;
    }
    case NvccOpt::DropWithValue:
      R.Ignored.push_back(A.str());
      if (!A.contains('=') && I + 1 < Args.size())
        R.Ignored.push_back(Args[++I]);
      break;
    case NvccOpt::Drop:
      R.Ignored.push_back(A.str());
      if (isNvccLanguageFlag(A))
        R.NvccArgs.push_back(A.str());
      break;
    }
  }
  if (R.RelocatableDeviceCode)
    R.ClangArgs.push_back("-fgpu-rdc");
  return R;
}

/// nvcc's response files: '--options-file F[,G]' / '-optf F' (CMake writes
/// its CUDA include flags to 'includes_CUDA.rsp' this way), read relative to
/// the entry's directory and spliced in place. A file that cannot be read is
/// left to nvcc (the option is dropped, as before).
static std::vector<std::string> expandOptionsFiles(ArrayRef<std::string> Args, StringRef Dir) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    std::string V;
    if (A == "--options-file" || A == "-optf") {
      if (I + 1 == Args.size())
        break;
      V = Args[++I];
    } else if (A.starts_with("--options-file=") || A.starts_with("-optf=")) {
      V = A.split('=').second.str();
    } else {
      Out.push_back(A.str());
      continue;
    }
    SmallVector<StringRef, 2> Files;
    StringRef(V).split(Files, ',', -1, false);
    for (StringRef F : Files) {
      SmallString<256> P(F);
      if (!sys::path::is_absolute(P)) {
        P = Dir;
        sys::path::append(P, F);
      }
      auto Buf = MemoryBuffer::getFile(P);
      if (!Buf)
        continue;
      BumpPtrAllocator Alloc;
      StringSaver Saver(Alloc);
      SmallVector<const char *, 16> Toks;
      cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Toks);
      for (const char *T : Toks)
        Out.push_back(T);
    }
  }
  return Out;
}

TranslatedFlags translateCompileCommand(ArrayRef<std::string> CommandLine,
                                        StringRef Directory) {
  TranslatedFlags R = translateNvccFlags(expandOptionsFiles(CommandLine, Directory));
  // Relative -I paths are relative to the entry's directory.
  for (std::string &A : R.ClangArgs) {
    if (StringRef(A).starts_with("-I") && A.size() > 2 &&
        !sys::path::is_absolute(StringRef(A).drop_front(2))) {
      SmallString<256> P(Directory);
      sys::path::append(P, StringRef(A).drop_front(2));
      A = "-I" + P.str().str();
    }
  }
  return R;
}

Expected<TranslatedFlags> flagsFromCompilationDatabase(StringRef BuildDir, StringRef File) {
  auto DB = CompileDatabase::load(BuildDir);
  if (!DB)
    return DB.takeError();
  return (*DB)->flagsOf(File);
}

Expected<ParseOptions> makeParseOptions(StringRef File, StringRef BuildDir,
                                        const arch::TargetInfo *Target,
                                        ArrayRef<std::string> ExtraArgs) {
  if (BuildDir.empty())
    return makeParseOptions(File, static_cast<const CompileDatabase *>(nullptr), Target,
                            ExtraArgs);
  auto DB = CompileDatabase::load(BuildDir);
  if (!DB)
    return DB.takeError();
  return makeParseOptions(File, DB->get(), Target, ExtraArgs);
}

Expected<ParseOptions> makeParseOptions(StringRef File, const CompileDatabase *DB,
                                        const arch::TargetInfo *Target,
                                        ArrayRef<std::string> ExtraArgs) {
  ParseOptions Opts;
  std::string FlagArch;
  std::vector<std::string> Command;
  if (DB) {
    auto Flags = DB->flagsOf(File);
    if (!Flags)
      return Flags.takeError();
    Opts.ExtraArgs = Flags->ClangArgs;
    Opts.NvccArgs = Flags->NvccArgs;
    if (!Flags->Archs.empty())
      FlagArch = Flags->Archs.front();
    if (auto Args = DB->argumentsOf(File))
      Command = std::move(*Args);
    else
      consumeError(Args.takeError()); // flagsOf found the entry
  }
  // A .c that nvcc hands to the host compiler is C whoever reads it (port
  // and list decide the same for every host unit).
  Opts.HostCompiler = isCUnit(File, Command, ExtraArgs);
  Opts.ExtraArgs.insert(Opts.ExtraArgs.end(), ExtraArgs.begin(), ExtraArgs.end());
  if (FlagArch.empty())
    for (const std::string &A : Opts.ExtraArgs)
      if (isArchArg(A)) {
        FlagArch = StringRef(A).split('=').second.str();
        break;
      }
  if (Target) {
    Opts.Target = Target;
  } else if (!FlagArch.empty()) {
    auto T = arch::lookupTarget(FlagArch);
    if (!T)
      return T.takeError();
    Opts.Target = &*T;
  }
  return Opts;
}

std::vector<std::string> nvccFlagsFromClangArgs(ArrayRef<std::string> ClangArgs) {
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
    else if (A.starts_with("-std=") && isCStandard(A.drop_front(5))) {
      // nvcc's -std takes C++ standards only ('c11' is not defined for
      // option 'std'); a C unit's standard is its host compiler's flag.
      Out.push_back("-Xcompiler");
      Out.push_back(A.str());
    } else if (A.starts_with("-std="))
      Out.push_back(A.str());
    else if (A == "-fopenmp" || A.starts_with("-fopenmp=")) {
      Out.push_back("-Xcompiler");
      Out.push_back("-fopenmp");
    } else if (A == "-fgpu-rdc") {
      // Relocatable device code (-rdc=true, -dc): a kernel that launches
      // kernels (dynamic parallelism) compiles only so.
      Out.push_back("-rdc=true");
    }
  }
  return Out;
}

} // namespace forge::frontend
