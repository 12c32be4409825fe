//===- ValueRangeTest.cpp - Integer value ranges where an expression runs ===//
//
// The range of a histogram's bins index (the argument of `atomicAdd(&h[X],
// ...)`, marked by its text) in the spellings naive kernels use, and the
// cases where it must stay unbounded or take the type's range.
//
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"
#include "forge/Analysis/ValueRange.h"
#include "clang/AST/Decl.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

/// The range of the last expression spelled Text in kernel k.
std::string rangeOf(const std::string &Code, llvm::StringRef Text) {
  std::string Out = "<none>";
  withModel(Code, "k", {}, [&](KernelModel &, clang::ASTContext &Ctx, const clang::FunctionDecl &K) {
    const clang::Expr *E = findExpr(Ctx, K, Text, /*Last=*/true);
    if (!E) {
      ADD_FAILURE() << "no expression '" << Text.str() << "'";
      return;
    }
    Out = valueRange(E, K, Ctx).render();
  });
  return Out;
}

struct Case {
  const char *What, *Code, *Text, *Range;
};

const Case Cases[] = {
    {"a clamp written as one assignment of min(max())",
     R"(__global__ void k(const float *x, int *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * 100);
    b = min(max(b, 0), 99);
    atomicAdd(&h[b], 1);
  }
})",
     "b", "[0, 99]"},
    {"a clamp written as two ifs",
     R"(__global__ void k(const float *x, unsigned *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = (int)(x[i] * 64);
  if (b < 0) b = 0;
  if (b > 63) b = 63;
  atomicAdd(h + b, 1u);
})",
     "b", "[0, 63]"},
    {"a guard on the operand of a difference",
     R"(__global__ void k(const char *t, unsigned *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned char c = t[i];
    if (c >= 'a' && c <= 'z')
      atomicAdd(&f[c - 'a'], 1u);
  }
})",
     "c - 'a'", "[0, 25]"},
    {"arithmetic of bounded loads (a joint histogram)",
     R"(__global__ void k(const unsigned char *a, const unsigned char *b, unsigned *j, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&j[(a[i] >> 4) * 16 + (b[i] >> 4)], 1u);
})",
     "(a[i] >> 4) * 16 + (b[i] >> 4)", "[0, 255]"},
    {"an early exit that leaves the non-negative values below a constant",
     R"(__global__ void k(const int *v, unsigned *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int b = v[i];
  if (b < 0 || b >= 40)
    return;
  atomicAdd(&h[b], 1u);
})",
     "b", "[0, 39]"},
    {"a ?: clamp and a remainder of a non-negative value",
     R"(__global__ void k(const int *v, unsigned *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int b = v[i] < 0 ? -v[i] : v[i];
  atomicAdd(&h[b % 10], 1u);
})",
     "b % 10", "[-9, 9]"},
    {"a mask and a shift",
     R"(__global__ void k(const unsigned *v, unsigned *h) {
  unsigned x = v[threadIdx.x];
  atomicAdd(&h[(x >> 3) & 31], 1u);
})",
     "(x >> 3) & 31", "[0, 31]"},
    // Where nothing bounds the value, or a loop changes it.
    {"a signed load: its type's range",
     R"(__global__ void k(const int *v, unsigned *h) {
  atomicAdd(&h[v[threadIdx.x]], 1u);
})",
     "v[threadIdx.x]", "[-2147483648, 2147483647]"},
    {"a remainder of a signed value may be negative",
     R"(__global__ void k(const int *v, unsigned *h) {
  int b = v[threadIdx.x] % 64;
  atomicAdd(&h[b], 1u);
})",
     "b", "[-63, 63]"},
    {"a variable a loop changes before the use",
     R"(__global__ void k(const int *v, unsigned *h, int n) {
  int b = 0;
  for (int j = 0; j < n; ++j)
    b += v[j];
  atomicAdd(&h[b], 1u);
})",
     "b", "[-2147483648, 2147483647]"},
    {"an unsigned difference that may wrap",
     R"(__global__ void k(const unsigned char *t, unsigned *f) {
  unsigned c = t[threadIdx.x];
  atomicAdd(&f[c - 97u], 1u);
})",
     "c - 97u", "[0, 4294967295]"},
    {"a comparison in unsigned of a value that may be negative narrows nothing",
     R"(__global__ void k(const int *v, unsigned *h) {
  int b = v[threadIdx.x];
  if (b < 64u)
    atomicAdd(&h[b], 1u);
})",
     "b", "[-2147483648, 2147483647]"},
    {"a clamp in only one branch joins with the other",
     R"(__global__ void k(const int *v, unsigned *h, int f) {
  int b = v[threadIdx.x] & 255;
  if (f)
    b = 300;
  atomicAdd(&h[b], 1u);
})",
     "b", "[0, 300]"},
    {"an address taken: a call could change it",
     R"(__device__ void set(int *p);
__global__ void k(unsigned *h) {
  int b = 3;
  set(&b);
  atomicAdd(&h[b], 1u);
})",
     "b", "[-2147483648, 2147483647]"},
};

