// Writing tuned values back into CUDA sources (Tune/WriteBack.h): the
// sources are parsed with Clang against the mock CUDA headers, and the
// rewritten text is checked exactly; one test compiles the results with nvcc.
#include "forge/Tune/WriteBack.h"
#include "forge/Config.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelIndex.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::tune;

namespace {

/// A source file on disk (the index reads files), its index, and the
/// contents provider that hands its text to the write-back.
struct Source {
  std::string Path, Code;
  frontend::FileIndex Index;

  patch::ContentsProvider contents() const {
    return [this](llvm::StringRef F) -> llvm::Expected<std::string> {
      if (F == Path)
        return Code;
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "unexpected file %s",
                                     F.str().c_str());
    };
  }
  /// The text after applying P.
  std::string apply(const patch::PatchSet &P) const {
    auto Out = P.applyTo(Path, Code);
    EXPECT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
    return Out ? *Out : "";
  }
};

std::unique_ptr<Source> parse(const std::string &Code) {
  auto S = std::make_unique<Source>();
  S->Code = Code;
  llvm::SmallString<128> Path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("writeback", "cu", Path));
  S->Path = Path.str().str();
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(S->Path, EC);
    OS << Code;
  }
  frontend::Toolchain TC;
  TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
  frontend::ParseOptions Opts;
  Opts.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                    "-include", "cuda_runtime.h"};
  frontend::ParseDiagnostics Diags(&llvm::errs());
  auto Index = frontend::buildKernelIndex(TC, Opts, S->Path, Diags);
  llvm::sys::fs::remove(S->Path);
  EXPECT_TRUE(bool(Index)) << llvm::toString(Index.takeError());
  if (Index)
    S->Index = std::move(*Index);
  EXPECT_EQ(S->Index.Errors, 0u);
  return S;
}

std::vector<TunableBinding> bindNames(const Source &S, llvm::StringRef Kernel,
                                 std::vector<std::string> Names) {
  auto B = bindTunables(S.Index, Kernel, Names, S.contents());
  EXPECT_TRUE(bool(B)) << llvm::toString(B.takeError());
  return B ? *B : std::vector<TunableBinding>();
}

std::string single(const Source &S, llvm::StringRef Kernel, std::vector<std::string> Names,
                   const std::map<std::string, int64_t> &Values) {
  std::vector<TunableBinding> B = bindNames(S, Kernel, Names);
  auto P = writeBackEdits(S.Index, B, Values, S.contents());
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return P ? S.apply(*P) : "";
}

const forge::arch::TargetInfo &target(llvm::StringRef Name) {
  return llvm::cantFail(forge::arch::lookupTarget(Name));
}

std::string errorOf(llvm::Error E) {
  EXPECT_TRUE(bool(E)) << "expected an error";
  return llvm::toString(std::move(E));
}

/// Three targets, the middle one measured.
std::vector<TargetValues> threeTargets(std::map<std::string, int64_t> V80,
                                       std::map<std::string, int64_t> V90,
                                       std::map<std::string, int64_t> V100) {
  return {{&target("sm_80"), V80, false, ""}, {&target("sm_90"), V90, true, "NVIDIA H200"},
          {&target("sm_100"), V100, false, ""}};
}

//===----------------------------------------------------------------------===//
// Binding
//===----------------------------------------------------------------------===//

