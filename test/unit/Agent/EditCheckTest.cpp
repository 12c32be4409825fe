//===- EditCheckTest.cpp - the AST diff of an edit, construct by construct ===//
// Each case parses a version before and after an edit (real Clang, the mock
// CUDA headers as system headers) and checks what the edit check reports.
#include "forge/Agent/EditCheck.h"
#include "forge/Agent/SourceCheck.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Config.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
#include <map>

using namespace forge;
using namespace forge::agent;

namespace {

const std::string Head = R"CU(#include <cuda_runtime.h>
extern "C" int system(const char *);
extern "C" void *dlopen(const char *, int);
extern char **environ;
namespace std { struct ofstream { ofstream(const char *); }; }
)CU";

const std::string Kernel = R"CU(__global__ void k(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 2 * a[i];
}
)CU";

const std::string Launch = "  k<<<4, 256>>>(a, 1024);\n";

std::string program(const std::string &Kern, const std::string &MainBody,
                    const std::string &Extra = "") {
  return Head + Extra + Kern + "int main() {\n  float *a = 0;\n" + MainBody + "  return 0;\n}\n";
}

class EditCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
    frontend::ParseOptions PO;
    PO.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda"};
    Checker = std::make_unique<SourceChecker>(TC, PO);
    llvm::SmallString<128> D;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-editcheck", D));
    Dir = D.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  KernelContract parse(const std::string &Text) {
    auto C = Checker->analyse(Dir + "/k.cu", Text, "k",
                              llvm::cantFail(arch::lookupTarget("sm_90")));
    EXPECT_TRUE(bool(C)) << llvm::toString(C.takeError());
    return C ? *C : KernelContract();
  }
  /// The facts of Text; the unedited program, parsed by most cases, once.
  std::vector<EditFact> facts(const std::string &Text) {
    static std::map<std::string, std::vector<EditFact>> Cache;
    bool Common = Text == program(Kernel, Launch);
    if (Common && Cache.count(Text))
      return Cache[Text];
    std::vector<EditFact> F = parse(Text).Facts;
    if (Common)
      Cache[Text] = F;
    return F;
  }
  /// The reasons, joined by " | ".
  std::string added(const std::string &Before, const std::string &After, bool Wide = false) {
    return llvm::join(checkEdit(facts(Before), facts(After), Wide), " | ");
  }
  /// The reasons for an edit of main's launch line only.
  std::string launch(const std::string &NewLaunch, const std::string &Extra = "") {
    return added(program(Kernel, Launch), program(Kernel, NewLaunch, Extra));
  }

  frontend::Toolchain TC;
  std::unique_ptr<SourceChecker> Checker;
  std::string Dir;
};

#define EXPECT_HAS(Haystack, Needle)                                                        \
  EXPECT_NE(std::string(Haystack).find(Needle), std::string::npos) << (Haystack)

TEST_F(EditCheckTest, NothingAddedNothingReported) {
  EXPECT_EQ(added(program(Kernel, Launch), program(Kernel, Launch)), "");
}

TEST_F(EditCheckTest, HostCallsOutsideTheAllowlist) {
  // Head is 5 lines, Kernel 4, then "int main() {", "float *a = 0;": the
  // launch is line 12.
  EXPECT_EQ(launch("  k<<<4, 256>>>(a, 1024); (system)(\"id\");\n"),
            "line 12: calls 'system' in host code (not in the allowlist)");
  // A string with // in it hides nothing from the AST.
  EXPECT_HAS(launch("  k<<<4, 256>>>(a, 1024); { const char *u = \"http://x\"; system(u); }\n"),
             "line 12: calls 'system'");
  // Split across lines: the call's line is where it starts.
  EXPECT_EQ(launch("  k<<<4, 256>>>(a, 1024); system\n  (\n  \"id\");\n"),
            "line 12: calls 'system' in host code (not in the allowlist)");
  EXPECT_HAS(launch("  dlopen(\"/tmp/x.so\", 2);\n" + Launch), "calls 'dlopen'");
  EXPECT_HAS(launch(Launch + "  std::ofstream f(\"/tmp/x\");\n"),
             "line 13: constructs a 'std::ofstream' in host code");
  // The CUDA runtime, dim3 and std::min/max are allowed.
  EXPECT_EQ(launch("  cudaMalloc((void **)&a, 4096); dim3 g(4), b(256);\n"
                   "  k<<<g, b>>>(a, 1024); cudaDeviceSynchronize();\n"),
            "");
  // A call through a pointer is not a call the check can name.
  EXPECT_HAS(launch(Launch + "  int (*g)(const char *) = 0; g(\"id\");\n"),
             "a call through a function pointer");
}