TEST(ValueRange, EverySpellingOfABinsIndex) {
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.What);
    EXPECT_EQ(rangeOf(C.Code, C.Text), C.Range);
  }
}

/// The range of the last expression spelled Text in kernel k in terms of
/// its parameter Param (assumed at least Min), then its notes, "; "-joined.
std::string symbolicOf(const std::string &Code, llvm::StringRef Text, llvm::StringRef Param,
                       int64_t Min = 1) {
  std::string Out = "<none>";
  withModel(Code, "k", {}, [&](KernelModel &, clang::ASTContext &Ctx, const clang::FunctionDecl &K) {
    const clang::Expr *E = findExpr(Ctx, K, Text, /*Last=*/true);
    const clang::ParmVarDecl *P = nullptr;
    for (const clang::ParmVarDecl *X : K.parameters())
      if (X->getName() == Param)
        P = X;
    if (!E || (!P && !Param.empty())) {
      ADD_FAILURE() << "no expression '" << Text.str() << "' or parameter '" << Param.str() << "'";
      return;
    }
    SymbolicInterval R = symbolicRange(E, K, Ctx, P, Min);
    Out = R.render();
    for (const std::string &N : R.Notes)
      Out += "; " + N;
  });
  return Out;
}

/// A kernel that clamps 'b' to [0, nbins - 1] with Clamp (statements after
/// the declaration), then counts it.
std::string clampKernel(const std::string &Clamp, const std::string &NbinsType = "int") {
  return "__global__ void k(const float *x, unsigned *h, int n, " + NbinsType + " nbins) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) {\n"
         "    int b = (int)(x[i] * nbins);\n" +
         Clamp +
         "\n    atomicAdd(&h[b], 1u);\n"
         "  }\n"
         "}\n";
}

struct SymbolicCase {
  const char *What;
  std::string Code;
  const char *Range;
};

