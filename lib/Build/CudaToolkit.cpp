//===- Build/CudaToolkit.cpp ----------------------------------------------===//
#include "forge/Build/CudaToolkit.h"
#include "forge/Config.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Json.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <mutex>

using namespace llvm;

namespace forge::build {

std::string parseNvccVersion(StringRef Out) {
  // "Cuda compilation tools, release 13.0, V13.0.88"
  size_t V = Out.find(", V");
  if (V != StringRef::npos) {
    StringRef Ver = Out.drop_front(V + 3);
    Ver = Ver.take_while([](char C) { return isdigit(C) || C == '.'; });
    if (!Ver.empty())
      return Ver.str();
  }
  size_t R = Out.find("release ");
  if (R != StringRef::npos) {
    StringRef Ver = Out.drop_front(R + 8);
    Ver = Ver.take_while([](char C) { return isdigit(C) || C == '.'; });
    if (!Ver.empty())
      return Ver.str();
  }
  return "";
}

/// <root>/version.json: {"cuda_nvcc": {"version": "13.0.88"}, ...}.
static std::string versionFromJson(StringRef Root) {
  SmallString<256> Path(Root);
  sys::path::append(Path, "version.json");
  if (!sys::fs::exists(Path))
    return "";
  auto J = readJsonFile(Path);
  if (!J) {
    consumeError(J.takeError());
    return "";
  }
  for (const char *Key : {"cuda_nvcc", "cuda"}) {
    auto It = J->find(Key);
    if (It != J->end() && It->is_object()) {
      auto V = It->find("version");
      if (V != It->end() && V->is_string())
        return V->get<std::string>();
    }
  }
  return "";
}

/// Running nvcc costs ~20 ms; do it once per binary and process.
static Expected<std::string> cachedVersion(StringRef Nvcc, StringRef Root) {
  static std::mutex Lock;
  static StringMap<std::string> Versions;
  {
    std::lock_guard<std::mutex> G(Lock);
    auto It = Versions.find(Nvcc);
    if (It != Versions.end())
      return It->second;
  }
  std::string Version;
  // nvcc needs no secret to say its version (a --cuda-path may name any
  // program, and `forge-port new --llm` holds a model's key).
  SubprocessOptions SO;
  SO.TimeoutSeconds = 60;
  SO.ScrubSecrets = true;
  auto R = runProgram(Nvcc, {Nvcc.str(), "--version"}, SO);
  if (!R)
    return R.takeError();
  if (R->ok())
    Version = parseNvccVersion(R->Stdout + R->Stderr);
  if (Version.empty())
    Version = versionFromJson(Root);
  if (Version.empty())
    return makeError("cannot read the CUDA version from '{0} --version'{1}",
                     Nvcc,
                     R->ok() ? "" : " (it exited with " +
                                        std::to_string(R->ExitCode) + ")");
  std::lock_guard<std::mutex> G(Lock);
  Versions[Nvcc] = Version;
  return Version;
}

Expected<CudaToolkit> CudaToolkit::fromNvcc(StringRef NvccPath) {
  if (!sys::fs::can_execute(NvccPath))
    return makeError("'{0}' is not an executable nvcc", NvccPath);
  CudaToolkit TK;
  SmallString<256> Abs(NvccPath);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  TK.NvccPath = Abs.str().str();
  TK.Root = sys::path::parent_path(sys::path::parent_path(Abs)).str();
  auto V = cachedVersion(TK.NvccPath, TK.Root);
  if (!V)
    return V.takeError();
  TK.Version = *V;
  StringRef Rest = TK.Version;
  StringRef Major, Minor;
  std::tie(Major, Rest) = Rest.split('.');
  Minor = Rest.split('.').first;
  Major.getAsInteger(10, TK.Major);
  Minor.getAsInteger(10, TK.Minor);
  return TK;
}

static std::string nvccIn(StringRef Root) {
  SmallString<256> P(Root);
  sys::path::append(P, "bin", "nvcc");
  return P.str().str();
}

Expected<CudaToolkit> CudaToolkit::find(StringRef Explicit) {
  if (!Explicit.empty()) {
    if (sys::fs::is_directory(Explicit)) {
      std::string N = nvccIn(Explicit);
      if (!sys::fs::can_execute(N))
        return makeError("no nvcc in the CUDA toolkit '{0}' (looked for {1})",
                         Explicit, N);
      return fromNvcc(N);
    }
    return fromNvcc(Explicit);
  }
  std::vector<std::string> Tried;
  std::vector<std::string> Roots;
  if (std::optional<std::string> Env = sys::Process::GetEnv("CUDA_PATH"))
    if (!Env->empty())
      Roots.push_back(*Env);
  if (StringRef(FORGE_DEFAULT_CUDA_PATH).size())
    Roots.push_back(FORGE_DEFAULT_CUDA_PATH);
  Roots.push_back("/usr/local/cuda");
  for (const std::string &Root : Roots) {
    std::string N = nvccIn(Root);
    if (sys::fs::can_execute(N))
      return fromNvcc(N);
    Tried.push_back(N);
  }
  if (std::optional<std::string> N = findProgram("nvcc"))
    return fromNvcc(*N);
  Tried.push_back("nvcc on PATH");
  std::string List;
  for (const std::string &T : Tried)
    List += (List.empty() ? "" : ", ") + T;
  return makeError("nvcc was not found (tried {0}); pass the CUDA toolkit path "
                   "or set CUDA_PATH",
                   List);
}

} // namespace forge::build