TEST_F(EditCheckTest, AllowlistedNamesMustComeFromTheToolkit) {
  // A cudaMalloc the edit defines in the file is its own code (checked as
  // host code), and one declared without a body is not the runtime's.
  EXPECT_HAS(added(program(Kernel, Launch, "namespace x { int cudaMalloc(const char *); }\n"),
                   program(Kernel, "  x::cudaMalloc(\"id\");\n" + Launch,
                           "namespace x { int cudaMalloc(const char *); }\n")),
             "calls 'x::cudaMalloc' in host code (not in the allowlist)");
}

TEST_F(EditCheckTest, TheCallsCompareAsAMultiset) {
  std::string One = program(Kernel, Launch + "  system(\"true\");\n");
  // Moved: still one call.
  EXPECT_EQ(added(One, program(Kernel, "  system(\"true\");\n" + Launch)), "");
  // A second one is the edit's.
  EXPECT_EQ(added(One, program(Kernel, Launch + "  system(\"true\");\n  system(\"id\");\n")),
            "line 14: calls 'system' in host code (not in the allowlist)");
}

TEST_F(EditCheckTest, AConstructorOnTheKernelsClosingLine) {
  std::string K = Kernel;
  K.replace(K.rfind("}"), 1,
            "} __attribute__((constructor)) static void f() { auto *g = &::system; g(\"id\"); }");
  std::string R = added(program(Kernel, Launch), program(K, Launch));
  EXPECT_HAS(R, "line 9: attribute 'constructor'");
  EXPECT_HAS(R, "line 9: a new file-scope declaration (Function 'f'");
  EXPECT_HAS(R, "line 9: takes the address of the host function 'system'");
  EXPECT_HAS(R, "line 9: a call through a function pointer");
  // The widened scope allows the function, never the rest.
  std::string W = added(program(Kernel, Launch), program(K, Launch), /*Wide=*/true);
  EXPECT_EQ(W.find("file-scope declaration"), std::string::npos) << W;
  EXPECT_HAS(W, "attribute 'constructor'");
}

TEST_F(EditCheckTest, Attributes) {
  EXPECT_EQ(launch(Launch + "  static void *h __attribute__((section(\".init_array\"), used)) "
                            "= nullptr; (void)h;\n"),
            "line 13: attribute 'section' | line 13: attribute 'used'");
  // What kernels need: launch bounds, restrict, inlining, alignment.
  std::string K = "__device__ __forceinline__ float twice(float v) { return 2 * v; }\n"
                  "__global__ void __launch_bounds__(256) k(float *__restrict__ a, int n) {\n"
                  "  __shared__ __align__(16) float s[4];\n"
                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "#pragma unroll\n"
                  "  for (int j = 0; j < 4; ++j) s[j] = 0;\n"
                  "  if (i < n) a[i] = twice(a[i]) + s[0];\n"
                  "}\n";
  EXPECT_EQ(added(program(Kernel, Launch), program(K, Launch)), "");
}