TEST(ValueRange, AClampToAParameterWrittenAsStatements) {
  const SymbolicCase Cases[] = {
      {"one ?: assignment", clampKernel("b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);"),
       "[0, nbins - 1]"},
      {"if / else if", clampKernel("if (b < 0) b = 0; else if (b >= nbins) b = nbins - 1;"),
       "[0, nbins - 1]"},
      {"two ifs, '> nbins - 1'", clampKernel("if (b < 0) b = 0;\n if (b > nbins - 1) b = nbins - 1;"),
       "[0, nbins - 1]"},
      {"two ifs, '>= nbins', the ceiling first",
       clampKernel("if (b >= nbins) b = nbins - 1;\n if (b < 0) b = 0;"), "[0, nbins - 1]"},
      {"min then max statements", clampKernel("b = min(b, nbins - 1);\n b = max(b, 0);"),
       "[0, nbins - 1]"},
      {"max then min, one statement", clampKernel("b = min(max(b, 0), nbins - 1);"),
       "[0, nbins - 1]"},
      {"a comma of two clamps", clampKernel("b = max(b, 0), b = min(b, nbins - 1);"),
       "[0, nbins - 1]"},
      // An unsigned nbins above INT_MAX would wrap in 'int b'.
      {"an unsigned parameter into a signed local",
       clampKernel("if (b < 0) b = 0;\n if (b >= nbins) b = nbins - 1;", "unsigned"),
       "[-2147483648, 2147483647]; line 4 sets 'b' to '(int)(x[i] * nbins)', whose range is "
       "[-2147483648, 2147483647]; line 6 sets 'b' to 'nbins - 1', whose range is "
       "[-2147483648, 2147483647]"},
      // Wrong clamps keep their error in the range.
      {"a floor of -1", clampKernel("b = b < 0 ? -1 : (b >= nbins ? nbins - 1 : b);"),
       "[-1, nbins - 1]"},
      {"a ceiling of nbins", clampKernel("if (b < 0) b = 0;\n if (b > nbins) b = nbins;"),
       "[0, nbins]"},
      {"no floor", clampKernel("if (b >= nbins) b = nbins - 1;"),
       "[-2147483648, nbins - 1]; line 4 sets 'b' to '(int)(x[i] * nbins)', whose range is "
       "[-2147483648, 2147483647]"},
      // Why the range is wide.
      {"the local written in a loop",
       clampKernel("while (b >= nbins) b -= nbins;\n if (b < 0) b = 0;"),
       "[0, 2147483647]; 'b' is assigned in the loop at line 5"},
      {"the parameter assigned before the clamp",
       clampKernel("nbins = nbins / 2;\n b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);"),
       "[-1, 1073741822]; line 5 assigns the parameter 'nbins'"},
      {"a call the range does not look into",
       "__device__ int f(int v);\n" + clampKernel("b = f(b);"),
       "[-2147483648, 2147483647]; line 6 sets 'b' to 'f(b)', whose range is "
       "[-2147483648, 2147483647]"},
  };
  for (const SymbolicCase &C : Cases) {
    SCOPED_TRACE(C.What);
    EXPECT_EQ(symbolicOf(C.Code, "b", "nbins"), C.Range);
  }
}

TEST(ValueRange, SymbolicRangesOfOtherSpellings) {
  // A remainder by the parameter of a non-negative value.
  EXPECT_EQ(symbolicOf(R"(__global__ void k(const unsigned *v, unsigned *h, int nbins) {
  atomicAdd(&h[v[threadIdx.x] % nbins], 1u);
})",
                       "v[threadIdx.x] % nbins", "nbins"),
            "[0, nbins - 1]");
  // An unsigned parameter into an unsigned local.
  EXPECT_EQ(symbolicOf(R"(__global__ void k(const float *x, unsigned *h, unsigned nbins) {
  unsigned u = (unsigned)(x[threadIdx.x] * nbins);
  if (u >= nbins)
    u = nbins - 1;
  atomicAdd(&h[u], 1u);
})",
                       "u", "nbins"),
            "[0, nbins - 1]");
  // A guard on the parameter and an early exit.
  EXPECT_EQ(symbolicOf(R"(__global__ void k(const int *v, unsigned *h, int nbins) {
  int b = v[threadIdx.x];
  if (b < 0 || b >= nbins)
    return;
  atomicAdd(&h[b], 1u);
})",
                       "b", "nbins"),
            "[0, nbins - 1]");
  // Without 'nbins >= 1', 'nbins - 1' may overflow and 0 does not compare
  // with it: nothing bounds the clamp.
  EXPECT_EQ(symbolicOf(clampKernel("b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);"), "b", "nbins",
                       INT32_MIN),
            "[-2147483648, 2147483647]; line 4 sets 'b' to '(int)(x[i] * nbins)', whose range is "
            "[-2147483648, 2147483647]");
  // No parameter: valueRange's interval, with the notes.
  EXPECT_EQ(symbolicOf(clampKernel("b = min(max(b, 0), 99);"), "b", ""), "[0, 99]");
  // Another parameter than the one the clamp names: 'nbins - 1' may
  // overflow, and 'min' of it may be negative.
  EXPECT_EQ(symbolicOf(clampKernel("b = min(max(b, 0), nbins - 1);"), "b", "n"),
            "[-2147483648, 2147483647]; line 4 sets 'b' to '(int)(x[i] * nbins)', whose range is "
            "[-2147483648, 2147483647]");
}