TEST(WriteBackBind, TemplateArgsAtEveryLaunch) {
  auto S = parse(R"(template <typename T, int TILE>
__global__ void k(const T *x, T *y, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void run(const float *x, float *y, int n, cudaStream_t s) {
  k<float, 16><<<n / 16, 128>>>(x, y, n);
  if (n > 4096)
    k<float, /* tile */ 16><<<n / 16, 128, 0, s>>>(x, y, n);
}
)");
  auto B = bindNames(*S, "k", {"TILE"});
  ASSERT_EQ(B.size(), 1u);
  EXPECT_EQ(B[0].Origin, "template");
  EXPECT_EQ(B[0].Symbol, "TILE");
  EXPECT_EQ(B[0].Current, 16);
  ASSERT_EQ(B[0].Sites.size(), 2u);
  EXPECT_EQ(B[0].Sites[0].Line, 8u);
  EXPECT_EQ(B[0].Sites[1].Line, 10u);
  EXPECT_EQ(single(*S, "k", {"TILE"}, {{"TILE", 32}}),
            R"(template <typename T, int TILE>
__global__ void k(const T *x, T *y, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void run(const float *x, float *y, int n, cudaStream_t s) {
  k<float, 32><<<n / 16, 128>>>(x, y, n);
  if (n > 4096)
    k<float, /* tile */ 32><<<n / 16, 128, 0, s>>>(x, y, n);
}
)");
  // The index's own name binds the same way.
  auto ByIndexName = bindNames(*S, "k", {"k::TILE"});
  ASSERT_EQ(ByIndexName.size(), 1u);
  EXPECT_EQ(ByIndexName[0].Sites.size(), 2u);
}

TEST(WriteBackBind, TemplateDefaultWhereALaunchOmitsIt) {
  auto S = parse(R"(template <int ITEMS = 4>
__global__ void k(float *y) { y[threadIdx.x] = ITEMS; }

void run(float *y) {
  k<<<1, 32>>>(y);
  k<8><<<1, 32>>>(y);
}
)");
  EXPECT_EQ(single(*S, "k", {"ITEMS"}, {{"ITEMS", 2}}),
            R"(template <int ITEMS = 2>
__global__ void k(float *y) { y[threadIdx.x] = ITEMS; }

void run(float *y) {
  k<<<1, 32>>>(y);
  k<2><<<1, 32>>>(y);
}
)");
}

TEST(WriteBackBind, MacroConstexprLiteralBlockAndUnroll) {
  auto S = parse(R"(#define ITEMS 4u
#define GRID_CAP 1024
constexpr int kThreads = 128;

__global__ void scale(float *y, int n) {
#pragma unroll 4
  for (int j = 0; j < ITEMS; ++j) {
    int i = (blockIdx.x * ITEMS + j) * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= 2.0f;
  }
}

__global__ void add(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}

void run(float *y, int n) {
  scale<<<(n + kThreads * ITEMS - 1) / (kThreads * ITEMS), kThreads>>>(y, n);
  add<<<(n + 255) / 256, 256>>>(y, n);
}
)");
  // ITEMS is only read inside the kernel and the grid: found in the text.
  auto B = bindNames(*S, "scale", {"ITEMS", "kThreads", "UNROLL"});
  ASSERT_EQ(B.size(), 3u);
  EXPECT_EQ(B[0].Origin, "macro");
  EXPECT_EQ(B[0].Current, 4);
  EXPECT_EQ(B[1].Origin, "constexpr");
  EXPECT_EQ(B[2].Origin, "unroll");
  EXPECT_EQ(single(*S, "scale", {"ITEMS", "kThreads", "UNROLL"},
                   {{"ITEMS", 8}, {"kThreads", 256}, {"UNROLL", 2}}),
            R"(#define ITEMS 8u
#define GRID_CAP 1024
constexpr int kThreads = 256;

__global__ void scale(float *y, int n) {
#pragma unroll 2
  for (int j = 0; j < ITEMS; ++j) {
    int i = (blockIdx.x * ITEMS + j) * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= 2.0f;
  }
}

__global__ void add(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}

void run(float *y, int n) {
  scale<<<(n + kThreads * ITEMS - 1) / (kThreads * ITEMS), kThreads>>>(y, n);
  add<<<(n + 255) / 256, 256>>>(y, n);
}
)");
  // A literal block size: the grid's 255 and 256 follow it.
  auto Add = bindNames(*S, "add", {"BLOCK"});
  ASSERT_EQ(Add.size(), 1u);
  EXPECT_EQ(Add[0].Origin, "launch");
  ASSERT_EQ(Add[0].Sites.size(), 3u);
  EXPECT_EQ(Add[0].Sites[0].Kind, "launch-literal");
  EXPECT_EQ(Add[0].Sites[1].Kind, "grid-literal");
  EXPECT_EQ(Add[0].Sites[1].Delta, -1);
  std::string Out = single(*S, "add", {"BLOCK"}, {{"BLOCK", 512}});
  EXPECT_NE(Out.find("  add<<<(n + 511) / 512, 512>>>(y, n);\n"), std::string::npos) << Out;
  EXPECT_NE(Out.find("scale<<<(n + kThreads * ITEMS - 1)"), std::string::npos);
  // BLOCK through a constant binds to the constant.
  auto ScaleBlock = bindNames(*S, "scale", {"BLOCK"});
  ASSERT_EQ(ScaleBlock.size(), 1u);
  EXPECT_EQ(ScaleBlock[0].Origin, "constexpr");
  EXPECT_EQ(ScaleBlock[0].Symbol, "kThreads");
}

TEST(WriteBackBind, UnbindableNamesAreListed) {
  auto S = parse(R"(#define BLOCK 256
template <typename T, int TILE>
__global__ void k(T *y) {
#pragma unroll 2
  for (int i = 0; i < TILE; ++i) y[i] = 0;
}
void run(float *y) { k<float, 8><<<1, BLOCK>>>(y); }
)");
  auto B = bindTunables(S->Index, "k", {"TILE", "NOPE", "WARPS"}, S->contents());
  std::string Msg = errorOf(B.takeError());
  EXPECT_NE(Msg.find("cannot bind tunables NOPE, WARPS of k"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("template parameters of k: TILE"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("macros: BLOCK"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("UNROLL"), std::string::npos) << Msg;
  // A type parameter cannot take a value; an unknown kernel is named.
  Msg = errorOf(bindTunables(S->Index, "k", {"T"}, S->contents()).takeError());
  EXPECT_NE(Msg.find("T is a type template parameter of k"), std::string::npos) << Msg;
  Msg = errorOf(bindTunables(S->Index, "nope", {"TILE"}, S->contents()).takeError());
  EXPECT_NE(Msg.find("no kernel nope"), std::string::npos) << Msg;
  // A block size beyond a launch bounds that is not tuned with it.
  auto Bounded = parse(R"(__global__ void __launch_bounds__(256) b(float *y) { y[threadIdx.x] = 0; }
void run(float *y) { b<<<4, 256>>>(y); }
)");
  auto BB = bindNames(*Bounded, "b", {"BLOCK"});
  EXPECT_EQ(BB[0].Current, 256);
  Msg = errorOf(writeBackEdits(Bounded->Index, BB, {{"BLOCK", 512}}, Bounded->contents()).takeError());
  EXPECT_NE(Msg.find("BLOCK=512 exceeds __launch_bounds__(256) of b"), std::string::npos) << Msg;
  // Values must match the bindings.
  auto Good = bindNames(*S, "k", {"TILE"});
  Msg = errorOf(writeBackEdits(S->Index, Good, {{"TILES", 4}}, S->contents()).takeError());
  EXPECT_NE(Msg.find("no value for TILE"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("unbound tunable TILES"), std::string::npos) << Msg;
}

//===----------------------------------------------------------------------===//
// Binding through the spec's hints: where the spec puts a tunable (a
// template argument, a block / grid dimension), the launch's argument is
// followed back to the literal that holds its value.
//===----------------------------------------------------------------------===//

/// Options for the spec `template_args: [BLOCK, ITEMS]`, `block: BLOCK`,
/// `grid: ceil_div(N, BLOCK * ITEMS)` with defaults 256 and 4.
BindOptions sumOptions() {
  BindOptions O;
  O.TemplateArgs = {{"BLOCK", {0}}, {"ITEMS", {1}}};
  O.BlockDims = {{"BLOCK", {0}}};
  O.GridFactors = {{0, {"BLOCK", "ITEMS"}}};
  O.Defaults = {{"BLOCK", 256}, {"ITEMS", 4}};
  return O;
}

BindOptions transposeOptions() {
  BindOptions O;
  O.BlockDims = {{"BX", {0}}, {"BY", {1}}};
  O.Defaults = {{"BX", 16}, {"BY", 16}};
  return O;
}

const std::string SumKernel = R"(template <int BT, int IPT>
__global__ void sum(const float *in, float *out, int n) {
  int i = blockIdx.x * BT * IPT + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}
)";

struct HintRow {
  const char *Name;
  std::string Host;       ///< after the kernel
  BindOptions Options;
  std::map<std::string, int64_t> Values;
  std::string Want;       ///< the host part after the write-back
  std::vector<std::string> Notes; ///< substrings, one per note, in order
};

TEST(WriteBackBind, SpecHintsFollowTheLaunchArguments) {
  std::vector<HintRow> Rows = {
      {"constexpr-declarators",
       R"(void run(const float *in, float *out, int n) {
  constexpr int B = 256, I = 4;
  sum<B, I><<<(n + B * I - 1) / (B * I), B>>>(in, out, n);
}
)",
       sumOptions(), {{"BLOCK", 512}, {"ITEMS", 8}},
       R"(void run(const float *in, float *out, int n) {
  constexpr int B = 512, I = 8;
  sum<B, I><<<(n + B * I - 1) / (B * I), B>>>(in, out, n);
}
)",
       {}},
      {"macros-and-product-grid",
       R"(#define T 256
void run(const float *in, float *out, int n) {
  sum<T, 4><<<(n + 1023) / 1024, T>>>(in, out, n);
}
)",
       sumOptions(), {{"BLOCK", 128}, {"ITEMS", 2}},
       R"(#define T 128
void run(const float *in, float *out, int n) {
  sum<T, 2><<<(n + 255) / 256, T>>>(in, out, n);
}
)",
       {}},
      {"enumerators",
       R"(enum { kB = 256, kI = 4 };
void run(const float *in, float *out, int n) {
  sum<kB, kI><<<(n + kB * kI - 1) / (kB * kI), kB>>>(in, out, n);
}
)",
       sumOptions(), {{"BLOCK", 64}, {"ITEMS", 1}},
       R"(enum { kB = 64, kI = 1 };
void run(const float *in, float *out, int n) {
  sum<kB, kI><<<(n + kB * kI - 1) / (kB * kI), kB>>>(in, out, n);
}
)",
       {}},
      {"local-variable-and-derived-grid",
       R"(void run(const float *in, float *out, int n) {
  int threads = 256;
  int blocks = (n + threads * 4 - 1) / (threads * 4);
  sum<256, 4><<<blocks, threads>>>(in, out, n);
}
)",
       sumOptions(), {{"BLOCK", 512}, {"ITEMS", 4}},
       R"(void run(const float *in, float *out, int n) {
  int threads = 512;
  int blocks = (n + threads * 4 - 1) / (threads * 4);
  sum<512, 4><<<blocks, threads>>>(in, out, n);
}
)",
       {}},
      {"shared-constant-gets-its-own",
       R"(constexpr int B = 256;
void other(int n);
void run(const float *in, float *out, int n) {
  sum<B, 4><<<(n + B * 4 - 1) / (B * 4), B>>>(in, out, n);
  other(B);
}
)",
       sumOptions(), {{"BLOCK", 1024}, {"ITEMS", 4}},
       R"(constexpr int B = 256;