TEST_F(EditCheckTest, StaticInitialisers) {
  EXPECT_EQ(launch(Launch + "  static int once = system(\"id\"); (void)once;\n"),
            "line 13: a static initialiser that is not a constant ('once' is initialised by code "
            "run when the program starts or first passes it) | line 13: calls 'system' in host "
            "code (not in the allowlist)");
  // A constant is not code.
  EXPECT_EQ(launch(Launch + "  static const int Block = 256; (void)Block;\n"), "");
}

TEST_F(EditCheckTest, AsmInHostCodeButNotPtxInDeviceCode) {
  EXPECT_EQ(launch(Launch + "  __asm__ volatile(\"syscall\" : : \"a\"(60));\n"),
            "line 13: an asm statement in host code");
  std::string K = "__global__ void k(float *a, int n) {\n"
                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  float r;\n"
                  "  asm(\"mul.f32 %0, %1, 2.0;\" : \"=f\"(r) : \"f\"(a[0]));\n"
                  "  if (i < n) a[i] = r;\n"
                  "}\n";
  EXPECT_EQ(added(program(Kernel, Launch), program(K, Launch)), "");
  EXPECT_HAS(added(program(Kernel, Launch), program(Kernel, Launch, "asm(\".globl x\");\n")),
             "an asm declaration at file scope");
}

TEST_F(EditCheckTest, Directives) {
  EXPECT_EQ(launch("#define CAT(a, b) a##b\n" + Launch + "  CAT(sys, tem)(\"id\");\n"),
            "line 12: #define CAT (widen with --scope=file) | line 14: calls 'system' in host "
            "code (not in the allowlist)");
  std::string Secret = Dir + "/secret.h";
  ASSERT_FALSE(bool(writeFileAtomically(Secret, "int forge_secret = 1;\n")));
  EXPECT_EQ(launch("#include \"" + Secret + "\"\n" + Launch),
            "line 12: #include \"" + Secret + "\"");
  EXPECT_EQ(launch("#include <unistd.h>\n" + Launch), "line 12: #include <unistd.h>");
  EXPECT_EQ(launch("#pragma GCC poison gets\n" + Launch), "line 12: #pragma GCC poison gets");
  EXPECT_EQ(launch("_Pragma(\"GCC diagnostic ignored \\\"-Wall\\\"\")\n" + Launch),
            "line 12: _Pragma");
  EXPECT_HAS(launch("#line 1 \"other.cu\"\n" + Launch), "#line (renames the file or its lines)");
  // The widened scope allows a macro; the expansion is still checked.
  EXPECT_EQ(added(program(Kernel, Launch),
                  program(Kernel, "#define LAUNCH k<<<4, 256>>>(a, 1024)\n  LAUNCH;\n"),
                  /*Wide=*/true),
            "");
}

TEST_F(EditCheckTest, CodeThisParseCannotSee) {
  // On the device side __CUDA_ARCH__ is defined: the host branch is skipped.
  EXPECT_EQ(launch(Launch + "#ifndef __CUDA_ARCH__\n  system(\"id\");\n#endif\n"),
            "line 14: code in an inactive preprocessor branch, which the check cannot see: "
            "'system(\"id\");'");
  // The same lines where they were before are not the edit's.
  std::string Hidden = program(Kernel, Launch + "#ifndef __CUDA_ARCH__\n  system(\"id\");\n#endif\n");
  EXPECT_EQ(added(Hidden, Hidden), "");
}

TEST_F(EditCheckTest, AddressesOfHostFunctionsAndHostGlobals) {
  EXPECT_EQ(launch(Launch + "  void *p = (void *)&system; (void)p;\n"),
            "line 13: takes the address of the host function 'system'");
  EXPECT_EQ(launch(Launch + "  char **e = environ; (void)e;\n"),
            "line 13: uses the host global 'environ' (the process's environment or identity)");
  // A kernel's address for the runtime is not a host function's.
  EXPECT_EQ(launch("  cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);\n" +
                   Launch),
            "");
}