/// A histogram of signed keys: 'b' declared as Init (of keys[i] and
/// nbins), then Fix, then counted.
std::string modKernel(const std::string &Init, const std::string &Fix) {
  return "__global__ void k(const int *keys, const short *s, unsigned *h, int n, int nbins) {\n"
         "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
         "    int b = " + Init + ";\n    " + Fix +
         "\n    atomicAdd(&h[b], 1u);\n"
         "  }\n"
         "}\n";
}

TEST(ValueRange, ARemainderOfASignedValueMadeNonNegative) {
  // The remainder of a signed value by nbins >= 1 is in [1 - nbins,
  // nbins - 1]; adding nbins where it is negative gives [1, nbins - 1],
  // joined with the other path [0, nbins - 1]. 1 - nbins is a constant
  // to the callers (the parameter's largest value).
  const std::string Mod = "keys[i] % nbins";
  const SymbolicCase Cases[] = {
      {"the remainder alone", modKernel(Mod, ""), "[-2147483646, nbins - 1]"},
      {"if (b < 0) b += nbins;", modKernel(Mod, "if (b < 0) b += nbins;"), "[0, nbins - 1]"},
      {"in braces, as an assignment", modKernel(Mod, "if (b < 0) { b = b + nbins; }"),
       "[0, nbins - 1]"},
      {"a ?: assignment", modKernel(Mod, "b = b < 0 ? b + nbins : b;"), "[0, nbins - 1]"},
      {"the guard reversed, with an else", modKernel(Mod, "if (0 <= b) {} else b += nbins;"),
       "[0, nbins - 1]"},
      {"negated where negative", modKernel(Mod, "if (b < 0) b = -b;"), "[0, nbins - 1]"},
      {"then a correction above that never runs",
       modKernel(Mod, "if (b < 0) b += nbins;\n    if (b >= nbins) b -= nbins;"), "[0, nbins - 1]"},
      {"a clamp by ifs", modKernel(Mod, "if (b < 0) b = 0;\n    if (b > nbins - 1) b = nbins - 1;"),
       "[0, nbins - 1]"},
      {"abs of the remainder", modKernel("abs(keys[i] % nbins)", ""), "[0, nbins - 1]"},
      {"an unsigned dividend", modKernel("(unsigned)keys[i] % nbins", ""), "[0, nbins - 1]"},
      {"abs of a short, then the remainder", modKernel("abs(s[i]) % nbins", ""), "[0, nbins - 1]"},
      {"a mask by nbins - 1", modKernel("keys[i] & (nbins - 1)", ""), "[0, nbins - 1]"},
      // Not bounded.
      {"the correction without the remainder: b may be nbins or more",
       modKernel("keys[i]", "if (b < 0) b += nbins;"),
       "[nbins - 2147483648, 2147483647]; line 3 sets 'b' to 'keys[i]', whose range is "
       "[-2147483648, 2147483647]"},
      {"the correction under '<= 0': b may be nbins",
       modKernel(Mod, "if (b <= 0) b += nbins;"), "[1, nbins]"},
      // b - nbins may overflow: the type's range.
      {"the wrong sign", modKernel(Mod, "b = b < 0 ? b - nbins : b;"),
       "[-2147483648, 2147483647]; line 4 sets 'b' to 'b < 0 ? b - nbins : b', whose range is "
       "[-2147483648, 2147483647]"},
      {"another assignment after the correction",
       modKernel(Mod, "if (b < 0) b += nbins;\n    b -= 1;"), "[-1, nbins - 2]"},
      {"the correction in a loop",
       modKernel(Mod, "while (b < 0) b += nbins;"),
       "[-2147483648, 2147483647]; 'b' is assigned in the loop at line 4"},
      {"abs of any int: abs(INT_MIN) is INT_MIN", modKernel("abs(keys[i]) % nbins", ""),
       "[-2147483646, nbins - 1]"},
      // keys[i] % nbins + nbins overflows an int for nbins above 2^30: the
      // range does not assume it does not.
      {"(v % nbins + nbins) % nbins", modKernel("(keys[i] % nbins + nbins) % nbins", ""),
       "[-2147483646, nbins - 1]"},
  };
  for (const SymbolicCase &C : Cases) {
    SCOPED_TRACE(C.What);
    EXPECT_EQ(symbolicOf(C.Code, "b", "nbins"), C.Range);
  }
  // Without 'nbins >= 1' the remainder is not bounded (nbins may be 0).
  EXPECT_EQ(symbolicOf(modKernel(Mod, "if (b < 0) b += nbins;"), "b", "nbins", INT32_MIN),
            "[-2147483648, 2147483647]; line 3 sets 'b' to 'keys[i] % nbins', whose range is "
            "[-2147483648, 2147483647]");
}