constexpr int B_sum = 1024;
void other(int n);
void run(const float *in, float *out, int n) {
  sum<B_sum, 4><<<(n + B_sum * 4 - 1) / (B_sum * 4), B_sum>>>(in, out, n);
  other(B);
}
)",
       {"B is also used at line(s) 10; it is left as it is, and the launch(es) of sum get a "
        "constant of their own, B_sum"}},
      {"same-name-in-other-scopes-is-not-a-use",
       R"(int blocks_for(int n, int threads) { return (n + threads - 1) / threads; }
void run(const float *in, float *out, int n) {
  const int threads = 256;
  sum<threads, 4><<<blocks_for(n, threads * 4), threads>>>(in, out, n);
}
void other() { int threads = 3; (void)threads; }
)",
       sumOptions(), {{"BLOCK", 512}, {"ITEMS", 4}},
       R"(int blocks_for(int n, int threads) { return (n + threads - 1) / threads; }
void run(const float *in, float *out, int n) {
  const int threads = 512;
  sum<threads, 4><<<blocks_for(n, threads * 4), threads>>>(in, out, n);
}
void other() { int threads = 3; (void)threads; }
)",
       {}},
      {"second-launch-left-alone",
       R"(void run(const float *in, float *out, int n) {
  sum<256, 4><<<(n + 1023) / 1024, 256>>>(in, out, n);
  sum<32, 1><<<(n + 31) / 32, 32>>>(in, out, n);
}
)",
       sumOptions(), {{"BLOCK", 128}, {"ITEMS", 8}},
       R"(void run(const float *in, float *out, int n) {
  sum<128, 8><<<(n + 1023) / 1024, 128>>>(in, out, n);
  sum<32, 1><<<(n + 31) / 32, 32>>>(in, out, n);
}
)",
       {"this launch of sum holds BLOCK=32 (the spec's default is 256), ITEMS=1 (the spec's "
        "default is 4); it is not the launch the spec describes and is left alone"}},
  };
  // (In the last row 1024 = 128 * 8 = 256 * 4: the grid stays right.)
  for (HintRow &R : Rows) {
    SCOPED_TRACE(R.Name);
    auto S = parse(SumKernel + R.Host);
    auto B = bindTunables(S->Index, "sum", {"BLOCK", "ITEMS"}, R.Options, S->contents());
    ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
    ASSERT_EQ(B->Notes.size(), R.Notes.size());
    for (size_t I = 0; I < R.Notes.size(); ++I)
      EXPECT_NE(B->Notes[I].find(R.Notes[I]), std::string::npos) << B->Notes[I];
    auto P = writeBackEdits(S->Index, B->Bindings, R.Values, S->contents());
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(S->apply(*P), SumKernel + R.Want);
  }
}