TEST_F(EditCheckTest, FileScopeDeclarations) {
  std::string Helper = "__device__ float twice(float v) { return 2 * v; }\n"
                       "__device__ unsigned counter;\n";
  EXPECT_EQ(added(program(Kernel, Launch), program(Kernel, Launch, Helper)), "");
  std::string Host = "static int helper() { return 1; }\nnamespace evil { int x; }\n";
  EXPECT_EQ(added(program(Kernel, Launch), program(Kernel, Launch, Host)),
            "line 6: a new file-scope declaration (Function 'helper'; widen with --scope=file) | "
            "line 7: a new file-scope declaration (Namespace 'evil'; widen with --scope=file) | "
            "line 7: a new file-scope declaration (Var 'evil::x'; widen with --scope=file)");
  EXPECT_EQ(added(program(Kernel, Launch), program(Kernel, Launch, Host), /*Wide=*/true), "");
}

// A diagnostic in another file (an included file's contents) never
// reaches the messages that go to a model.
TEST_F(EditCheckTest, DiagnosticsInOtherFilesAreRedacted) {
  std::string Secret = Dir + "/secret.h";
  ASSERT_FALSE(bool(writeFileAtomically(Secret, "TOPSECRET-HOSTNAME-42\n")));
  KernelContract C = parse("#include \"" + Secret + "\"\n" + program(Kernel, Launch) + "int x = ;\n");
  ASSERT_GE(C.ErrorMessages.size(), 2u);
  std::string All = llvm::join(C.ErrorMessages, "\n");
  EXPECT_EQ(All.find("TOPSECRET"), std::string::npos) << All;
  EXPECT_HAS(All, frontend::RedactedDiagnostic.str());
  // An error of the main file keeps its file and line.
  EXPECT_HAS(All, "k.cu:16:");
}

} // namespace

namespace {

// A whole file a model wrote (`forge-port new --llm`): its own kernel,
// helpers, host wrapper and macros are allowed, so are the host headers a
// template's file includes; the rest is refused as in an edit.
TEST_F(EditCheckTest, ANewFileMayHoldItsOwnDeclarationsAndNothingElse) {
  const std::string Wrapper =
      "#define BLOCK 256\n"
      "__device__ float twice(float x) { return 2 * x; }\n" + Kernel +
      "inline cudaError_t forge_k(float *a, int n) {\n"
      "  k<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(a, n);\n"
      "  return cudaGetLastError();\n"
      "}\n";
  auto NewFile = [&](const std::string &Text) {
    return llvm::join(checkNewFile(parse(Text).Facts), " | ");
  };
  EXPECT_EQ(NewFile("#include <cuda_runtime.h>\n" + Wrapper), "");
  // As an edit of an empty file in the default scope, the same text adds
  // declarations and a macro.
  EXPECT_HAS(llvm::join(checkEdit({}, parse("#include <cuda_runtime.h>\n" + Wrapper).Facts,
                                  /*WidenedScope=*/false),
                        " | "),
             "#define BLOCK (widen with --scope=file)");
  // A quoted include, a host call outside the allowlist, host asm.
  EXPECT_EQ(NewFile("#include \"cuda_runtime.h\"\n" + Wrapper),
            "line 1: #include \"cuda_runtime.h\"");
  EXPECT_EQ(NewFile(Head + Wrapper + "void f() { system(\"id\"); }\n"),
            "line 16: calls 'system' in host code (not in the allowlist)");
  EXPECT_HAS(NewFile("#include <cuda_runtime.h>\n" + Wrapper +
                     "void g() { asm volatile(\"syscall\"); }\n"),
             "an asm statement in host code");
  EXPECT_TRUE(allowedNewFileInclude("cstdint"));
  EXPECT_FALSE(allowedNewFileInclude("cstdlib"));
  EXPECT_FALSE(allowedNewFileInclude("cstdio"));
}

} // namespace