TEST(ValueRange, ARemainderByAConstantMadeNonNegative) {
  const SymbolicCase Cases[] = {
      {"if (b < 0) b += 64;", modKernel("keys[i] % 64", "if (b < 0) b += 64;"),
       "[0, 63]"},
      {"(v % 64 + 64) % 64", modKernel("(keys[i] % 64 + 64) % 64", ""), "[0, 63]"},
      {"((v % 64) + 64) % 64", modKernel("((keys[i] % 64) + 64) % 64", ""),
       "[0, 63]"},
      {"abs(v % 64)", modKernel("abs(keys[i] % 64)", ""), "[0, 63]"},
      {"abs(v) % 64: abs(INT_MIN) is INT_MIN", modKernel("abs(keys[i]) % 64", ""),
       "[-63, 63]"},
      {"(unsigned)v % 64", modKernel("(unsigned)keys[i] % 64", ""), "[0, 63]"},
      {"v & (M - 1), M a constexpr power of two",
       ("constexpr int M = 64;\n" + modKernel("keys[i] & (M - 1)", "")), "[0, 63]"},
      {"a subtraction where at least 64", modKernel("keys[i] & 127", "if (b >= 64) b -= 64;"),
       "[0, 63]"},
      {"a subtraction where above 64: b may be 64",
       modKernel("keys[i] & 127", "if (b > 64) b -= 64;"), "[0, 64]"},
      {"a non-positive dividend", modKernel("-(keys[i] & 1023) % 64", ""), "[-63, 0]"},
  };
  for (const SymbolicCase &C : Cases) {
    SCOPED_TRACE(C.What);
    EXPECT_EQ(rangeOf(C.Code, "b"), C.Range);
  }
  // A long long through abs(int): the conversion may give INT_MIN.
  const char *Wide = R"(__global__ void k(const long long *v, unsigned *h) {
  atomicAdd(&h[abs(v[threadIdx.x])], 1u);
  atomicAdd(&h[abs(v[threadIdx.x] % 64)], 1u);
})";
  EXPECT_EQ(rangeOf(Wide, "abs(v[threadIdx.x])"), "[-2147483648, 2147483647]");
  EXPECT_EQ(rangeOf(Wide, "abs(v[threadIdx.x] % 64)"), "[0, 63]");
}

} // namespace
