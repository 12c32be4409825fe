//===- Frontend/Toolchain.cpp ---------------------------------------------===//
#include "forge/Frontend/Toolchain.h"
#include "forge/Config.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Subprocess.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace forge::frontend {

static bool isCudaRoot(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, "include", "cuda_runtime.h");
  return !Dir.empty() && sys::fs::exists(P);
}

static bool isResourceDir(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, "include", "__clang_cuda_runtime_wrapper.h");
  return sys::fs::exists(P);
}

std::string resourceDirBeside(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, "..", "lib", "clang", FORGE_CLANG_VERSION_MAJOR);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

/// GCC's omp.h of the newest GCC under /usr/lib/gcc/<triple>/<version>.
static std::string hostGccOmpHeader() {
  std::string Best;
  unsigned BestVersion = 0;
  std::error_code EC;
  for (sys::fs::directory_iterator T("/usr/lib/gcc", EC), End; !EC && T != End;
       T.increment(EC)) {
    std::error_code EC2;
    for (sys::fs::directory_iterator V(T->path(), EC2); !EC2 && V != End; V.increment(EC2)) {
      unsigned Version = 0;
      if (sys::path::filename(V->path()).split('.').first.getAsInteger(10, Version))
        continue;
      SmallString<256> H(V->path());
      sys::path::append(H, "include", "omp.h");
      if (Version > BestVersion && sys::fs::exists(H)) {
        BestVersion = Version;
        Best = H.str().str();
      }
    }
  }
  return Best;
}

/// CUDA_VERSION as the toolkit's include/cuda.h defines it, or 0.
static int cudaVersionOf(StringRef Root) {
  SmallString<256> Header(Root);
  sys::path::append(Header, "include", "cuda.h");
  auto Buf = MemoryBuffer::getFile(Header);
  if (!Buf)
    return 0;
  StringRef Text = (*Buf)->getBuffer();
  StringRef Key = "#define CUDA_VERSION ";
  size_t At = Text.find(Key);
  if (At == StringRef::npos)
    return 0;
  int V = 0;
  if (Text.substr(At + Key.size()).ltrim().consumeInteger(10, V))
    return 0;
  return V;
}

Toolchain Toolchain::detect(const char *Argv0, StringRef CudaOverride) {
  Toolchain TC;
  std::string ExeDir = Argv0 ? executableDir(Argv0) : std::string();
  std::string Beside = ExeDir.empty() ? std::string() : resourceDirBeside(ExeDir);
  if (!Beside.empty() && isResourceDir(Beside))
    TC.ResourceDir = Beside;
  else
    TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;

  SmallString<256> OwnOmp(TC.ResourceDir);
  sys::path::append(OwnOmp, "include", "omp.h");
  if (!sys::fs::exists(OwnOmp))
    TC.OmpHeader = hostGccOmpHeader();

  std::vector<std::string> Candidates;
  if (!CudaOverride.empty())
    Candidates.push_back(CudaOverride.str());
  if (auto Env = sys::Process::GetEnv("CUDA_PATH"))
    Candidates.push_back(*Env);
  Candidates.push_back(FORGE_DEFAULT_CUDA_PATH);
  Candidates.push_back("/usr/local/cuda");
  if (auto Nvcc = findProgram("nvcc")) {
    SmallString<256> Real;
    if (!sys::fs::real_path(*Nvcc, Real))
      Candidates.push_back(sys::path::parent_path(sys::path::parent_path(Real)).str());
  }
  for (const std::string &C : Candidates) {
    if (isCudaRoot(C)) {
      TC.CudaPath = C;
      TC.CudaVersion = cudaVersionOf(C);
      break;
    }
    if (!CudaOverride.empty() && C == CudaOverride)
      break; // An explicit path that is not a toolkit is not silently replaced.
  }
  return TC;
}

} // namespace forge::frontend