TEST(WriteBackBind, Dim3ExtentsAndTheirGrids) {
  const std::string Kernel = R"(__global__ void tr(const float *in, float *out, int r, int c) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < c && y < r) out[x * r + y] = in[y * c + x];
}
)";
  auto S = parse(Kernel + R"(void a(const float *in, float *out, int r, int c) {
  dim3 block(16, 16);
  dim3 grid((c + 15) / 16, (r + 15) / 16);
  tr<<<grid, block>>>(in, out, r, c);
}
void b(const float *in, float *out, int r, int c) {
  dim3 t{16, 16};
  tr<<<dim3((c + 15) / 16, (r + 15) / 16), t>>>(in, out, r, c);
}
void d(const float *in, float *out, int r, int c) {
  tr<<<dim3((c + 16 - 1) / 16, (r + 16 - 1) / 16), dim3(16, 16)>>>(in, out, r, c);
}
)");
  auto B = bindTunables(S->Index, "tr", {"BX", "BY"}, transposeOptions(), S->contents());
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  auto P = writeBackEdits(S->Index, B->Bindings, {{"BX", 32}, {"BY", 8}}, S->contents());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(S->apply(*P), Kernel + R"(void a(const float *in, float *out, int r, int c) {
  dim3 block(32, 8);
  dim3 grid((c + 31) / 32, (r + 7) / 8);
  tr<<<grid, block>>>(in, out, r, c);
}
void b(const float *in, float *out, int r, int c) {
  dim3 t{32, 8};
  tr<<<dim3((c + 31) / 32, (r + 7) / 8), t>>>(in, out, r, c);
}
void d(const float *in, float *out, int r, int c) {
  tr<<<dim3((c + 32 - 1) / 32, (r + 8 - 1) / 8), dim3(32, 8)>>>(in, out, r, c);
}
)");
  // Without the hints BX and BY bind to nothing.
  std::string E =
      errorOf(bindTunables(S->Index, "tr", {"BX", "BY"}, S->contents()).takeError());
  EXPECT_NE(E.find("cannot bind tunables BX, BY of tr"), std::string::npos) << E;
}

TEST(WriteBackBind, ImpossibleBindingsGiveTheirFixIt) {
  struct Row {
    const char *Name;
    std::string Host;
    BindOptions Options;
    std::string Want;
  };
  BindOptions NoHints;
  NoHints.Defaults = {{"BLOCK", 256}, {"ITEMS", 4}};
  std::vector<Row> Rows = {
      {"run-time-variable",
       R"(void run(const float *in, float *out, int n) {
  int t = 256;
  if (n < 100) t = 32;
  sum<256, 4><<<(n + 1023) / 1024, t>>>(in, out, n);
}
)",
       sumOptions(),
       "cannot write BLOCK, the block x of this launch of sum: `t` is assigned at line 8, so "
       "its value is not known before the run; fix-it: replace 't' in line 9 by 'BLOCK' and "
       "add '#define BLOCK 256' above line 9"},
      {"expression",
       R"(void run(const float *in, float *out, int n) {
  sum<256, 4><<<(n + 1023) / 1024, 2 * 128>>>(in, out, n);
}
)",
       sumOptions(),
       "cannot write BLOCK, the block x of this launch of sum: `2 * 128` is an expression, "
       "not a literal or a name; fix-it: replace '2 * 128' in line 7 by 'BLOCK' and add "
       "'#define BLOCK 256' above line 7"},
      {"no-hint-but-the-default-is-there",
       R"(void run(const float *in, float *out, int n) {
  sum<256, 4><<<(n + 1023) / 1024, 256>>>(in, out, n);
}
)",
       NoHints,
       "ITEMS: fix-it: replace '4' in line 7 by 'ITEMS' and add '#define ITEMS 4' above "
       "line 7"},
  };
  for (Row &R : Rows) {
    SCOPED_TRACE(R.Name);
    auto S = parse(SumKernel + R.Host);
    auto B = bindTunables(S->Index, "sum", {"BLOCK", "ITEMS"}, R.Options, S->contents());
    std::string E = errorOf(B.takeError());
    EXPECT_NE(E.find(R.Want), std::string::npos) << E;
  }
}

//===----------------------------------------------------------------------===//
// Chains of constants
//===----------------------------------------------------------------------===//

/// Several files in a directory of their own (a main file, its project
/// headers, a system header directory), indexed as the tune driver does.
struct Tree {
  std::string Dir, Main;
  frontend::FileIndex Index;
  ~Tree() {
    if (!Dir.empty())
      llvm::sys::fs::remove_directories(Dir);
  }
  std::string path(llvm::StringRef Name) const { return Dir + "/" + Name.str(); }
  std::string read(llvm::StringRef Name) const {
    auto B = llvm::MemoryBuffer::getFile(path(Name));
    return B ? (*B)->getBuffer().str() : "";
  }
  /// The text of file Name after applying P.
  std::string apply(const patch::PatchSet &P, llvm::StringRef Name) const {
    auto Out = P.applyTo(path(Name), read(Name));
    EXPECT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
    return Out ? *Out : "";
  }
};

std::unique_ptr<Tree> parseTree(const std::map<std::string, std::string> &Files) {
  auto T = std::make_unique<Tree>();
  llvm::SmallString<128> Dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("writeback-chain", Dir));
  T->Dir = Dir.str().str();
  llvm::sys::fs::create_directories(T->Dir + "/sys");
  for (const auto &[Name, Code] : Files) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(T->path(Name), EC);
    OS << Code;
  }
  T->Main = T->path("main.cu");
  frontend::Toolchain TC;
  TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
  frontend::ParseOptions Opts;
  Opts.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                    "-isystem", T->Dir + "/sys", "-include", "cuda_runtime.h"};
  frontend::ParseDiagnostics Diags(&llvm::errs());
  auto Index = frontend::buildKernelIndex(TC, Opts, T->Main, Diags);
  EXPECT_TRUE(bool(Index)) << llvm::toString(Index.takeError());
  if (Index)
    T->Index = std::move(*Index);
  EXPECT_EQ(T->Index.Errors, 0u);
  return T;
}

const char *const ChainKernel = R"(template <int BT, int IT, int TT, int UT>
__global__ void k(float *x) {
  x[threadIdx.x] = BT * IT + TT * UT;
}
)";

TEST(WriteBackChain, EachSpellingIsFollowedToItsLiteral) {
  // #define through #define, a const local from a static constexpr member,
  // a constexpr local from a macro, an enumerator from a constexpr.
  auto T = parseTree({{"main.cu", std::string(R"(#define BLOCK_SIZE 256
#define THREADS BLOCK_SIZE
#define ITEMS_DEFAULT 4
struct CFG { static constexpr int kTile = 16; };
constexpr int kBase = 2;
enum { kUnroll = kBase };
)") + ChainKernel + R"(
void run(float *x) {
  constexpr int Items = ITEMS_DEFAULT;
  const int Tile = CFG::kTile;
  k<THREADS, Items, Tile, kUnroll><<<1, THREADS>>>(x);
}
)"}});
  auto B = bindTunables(T->Index, "k", {"BT", "IT", "TT", "UT"}, BindOptions(),
                        patch::diskContents());
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  ASSERT_EQ(B->Bindings.size(), 4u);
  // Each binds to the one literal at the end of its chain.
  std::vector<std::pair<std::string, std::string>> Want = {
      {"macro", "BLOCK_SIZE"}, {"macro", "ITEMS_DEFAULT"}, {"constexpr", "kTile"},
      {"constexpr", "kBase"}};
  for (size_t I = 0; I < 4; ++I) {
    SCOPED_TRACE(B->Bindings[I].Name);
    ASSERT_EQ(B->Bindings[I].Sites.size(), 1u);
    EXPECT_EQ(B->Bindings[I].Sites[0].Kind, Want[I].first);
    EXPECT_EQ(B->Bindings[I].Sites[0].Symbol, Want[I].second);
  }
  EXPECT_EQ(B->Bindings[0].Current, 256);
  auto P = writeBackEdits(T->Index, B->Bindings, {{"BT", 512}, {"IT", 8}, {"TT", 32}, {"UT", 4}},
                          patch::diskContents());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::string Out = T->apply(*P, "main.cu");
  EXPECT_NE(Out.find("#define BLOCK_SIZE 512\n#define THREADS BLOCK_SIZE\n#define ITEMS_DEFAULT 8\n"
                     "struct CFG { static constexpr int kTile = 32; };\n"
                     "constexpr int kBase = 4;\nenum { kUnroll = kBase };\n"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("k<THREADS, Items, Tile, kUnroll><<<1, THREADS>>>(x);"), std::string::npos)
      << Out;
  // The notes say what the chain went through.
  std::string Notes = llvm::join(B->Notes, "\n");
  EXPECT_NE(Notes.find("main.cu:1: BT is written here, through THREADS -> BLOCK_SIZE"),
            std::string::npos)
      << Notes;
  EXPECT_NE(Notes.find("main.cu:4: TT is written here, through Tile -> CFG::kTile"),
            std::string::npos)
      << Notes;
}

TEST(WriteBackChain, ALinkOtherCodeReadsGetsAConstantOfItsOwn) {
  // BLOCK_SIZE sizes another kernel's launch; I is read by host code. The
  // links the tuned launch alone reads (B, J) are kept; the shared ones
  // stay, and a constant of the launch's own takes the value there.
  auto T = parseTree({{"main.cu", std::string(R"(#define BLOCK_SIZE 256
constexpr int B = BLOCK_SIZE;
constexpr int I = 4;
constexpr int J = I;
__global__ void other(float *x) {}
)") + ChainKernel + R"(
int run(float *x, int n) {
  other<<<1, BLOCK_SIZE>>>(x);
  k<B, J, 1, 1><<<1, B>>>(x);
  return n * I;
}
)"}});
  auto B = bindTunables(T->Index, "k", {"BT", "IT"}, BindOptions(), patch::diskContents());
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  auto P = writeBackEdits(T->Index, B->Bindings, {{"BT", 512}, {"IT", 8}}, patch::diskContents());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::string Out = T->apply(*P, "main.cu");
  EXPECT_NE(Out.find("#define BLOCK_SIZE 256\n#define BLOCK_SIZE_k 512\n"
                     "constexpr int B = BLOCK_SIZE_k;\n"
                     "constexpr int I = 4;\nconstexpr int I_k = 8;\n"
                     "constexpr int J = I_k;\n"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("other<<<1, BLOCK_SIZE>>>(x);\n  k<B, J, 1, 1><<<1, B>>>(x);\n"
                     "  return n * I;"),
            std::string::npos)
      << Out;
  std::string Notes = llvm::join(B->Notes, "\n");
  EXPECT_NE(Notes.find("main.cu:1: BLOCK_SIZE is also used at line(s) 12; it is left as it "
                       "is, and the launch(es) of k get a constant of their own, "
                       "BLOCK_SIZE_k, which B now names"),
            std::string::npos)
      << Notes;
  EXPECT_NE(Notes.find("main.cu:3: I is also used at line(s) 14; it is left as it is, and the "
                       "launch(es) of k get a constant of their own, I_k, which J now names"),
            std::string::npos)
      << Notes;
}

TEST(WriteBackChain, AProjectHeaderIsWrittenASystemHeaderIsNot) {
  auto T = parseTree({{"cfg.h", "#pragma once\n#define CFG_BLOCK 256\n"},
                      {"sys/sys_cfg.h", "#pragma once\n#define SYS_ITEMS 4\n"},
                      {"main.cu", std::string(R"(#include "cfg.h"
#include <sys_cfg.h>
constexpr int B = CFG_BLOCK;
constexpr int I = SYS_ITEMS;
)") + ChainKernel + R"(
void run(float *x) {
  k<B, I, 1, 1><<<1, B>>>(x);
}
)"}});
  BindOptions Opt;
  Opt.SystemDirs = {T->Dir + "/sys"};
  auto B = bindTunables(T->Index, "k", {"BT"}, Opt, patch::diskContents());
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  ASSERT_EQ(B->Bindings[0].Sites.size(), 1u);
  EXPECT_EQ(B->Bindings[0].Sites[0].File, T->path("cfg.h"));
  auto P = writeBackEdits(T->Index, B->Bindings, {{"BT", 512}}, patch::diskContents());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(T->apply(*P, "cfg.h"), "#pragma once\n#define CFG_BLOCK 512\n");
  EXPECT_EQ(P->editsFor(T->Main).size(), 0u);
  EXPECT_NE(llvm::join(B->Notes, "\n").find("the project header " + T->path("cfg.h") +
                                            " changes"),
            std::string::npos);
  // A copy of main.cu per configuration cannot vary a value cfg.h holds.
  auto SV = sourceVariants(T->Index, "k", {"BT"}, T->read("main.cu"), T->path("variants"));
  std::string SVMsg = errorOf(SV.takeError());
  EXPECT_NE(SVMsg.find("cfg.h:2: BT is written in " + T->path("cfg.h") + ", not in " + T->Main +
                       "; each configuration is a copy of " + T->Main + " alone"),
            std::string::npos)
      << SVMsg;
  // SYS_ITEMS is the toolkit's (a system header): not written; the fix-it
  // gives I its value in the user's file.
  auto E = bindTunables(T->Index, "k", {"IT"}, Opt, patch::diskContents());
  std::string Msg = errorOf(E.takeError());
  EXPECT_NE(Msg.find("cannot write IT, template argument IT of this launch of k: its value "
                     "comes from `SYS_ITEMS`, which the system header " +
                     T->path("sys/sys_cfg.h") + ":2 defines; a system header is not written; "
                     "fix-it: replace 'SYS_ITEMS' in line 4 by '4'"),
            std::string::npos)
      << Msg;
  // Without the system directory the header is not known at all: the
  // template argument itself takes the value, as before.
  auto W = bindTunables(T->Index, "k", {"IT"}, BindOptions(), patch::diskContents());
  ASSERT_TRUE(bool(W)) << llvm::toString(W.takeError());
  EXPECT_EQ(W->Bindings[0].Sites[0].Kind, "template-arg");
}

TEST(WriteBackChain, ALinkThatCannotBeFollowedIsNamed) {
  struct Row {
    const char *Name;
    std::string Defs, Block;
    std::string Want;
  };
  std::vector<Row> Rows = {
      // BASE is an expression: the chain stops at B, and the fix-it gives B
      // the spec's default.
      {"expression",
       "constexpr int BASE = 2 * 128;\nconstexpr int B = BASE;\n#define BLOCK_SIZE 256\n", "B",
       "main.cu:6) is defined as `BASE`, and neither the file nor its project headers define "
       "`BASE` as an integer literal or another name; fix-it: replace 'BASE' in line 6 by "
       "'256'"},
      // A local link that the host changes at run time.
      {"assigned", "#define BLOCK_SIZE 256\n", "t",
       "cannot write BLOCK, the block x of this launch of k: `t` is assigned at line 9, so its "
       "value is not known before the run"},
      // Two definitions of one macro.
      {"twice",
       "#ifdef WIDE\n#define BLOCK_SIZE 512\n#else\n#define BLOCK_SIZE 256\n#endif\n"
       "constexpr int B = BLOCK_SIZE;\n",
       "B", "macro BLOCK_SIZE is defined 2 times"},
  };
  for (const Row &R : Rows) {
    SCOPED_TRACE(R.Name);
    auto T = parseTree({{"main.cu", std::string(ChainKernel) + R.Defs + R"(
void run(float *x, int n) {
  int t = BLOCK_SIZE;
  if (n > 4) t = 128;
  k<1, 1, 1, 1><<<1, )" + R.Block + R"(>>>(x);
}
)"}});
    BindOptions Opt;
    Opt.BlockDims = {{"BLOCK", {0}}};
    Opt.Defaults = {{"BLOCK", 256}};
    auto B = bindTunables(T->Index, "k", {"BLOCK"}, Opt, patch::diskContents());
    std::string E = errorOf(B.takeError());
    EXPECT_NE(E.find(R.Want), std::string::npos) << E;
  }
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

const char *const DispatchSource = R"(#include <cuda_runtime.h>
#define BLOCK 128

template <typename T, int TILE>
__global__ void k(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * TILE;
}

void run(const float *x, float *y, int n) {
  k<float, 8><<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, y, n);
}
)";

TEST(WriteBackDispatch, ThreeTargets) {
  auto S = parse(DispatchSource);
  auto B = bindNames(*S, "k", {"BLOCK", "TILE"});
  auto P = dispatchEdits(S->Index, "k", B,
                         threeTargets({{"BLOCK", 128}, {"TILE", 8}}, {{"BLOCK", 256}, {"TILE", 16}},
                                      {{"BLOCK", 512}, {"TILE", 32}}),
                         S->contents());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(S->apply(*P), R"(#include <cuda_runtime.h>

// forge-port tune: the compute capability of the current device (major*10+minor),
// queried once per device, for the per-target launch dispatch below.
#ifndef FORGE_TUNED_CC_DEFINED
#define FORGE_TUNED_CC_DEFINED
static inline int forge_tuned_cc() {
  struct forge_cc_table { int cc[64]; };
  static const forge_cc_table table = [] {
    forge_cc_table t = {};
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
      count = 0;
    for (int d = 0; d < count && d < 64; ++d) {
      int major = 0, minor = 0;
      if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) == cudaSuccess &&
          cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d) == cudaSuccess)
        t.cc[d] = major * 10 + minor;
    }
    return t;
  }();
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)
    return 0;
  return table.cc[dev];
}
#endif

#define BLOCK 128

template <typename T, int TILE>
__global__ void k(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * TILE;
}

void run(const float *x, float *y, int n) {
  // forge-port tune: sm_100 predicted (BLOCK=512, TILE=32); sm_90 measured on NVIDIA H200 (BLOCK=256, TILE=16); sm_80 predicted (BLOCK=128, TILE=8)
  { int forge_cc = forge_tuned_cc();
    if (forge_cc >= 100) k<float, 32><<<(n + 512 - 1) / 512, 512>>>(x, y, n);
    else if (forge_cc >= 90) k<float, 16><<<(n + 256 - 1) / 256, 256>>>(x, y, n);
    else k<float, 8><<<(n + 128 - 1) / 128, 128>>>(x, y, n); }
}
)");
}

TEST(WriteBackDispatch, DeviceTunablesGetArchGuards) {
  auto S = parse(R"(#define ITEMS 4
constexpr int kWarps = 4;

__global__ void __launch_bounds__(256) k(float *y, int n) {
  float acc[kWarps];
#pragma unroll 4
  for (int j = 0; j < ITEMS; ++j)
    acc[j % kWarps] = y[j];
  y[threadIdx.x] = acc[0];
}

void run(float *y, int n) {
  k<<<(n + 255) / 256, 256>>>(y, n);
}
)");
  auto B = bindNames(*S, "k", {"ITEMS", "kWarps", "UNROLL", "LAUNCH_BOUNDS", "BLOCK"});
  auto P = dispatchEdits(S->Index, "k", B,
                         {{&target("sm_80"), {{"ITEMS", 2}, {"kWarps", 2}, {"UNROLL", 2}, {"LAUNCH_BOUNDS", 128}, {"BLOCK", 128}}, false, ""},
                          {&target("sm_90"), {{"ITEMS", 8}, {"kWarps", 8}, {"UNROLL", 8}, {"LAUNCH_BOUNDS", 512}, {"BLOCK", 512}}, true, "NVIDIA H200"}},
                         S->contents());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::string Out = S->apply(*P);
  // The helper goes at the top when there is no #include.
  EXPECT_EQ(Out.rfind("// forge-port tune: the compute capability", 0), 0u) << Out;
  size_t Body = Out.find("#endif\n\n") + 8;
  EXPECT_EQ(Out.substr(Body),
            R"(// forge-port tune: per-arch ITEMS (sm_90 measured on NVIDIA H200, sm_80 predicted)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define ITEMS 8
#else
#define ITEMS 2
#endif
// forge-port tune: per-arch kWarps (sm_90 measured on NVIDIA H200, sm_80 predicted)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define FORGE_TUNED_kWarps 8
#else
#define FORGE_TUNED_kWarps 2
#endif
constexpr int kWarps = FORGE_TUNED_kWarps;

// forge-port tune: per-arch LAUNCH_BOUNDS (sm_90 measured on NVIDIA H200, sm_80 predicted)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define FORGE_TUNED_k_LAUNCH_BOUNDS 512
#else
#define FORGE_TUNED_k_LAUNCH_BOUNDS 128
#endif
__global__ void __launch_bounds__(FORGE_TUNED_k_LAUNCH_BOUNDS) k(float *y, int n) {
  float acc[kWarps];
// forge-port tune: per-arch UNROLL (sm_90 measured on NVIDIA H200, sm_80 predicted)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#pragma unroll 8
#else
#pragma unroll 2
#endif
  for (int j = 0; j < ITEMS; ++j)
    acc[j % kWarps] = y[j];
  y[threadIdx.x] = acc[0];
}

void run(float *y, int n) {
  // forge-port tune: sm_90 measured on NVIDIA H200 (BLOCK=512, ITEMS=8, LAUNCH_BOUNDS=512, UNROLL=8, kWarps=8); sm_80 predicted (BLOCK=128, ITEMS=2, LAUNCH_BOUNDS=128, UNROLL=2, kWarps=2)
  { int forge_cc = forge_tuned_cc();
    if (forge_cc >= 90) k<<<(n + 511) / 512, 512>>>(y, n);
    else k<<<(n + 127) / 128, 128>>>(y, n); }
}
)");
}

TEST(WriteBackDispatch, LocalConstantGuardedMacroNamespaceAndDim3) {
  auto S = parse(R"(#ifndef TILE
#define TILE 8
#endif
namespace ns {
__global__ void k(float *y) {
  __shared__ float s[TILE];
  s[threadIdx.x % TILE] = 1.0f;
  y[threadIdx.x] = s[0];
}
} // namespace ns
void run(float *y, int n) {
  constexpr int threads = 64;
  ns::k<<<dim3((n + threads - 1) / threads), dim3(threads, 1, 1)>>>(y);
}
)");
  auto B = bindNames(*S, "ns::k", {"TILE", "BLOCK"});
  ASSERT_EQ(B.size(), 2u);
  EXPECT_EQ(B[1].Origin, "constexpr");
  EXPECT_EQ(B[1].Symbol, "threads");
  auto P = dispatchEdits(S->Index, "ns::k", B,
                         {{&target("sm_80"), {{"TILE", 8}, {"BLOCK", 128}}, false, ""},
                          {&target("sm_120"), {{"TILE", 16}, {"BLOCK", 256}}, false, ""}},
                         S->contents());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::string Out = S->apply(*P);
  EXPECT_EQ(Out.substr(Out.find("#endif\n\n") + 8), R"(#ifndef TILE
// forge-port tune: per-arch TILE (sm_120 predicted, sm_80 predicted)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
#define TILE 16
#else
#define TILE 8
#endif
#endif
namespace ns {
__global__ void k(float *y) {
  __shared__ float s[TILE];
  s[threadIdx.x % TILE] = 1.0f;
  y[threadIdx.x] = s[0];
}
} // namespace ns
void run(float *y, int n) {
  constexpr int threads = 128;
  // forge-port tune: sm_120 predicted (BLOCK=256, TILE=16); sm_80 predicted (BLOCK=128, TILE=8)
  { int forge_cc = forge_tuned_cc();
    if (forge_cc >= 120) ns::k<<<dim3((n + 256 - 1) / 256), dim3(256, 1, 1)>>>(y);
    else ns::k<<<dim3((n + threads - 1) / threads), dim3(threads, 1, 1)>>>(y); }
}
)") << Out;
}

TEST(WriteBackDispatch, HostUsesOutsideTheLaunchAreErrors) {
  auto S = parse(R"(#define BLOCK 256
#define TILE 8
__global__ void k(float *y) {
  __shared__ float s[TILE];
  s[threadIdx.x % TILE] = 1.0f;
  y[threadIdx.x] = s[0];
}
__global__ void __launch_bounds__(BLOCK) j(float *y) { y[threadIdx.x] = 0; }
void run(float *y, int n) {
  int grid = (n + BLOCK - 1) / BLOCK;
  k<<<grid, BLOCK>>>(y);
  float host[TILE];
  (void)host;
}
)");
  auto Targets = [](const char *Name) {
    return std::vector<TargetValues>{{&target("sm_80"), {{Name, 128}}, false, ""},
                                     {&target("sm_90"), {{Name, 256}}, true, "NVIDIA H200"}};
  };
  auto B = bindNames(*S, "k", {"BLOCK"});
  std::string Msg =
      errorOf(dispatchEdits(S->Index, "k", B, Targets("BLOCK"), S->contents()).takeError());
  EXPECT_NE(Msg.find(":10: BLOCK (BLOCK) is used in host code outside the launch statements of k"),
            std::string::npos)
      << Msg;
  // A device-only macro that host code also reads cannot be guarded.
  B = bindNames(*S, "k", {"TILE"});
  Msg = errorOf(dispatchEdits(S->Index, "k", B, Targets("TILE"), S->contents()).takeError());
  EXPECT_NE(Msg.find(":12: TILE (TILE) is used in host code"), std::string::npos) << Msg;
  // Same compute capability twice.
  Msg = errorOf(dispatchEdits(S->Index, "k", B,
                              {{&target("sm_90"), {{"TILE", 4}}, false, ""},
                               {&target("sm_90a"), {{"TILE", 8}}, false, ""}},
                              S->contents())
                    .takeError());
  EXPECT_NE(Msg.find("same compute capability"), std::string::npos) << Msg;
}

TEST(WriteBackDispatch, LaunchInsideAnExpressionIsAnError) {
  auto S = parse(R"(__global__ void k(float *y) { y[threadIdx.x] = 0; }
void run(float *y) {
  for (int r = 0; r < 2; ++r) k<<<1, 64>>>(y), cudaDeviceSynchronize();
}
)");
  auto B = bindNames(*S, "k", {"BLOCK"});
  std::string Msg = errorOf(dispatchEdits(S->Index, "k", B,
                                          {{&target("sm_80"), {{"BLOCK", 32}}, false, ""},
                                           {&target("sm_100"), {{"BLOCK", 128}}, false, ""}},
                                          S->contents())
                                .takeError());
  EXPECT_NE(Msg.find("only a launch statement of its own"), std::string::npos) << Msg;
}

//===----------------------------------------------------------------------===//
// The outputs compile with nvcc for sm_80, sm_90 and sm_100
//===----------------------------------------------------------------------===//

TEST(WriteBackNvcc, SingleAndDispatchOutputsCompile) {
  const char *Nvcc = "/usr/local/cuda/bin/nvcc";
  if (!llvm::sys::fs::can_execute(Nvcc))
    GTEST_SKIP() << "no nvcc at " << Nvcc;
  const char *Code = R"(#include <cuda_runtime.h>
#define ITEMS 4
constexpr int kThreads = 128;

template <typename T, int TILE>
__global__ void __launch_bounds__(1024) k(const T *x, T *y, int n) {
  __shared__ T s[TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < TILE) s[threadIdx.x] = T(1);
  __syncthreads();
  T acc = 0;
#pragma unroll 4
  for (int j = 0; j < ITEMS; ++j)
    if (i * ITEMS + j < n) acc += x[i * ITEMS + j] * s[j % TILE];
  if (i < n) y[i] = acc;
}

__global__ void add(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}

void run(const float *x, float *y, int n, cudaStream_t s) {
  k<float, 8><<<(n + kThreads - 1) / kThreads, kThreads, 0, s>>>(x, y, n);
  if (n > 1 << 20)
    k<float, 8><<<(n + kThreads - 1) / kThreads, kThreads>>>(x, y, n);
  add<<<(n + 255) / 256, 256>>>(y, n);
}
)";
  auto S = parse(Code);
  std::vector<std::string> Names = {"TILE", "ITEMS", "kThreads", "UNROLL"};
  std::string Single = single(*S, "k", Names, {{"TILE", 16}, {"ITEMS", 8}, {"kThreads", 256}, {"UNROLL", 8}});
  auto B = bindNames(*S, "k", Names);
  auto P = dispatchEdits(
      S->Index, "k", B,
      threeTargets({{"TILE", 8}, {"ITEMS", 2}, {"kThreads", 128}, {"UNROLL", 2}},
                   {{"TILE", 16}, {"ITEMS", 4}, {"kThreads", 256}, {"UNROLL", 4}},
                   {{"TILE", 32}, {"ITEMS", 8}, {"kThreads", 512}, {"UNROLL", 8}}),
      S->contents());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::string Dispatch = S->apply(*P);
  EXPECT_NE(Dispatch.find("if (forge_cc >= 100) k<float, 32><<<(n + 512 - 1) / 512, 512, 0, s>>>"),
            std::string::npos)
      << Dispatch;
  // A constant only the launches read keeps naming the fallback's value.
  EXPECT_NE(Dispatch.find("else k<float, 8><<<(n + kThreads - 1) / kThreads, kThreads, 0, s>>>"),
            std::string::npos)
      << Dispatch;

  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("writeback-nvcc", Dir));
  std::vector<std::string> Files;
  for (auto [Name, Text] : {std::pair<const char *, std::string *>{"single.cu", &Single},
                            {"dispatch.cu", &Dispatch}}) {
    std::string Path = (Dir + "/" + Name).str();
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << *Text;
    Files.push_back(Path);
  }
  for (const std::string &File : Files) {
    std::string Obj = File + ".o", Log = File + ".log";
    std::vector<llvm::StringRef> Args = {
        Nvcc, "-c", File, "-o", Obj, "-Werror", "all-warnings",
        "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
        "-gencode", "arch=compute_100,code=sm_100"};
    std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Log),
                                                  llvm::StringRef(Log)};
    int RC = llvm::sys::ExecuteAndWait(Nvcc, Args, std::nullopt, Redirects, 300);
    auto Buf = llvm::MemoryBuffer::getFile(Log);
    EXPECT_EQ(RC, 0) << File << ":\n" << (Buf ? (*Buf)->getBuffer().str() : "") << "\n"
                     << (File.find("single") != std::string::npos ? Single : Dispatch);
  }
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
