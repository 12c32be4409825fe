//===- StencilRegisterRowsTest.cpp - stencil-register-rows on many spellings ===//
//
// The 2D stencils the rule must rewrite (clamps as min/max and as
// if-assignments, zero padding with a filter buffer, a #define radius,
// literal offsets, a column stencil) and the ones it must refuse, each with
// its reason. The lit tests (test/passes/stencil-register-rows/) cover the
// command line and nvcc; test/gpu/rules/stencil-register-rows.cu the results.
//
//===----------------------------------------------------------------------===//
#include "RuleHarness.h"
#include "gtest/gtest.h"

using namespace forge;

namespace {

using forge::testing::has;
using Result = forge::testing::RuleRun;

/// The rule's proposals in one form: the whole window (the default), or
/// the streamed rows that follow them where the kernel has a loop over the
/// rows (Streamed).
Result run(const std::string &Code, std::array<int64_t, 3> Block = {16, 16, 1},
           bool Streamed = false) {
  forge::testing::RuleRunOptions O;
  O.Block = Block;
  O.Geometry = {{"grid.x", "ceil_div(W, 16)"}, {"grid.y", "ceil_div(H, 16)"}};
  Result All = forge::testing::runRule("stencil-register-rows", Code, "k", O);
  Result R;
  R.Skip = All.Skip;
  for (size_t I = 0; I < All.Proposals.size(); ++I) {
    bool S = llvm::StringRef(All.Proposals[I].Summary).starts_with("stream ");
    if (S != Streamed)
      continue;
    R.Proposals.push_back(All.Proposals[I]);
    if (I < All.Applied.size())
      R.Applied.push_back(All.Applied[I]);
  }
  return R;
}

struct RowsCase {
  const char *Name, *Code;
  /// The window's declaration for R = 4, and pieces every rewrite has.
  const char *Window4;
  std::vector<const char *> Pieces;
  /// The second proposal's rows: 8, or 2 where the window for 8 would be
  /// too large.
  int Second = 8;
};

const RowsCase RowsSpellings[] = {
    {"blur, min/max clamps", R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = s / 9.0f;
})",
     "float in_win[6][3];",
     {"in_win[i][j] = ", "s += in_win[r + dy + 1][dx + 1];",
      "int y = (blockIdx.y * 4) * blockDim.y + (threadIdx.y * 4 + r);", "if (x >= w || y >= h) return;"}},
    {"blur, if-assignment clamps", R"(__global__ void k(const float *src, float *dst, int width, int height) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < width && py < height) {
    float total = 0.0f;
    for (int oy = -1; oy <= 1; ++oy) {
      int sy = py + oy;
      if (sy < 0) sy = 0;
      if (sy > height - 1) sy = height - 1;
      for (int ox = -1; ox <= 1; ++ox) {
        int sx = min(max(px + ox, 0), width - 1);
        total += src[sy * width + sx];
      }
    }
    dst[py * width + px] = total * (1.0f / 9.0f);
  }
})",
     "float src_win[6][3];", {"total += src_win[r + oy + 1][ox + 1];"}},
    {"conv 3x3, zero padding, filter buffer",
     R"(__global__ void k(const float *in, const float *f, float *out, int h, int w) {
  int x = threadIdx.x + blockDim.x * blockIdx.x;
  int y = threadIdx.y + blockDim.y * blockIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += f[(i + 1) * 3 + (j + 1)] * in[yy * w + xx];
      }
    out[y * w + x] = acc;
  }
})",
     "float in_win[6][3];",
     {"acc += f_c[(i + 1) * 3 + (j + 1)] * in_win[r + i + 1][j + 1];", " ? in[", ": 0.0f;",
      "  float f_c[9];\n#pragma unroll\n  for (int c = 0; c < 9; ++c)\n    f_c[c] = f[c];\n"}},
    {"conv 5x5, #define radius, size_t index", R"(#define K 5
#define RAD (K / 2)
__global__ void k(const float *in, const float *filt, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -RAD; i <= RAD; ++i)
      for (int j = -RAD; j <= RAD; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += filt[(i + RAD) * K + (j + RAD)] * in[(size_t)yy * w + xx];
      }
    out[(size_t)y * w + x] = acc;
  }
})",
     "float in_win[8][5];", {"in_win[r + i + 2][j + 2]", "filt_c[(i + RAD) * K + (j + RAD)]"}},
    {"5-point stencil, literal offsets", R"(__global__ void k(const double *u, double *v, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1)
    v[j * nx + i] = u[(j - 1) * nx + i] + u[(j + 1) * nx + i] + u[j * nx + i - 1] +
                    u[j * nx + i + 1] - 4.0 * u[j * nx + i];
})",
     "double u_win[6][3];",
     {"u_win[r][1] + u_win[r + 2][1] + u_win[r + 1][0]", "u_win[r + 1][2] - 4.0 * u_win[r + 1][1]"}},
    {"column stencil (1D in y)", R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.f;
    for (int d = -2; d <= 2; ++d)
      s += in[min(max(y + d, 0), h - 1) * w + x];
    out[y * w + x] = s;
  }
})",
     "float in_win[8][1];", {"s += in_win[r + d + 2][0];"}},
    {"blur, the read one whole macro invocation", R"(#define PIX(xx, yy) img[min(max((yy), 0), h - 1) * w + min(max((xx), 0), w - 1)]
__global__ void k(const float *img, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += PIX(x + dx, y + dy);
  out[y * w + x] = s / 9.0f;
})",
     "float img_win[6][3];", {"s += img_win[r + dy + 1][dx + 1];"}},
};

TEST(StencilRegisterRows, RewritesEverySpelling) {
  for (const RowsCase &C : RowsSpellings) {
    SCOPED_TRACE(C.Name);
    Result R = run(C.Code);
    ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
    ASSERT_EQ(R.Proposals.size(), 2u);
    const std::string &A = R.Applied[0];
    EXPECT_TRUE(has(A, C.Window4)) << A;
    for (const char *P : C.Pieces)
      EXPECT_TRUE(has(A, P)) << P << "\n" << A;
    // Four rows per thread, each through the original body; the grid's y
    // shrinks four times, then eight (two with coefficients in registers).
    EXPECT_TRUE(has(A, "for (int r = 0; r < 4; ++r)")) << A;
    EXPECT_TRUE(has(A, "const long long row0 = 4 * (")) << A;
    ASSERT_TRUE(R.Proposals[0].Spec);
    EXPECT_EQ(R.Proposals[0].Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(H, 16), 4)");
    ASSERT_TRUE(R.Proposals[1].Spec);
    EXPECT_EQ(R.Proposals[1].Spec->Geometry.at("grid.y"),
              "ceil_div(ceil_div(H, 16), " + std::to_string(C.Second) + ")");
    EXPECT_TRUE(has(R.Applied[1], "for (int r = 0; r < " + std::to_string(C.Second) + "; ++r)"))
        << R.Applied[1];
  }
}

const char *Conv7 = R"(__global__ void k(const float *in, const float *f, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -3; i <= 3; ++i)
      for (int j = -3; j <= 3; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += f[(i + 3) * 7 + (j + 3)] * in[yy * w + xx];
      }
    out[y * w + x] = acc;
  }
})";

TEST(StencilRegisterRows, WideFootprintsTakeFewerRows) {
  Result R = run(R"(__global__ void k(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -3; i <= 3; ++i)
      for (int j = -3; j <= 3; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += in[yy * w + xx];
      }
    out[y * w + x] = acc;
  }
})");
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "float in_win[8][7];")) << R.Applied[0];
  EXPECT_TRUE(has(R.Applied[1], "float in_win[10][7];")) << R.Applied[1];
  EXPECT_EQ(R.Proposals[0].Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(H, 16), 2)");
}

TEST(StencilRegisterRows, LargeFiltersInRegistersAndInSharedMemory) {
  // 7 x 7 taps: a 10 x 7 (4 rows) or 8 x 7 (2 rows) window and the 49
  // coefficients fit the 128-register budget, so both row counts keep the
  // filter in registers; a third proposal, 4 rows within 96 registers,
  // stages it in shared memory before a barrier at the top of the body
  // (fewer registers, more resident warps): the loop measures which wins.
  Result R = run(Conv7);
  ASSERT_EQ(R.Applied.size(), 3u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "float in_win[10][7];")) << R.Applied[0];
  EXPECT_TRUE(has(R.Applied[0], "float f_c[49];")) << R.Applied[0];
  EXPECT_TRUE(has(R.Applied[1], "float in_win[8][7];")) << R.Applied[1];
  EXPECT_TRUE(has(R.Applied[1], "float f_c[49];")) << R.Applied[1];
  EXPECT_EQ(R.Proposals[1].Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(H, 16), 2)");
  const std::string &A = R.Applied[2];
  EXPECT_TRUE(has(A, "float in_win[10][7];")) << A;
  EXPECT_TRUE(has(A, "  __shared__ float f_s[49];\n"
                     "  for (int c = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
                     "threadIdx.z); c < 49;\n"
                     "       c += blockDim.x * blockDim.y * blockDim.z)\n"
                     "    f_s[c] = f[c];\n"
                     "  __syncthreads();\n"))
      << A;
  EXPECT_TRUE(has(A, "acc += f_s[(i + 3) * 7 + (j + 3)] * in_win[r + i + 3][j + 3];")) << A;
  EXPECT_EQ(R.Proposals[2].Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(H, 16), 4)");
  EXPECT_TRUE(has(R.Proposals[0].Summary, "coefficients 'f' (49 values) in registers"))
      << R.Proposals[0].Summary;
  EXPECT_TRUE(has(R.Proposals[2].Summary, "coefficients 'f' (49 values) in shared memory"))
      << R.Proposals[2].Summary;
  EXPECT_TRUE(has(R.Proposals[2].Rationale, "(49 loads per output")) << R.Proposals[2].Rationale;
}

TEST(StencilRegisterRows, SeparableFiltersBothInRegisters) {
  Result R = run(R"(__global__ void k(const float *in, const float *fx, const float *fy, float *out,
                  int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -3; i <= 3; ++i) {
      int yy = y + i;
      if (yy < 0 || yy >= h)
        continue;
      float row = 0.0f;
      for (int j = -3; j <= 3; ++j) {
        int xx = x + j;
        if (xx >= 0 && xx < w)
          row += fx[j + 3] * in[(size_t)yy * w + xx];
      }
      acc += fy[i + 3] * row;
    }
    out[(size_t)y * w + x] = acc;
  }
})");
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  const std::string &A = R.Applied[0];
  EXPECT_TRUE(has(A, "float fx_c[7];")) << A;
  EXPECT_TRUE(has(A, "float fy_c[7];")) << A;
  EXPECT_TRUE(has(A, "row += fx_c[j + 3] * in_win[r + i + 3][j + 3];")) << A;
  EXPECT_TRUE(has(A, "acc += fy_c[i + 3] * row;")) << A;
  EXPECT_FALSE(has(A, "__syncthreads")) << A;
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "(56 loads per output")) << R.Proposals[0].Rationale;
}

/// The text between Begin and End in S (empty when either is missing).
std::string between(const std::string &S, const std::string &Begin, const std::string &End) {
  size_t B = S.find(Begin);
  if (B == std::string::npos)
    return "";
  size_t E = S.find(End, B + Begin.size());
  return E == std::string::npos ? "" : S.substr(B, E - B);
}

TEST(StencilRegisterRows, InteriorThreadsSkipTheBorderTests) {
  // Zero padding: the four tests bound the element read, so a thread whose
  // window lies inside them runs a copy with them replaced by their values
  // (the early exit's `||` as false); the thread's own guard stays.
  Result R = run(R"(__global__ void k(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -1; i <= 1; ++i) {
      int yy = y + i;
      if (yy < 0 || yy >= h)
        continue;
      for (int j = -2; j <= 2; ++j) {
        int xx = x + j;
        acc += (xx >= 0 && xx < w) ? in[yy * w + xx] : 0.0f;
      }
    }
    out[y * w + x] = acc;
  }
})");
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  const std::string &A = R.Applied[0];
  EXPECT_TRUE(has(A, "const bool interior = (row0 - 1) >= 0 && (row0 - 1) + 5 <= (long long)h - 1 && "
                     "((long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x - 2) >= 0 && "
                     "((long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x + 2) <= "
                     "(long long)w - 1;"))
      << A;
  std::string Inside = between(A, "if (interior) {", "} else {");
  std::string Border = between(A, "} else {", "\n}");
  ASSERT_FALSE(Inside.empty()) << A;
  ASSERT_FALSE(Border.empty()) << A;
  EXPECT_TRUE(has(Inside, "if (((void)(yy < 0), false) || ((void)(yy >= h), false))")) << Inside;
  EXPECT_TRUE(has(Inside, "acc += (((void)(xx >= 0), true) && ((void)(xx < w), true)) ? "
                             "in_win[r + i + 1][j + 2] : 0.0f;"))
      << Inside;
  EXPECT_TRUE(has(Inside, "in_win[i2][j2] = in[e1 * w + e0];")) << Inside;
  EXPECT_TRUE(has(Inside, "if (x < w && y < h)")) << Inside;
  EXPECT_TRUE(has(Border, "if (yy < 0 || yy >= h)")) << Border;
  EXPECT_TRUE(has(Border, "acc += (xx >= 0 && xx < w) ? in_win[r + i + 1][j + 2] : 0.0f;"))
      << Border;
  EXPECT_TRUE(has(R.Proposals[0].Summary, "interior threads without the 4 border test(s)"))
      << R.Proposals[0].Summary;
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "'yy < 0'")) << R.Proposals[0].Rationale;
}

TEST(StencilRegisterRows, InteriorOfLiteralNeighbours) {
  // Explicit neighbours with a `?:` test each and the thread's own early
  // exit: each test bounds some read's element, so the interior copy takes
  // all six as known; of the bounds on one side (`col < nx` gives e0 <= nx
  // for the read at col + 1, `col < nx - 1` e0 <= nx - 1) only the tightest
  // is tested.
  Result R = run(R"(__global__ void k(const float *u, float *out, int nx, int ny, float c) {
  const int col = threadIdx.x + blockIdx.x * blockDim.x;
  const int row = threadIdx.y + blockIdx.y * blockDim.y;
  if (col >= nx || row >= ny) return;
  const size_t idx = (size_t)row * nx + col;
  float n = row > 0 ? u[idx - nx] : 0.0f;
  float s = row + 1 < ny ? u[idx + nx] : 0.0f;
  float wv = col > 0 ? u[idx - 1] : 0.0f;
  float e = (col < nx - 1) ? u[idx + 1] : 0.0f;
  out[idx] = c * (n + s + wv + e - 4.0f * u[idx]);
})");
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  const std::string &A = R.Applied[0];
  EXPECT_TRUE(has(A, "const bool interior = (row0 - 1) >= 0 && (row0 - 1) + 5 <= (long long)ny - 1 && "
                     "((long long)threadIdx.x + (long long)blockIdx.x * (long long)blockDim.x - 1) >= 0 && "
                     "((long long)threadIdx.x + (long long)blockIdx.x * (long long)blockDim.x + 1) <= "
                     "(long long)nx - 1;"))
      << A;
  std::string Inside = between(A, "if (interior) {", "} else {");
  EXPECT_TRUE(has(Inside, "if (((void)(col >= nx), false) || ((void)(row >= ny), false)) return;"))
      << Inside;
  EXPECT_TRUE(has(Inside, "float e = ((void)((col < nx - 1)), true) ? u_win[r + 1][2] : 0.0f;"))
      << Inside;
  EXPECT_TRUE(has(R.Proposals[0].Summary, "interior threads without the 6 border test(s)"))
      << R.Proposals[0].Summary;
}

TEST(StencilRegisterRows, BorderTestsThatStayInTheInterior) {
  // Tests the interior copy must not take as known: unsigned comparisons
  // (a negative coordinate compares as huge), a test kept in a bool that is
  // also stored, and a clamped border (nothing to replace: the reads become
  // window elements, and there is no interior copy).
  Result U = run(R"(__global__ void k(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j) {
        unsigned yy = y + i, xx = x + j;
        if (yy < (unsigned)h && xx < (unsigned)w)
          acc += in[yy * w + xx];
      }
    out[y * w + x] = acc;
  }
})");
  ASSERT_FALSE(U.Applied.empty()) << U.Skip;
  for (const std::string &A : U.Applied)
    EXPECT_FALSE(has(A, "interior")) << A;
  Result B = run(R"(__global__ void k(const float *in, float *out, int *mask, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    int inside = 0;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j) {
        int yy = y + i, xx = x + j;
        bool ok = yy >= 0 && yy < h && xx >= 0 && xx < w;
        inside += ok;
        if (ok)
          acc += in[yy * w + xx];
      }
    out[y * w + x] = acc;
    mask[y * w + x] = inside;
  }
})");
  ASSERT_FALSE(B.Applied.empty()) << B.Skip;
  for (const std::string &A : B.Applied) {
    EXPECT_FALSE(has(A, "true")) << A;
    EXPECT_TRUE(has(A, "bool ok = yy >= 0 && yy < h && xx >= 0 && xx < w;")) << A;
  }
  // A test written through a macro stays a test (the copy rewrites text);
  // the rule still applies.
  Result Mac = run(R"(#define INSIDE(r, c) ((r) >= 0 && (r) < h && (c) >= 0 && (c) < w)
__global__ void k(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j)
        if (INSIDE(y + i, x + j))
          acc += in[(y + i) * w + x + j];
    out[y * w + x] = acc;
  }
})");
  ASSERT_FALSE(Mac.Applied.empty()) << Mac.Skip;
  for (const std::string &A : Mac.Applied) {
    EXPECT_FALSE(has(A, "interior")) << A;
    EXPECT_TRUE(has(A, "if (INSIDE(y + i, x + j))")) << A;
  }
  Result C = run(RowsSpellings[0].Code);
  ASSERT_FALSE(C.Applied.empty()) << C.Skip;
  for (const std::string &A : C.Applied)
    EXPECT_FALSE(has(A, "interior")) << A;
}

TEST(StencilRegisterRows, CoefficientsNotStaged) {
  // The output is stored before the filter is read: the stores may alias
  // it, so the reads stay (and the rationale says why), unless the filter
  // is __restrict__.
  std::string Code = R"(__global__ void k(const float *in, const float *FILT, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    out[y * w + x] = 0.0f;
    float acc = 0.0f;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += FILT[(i + 1) * 3 + (j + 1)] * in[yy * w + xx];
      }
    out[y * w + x] = acc;
  }
})";
  auto With = [&](const char *Filt) {
    std::string C = Code;
    C.replace(C.find("const float *FILT"), 17, Filt);
    for (size_t P; (P = C.find("FILT[")) != std::string::npos;)
      C.replace(P, 4, "f");
    return C;
  };
  Result R = run(With("const float *f"));
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "acc += f[(i + 1) * 3 + (j + 1)]")) << R.Applied[0];
  EXPECT_TRUE(has(R.Proposals[0].Rationale,
                  "Coefficients not staged: 'f': 'out[y * w + x]' (line 5) comes before "
                  "'f[(i + 1) * 3 + (j + 1)]' (line 11), and 'f' is not __restrict__"))
      << R.Proposals[0].Rationale;
  R = run(With("const float *__restrict__ f"));
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "acc += f_c[(i + 1) * 3 + (j + 1)]")) << R.Applied[0];
  // A filter the kernel writes is no coefficient buffer.
  R = run(R"(__global__ void k(const float *in, float *f, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += f[(i + 1) * 3 + (j + 1)] * in[yy * w + xx];
      }
    out[y * w + x] = acc;
    if (x == 0 && y == 0) f[4] = acc;
  }
})");
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_FALSE(has(R.Applied[0], "f_c")) << R.Applied[0];
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "Coefficients not staged: 'f': the kernel writes it"))
      << R.Proposals[0].Rationale;
}

TEST(StencilRegisterRows, Preconditions) {
  auto Skip = [](const char *Code) {
    Result R = run(Code);
    EXPECT_TRUE(R.Proposals.empty());
    return R.Skip;
  };
  // The footprint's size is a run-time value.
  std::string Why = Skip(R"(__global__ void k(const float *in, float *out, int w, int h, int rad) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -rad; dy <= rad; ++dy)
    s += in[min(max(y + dy, 0), h - 1) * w + x];
  out[y * w + x] = s;
})");
  EXPECT_TRUE(has(Why, "is not a compile-time constant: the register window's size must be one"))
      << Why;
  // Reads that are arguments of a macro whose body expands each argument
  // once are replaced in the invocation (EditCollector::rangeOf)...
  {
    Result R = run(R"(#define SUM3(a, b, c) ((a) + (b) + (c))
__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y < 1 || y >= h - 1) return;
  out[y * w + x] = SUM3(in[(y - 1) * w + x], in[y * w + x], in[(y + 1) * w + x]);
})");
    ASSERT_FALSE(R.Applied.empty()) << R.Skip;
    EXPECT_FALSE(has(R.Applied[0], "SUM3(in[")) << R.Applied[0];
    EXPECT_TRUE(has(R.Applied[0], "SUM3(in_win[r][0], in_win[r + 1][0], in_win[r + 2][0])"))
        << R.Applied[0];
  }
  // ... but reads in an argument expanded twice have no range to replace.
  Why = Skip(R"(#define SUM3(a, b, c) (0.5f * ((a) + (b) + (c)) + 0.5f * ((a) + (b) + (c)))
__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y < 1 || y >= h - 1) return;
  out[y * w + x] = SUM3(in[(y - 1) * w + x], in[y * w + x], in[(y + 1) * w + x]);
})");
  EXPECT_TRUE(has(Why, "macro")) << Why;
  // A data-dependent offset.
  Why = Skip(R"(__global__ void k(const float *in, const int *off, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[min(max(y + off[x], 0), h - 1) * w + x];
})");
  EXPECT_FALSE(Why.empty());
  // A window of more than 128 values for the fewest rows.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -6; dy <= 6; ++dy)
    for (int dx = -6; dx <= 6; ++dx)
      s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = s;
})");
  EXPECT_TRUE(has(Why, "a window of 14 x 13 values for 2 rows per thread is more than the 128"))
      << Why;
  // A row stencil along x only: no rows share anything.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= n) return;
  out[x] = in[max(x - 1, 0)] + in[x] + in[min(x + 1, n - 1)];
})");
  EXPECT_TRUE(has(Why, "moves with threadIdx.y")) << Why;
  // A row blur over an image: rows of outputs share no input.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + max(x - 1, 0)] + in[y * w + x] + in[y * w + min(x + 1, w - 1)];
})");
  EXPECT_TRUE(has(Why, "reads no neighbouring rows")) << Why;
  // The body synchronises.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0.f;
  if (x < w && y < h)
    for (int dy = -1; dy <= 1; ++dy)
      s += in[min(max(y + dy, 0), h - 1) * w + x];
  __syncthreads();
  if (x < w && y < h) out[y * w + x] = s;
})");
  EXPECT_TRUE(has(Why, "synchronises")) << Why;
  // A read of the input outside the footprint.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    s += in[min(max(y + dy, 0), h - 1) * w + x];
  out[y * w + x] = s * in[0];
})");
  EXPECT_TRUE(has(Why, "outside the stencil's footprint")) << Why;
  // threadIdx.y used other than in the row.
  Why = Skip(R"(__global__ void k(const float *in, float *out, float *first, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    s += in[min(max(y + dy, 0), h - 1) * w + x];
  out[y * w + x] = s;
  if (threadIdx.y == 0) first[blockIdx.y * w + x] = s;
})");
  EXPECT_TRUE(has(Why, "'threadIdx.y' (line 9) is used other than in the row")) << Why;
  // The 3D 7-point star: a window over its 3 x 3 x 3 hull would load more
  // than its outputs read.
  Why = Skip(R"(__global__ void k(const double *u, double *v, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1) {
    int c = (k * ny + j) * nx + i;
    v[c] = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + u[c - nx * ny] + u[c + nx * ny] -
           6.0 * u[c];
  }
})");
  EXPECT_TRUE(has(Why, "loads more than the 28 reads of its outputs (7 per output)")) << Why;
}

// The 3D form: a box over 3D blocks gets R planes per thread along
// threadIdx.z from a planes x rows x columns window, grid.z divided; its
// refusals name the plane.
TEST(StencilRegisterRows, Planes) {
  const std::string Box = R"(__global__ void k(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= nx || j >= ny || k >= nz) return;
  float s = 0.f;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        s += in[(min(max(k + dz, 0), nz - 1) * ny + min(max(j + dy, 0), ny - 1)) * nx +
                min(max(i + dx, 0), nx - 1)];
  out[(k * ny + j) * nx + i] = s;
})";
  forge::testing::RuleRunOptions O;
  O.Block = {32, 4, 4};
  O.Geometry = {{"grid.x", "ceil_div(NX, 32)"}, {"grid.y", "ceil_div(NY, 4)"},
                {"grid.z", "ceil_div(NZ, 4)"}};
  Result R = forge::testing::runRule("stencil-register-rows", Box, "k", O);
  ASSERT_EQ(R.Proposals.size(), 2u) << R.Skip;
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Proposals[0].Summary, "compute 2 output planes per thread from a 4 x 3 x 3 "
                                          "register window of 'in'"))
      << R.Proposals[0].Summary;
  EXPECT_TRUE(has(R.Applied[1], "float in_win[6][3][3];")) << R.Applied[1];
  EXPECT_TRUE(has(R.Applied[1], "int k = (blockIdx.z * 4) * blockDim.z + (threadIdx.z * 4 + r);"))
      << R.Applied[1];
  EXPECT_TRUE(has(R.Applied[1], "s += in_win[r + dz + 1][dy + 1][dx + 1];")) << R.Applied[1];
  // y is not remapped in the 3D form.
  EXPECT_TRUE(has(R.Applied[1], "int j = blockIdx.y * blockDim.y + threadIdx.y;")) << R.Applied[1];
  EXPECT_EQ(R.Proposals[1].Spec->Geometry.at("grid.z"), "ceil_div(ceil_div(NZ, 4), 4)");
  EXPECT_EQ(R.Proposals[1].Spec->Geometry.count("grid.y"), 0u);
  // Without the spec's grid.z.
  O.Geometry.erase("grid.z");
  Result NoGrid = forge::testing::runRule("stencil-register-rows", Box, "k", O);
  EXPECT_TRUE(NoGrid.Proposals.empty());
  EXPECT_TRUE(has(NoGrid.Skip, "the spec's grid.z is not known")) << NoGrid.Skip;
  // threadIdx.z beside the plane.
  std::string Tagged = Box;
  Tagged.replace(Tagged.find("out[(k * ny + j) * nx + i] = s;"),
                 std::string("out[(k * ny + j) * nx + i] = s;").size(),
                 "out[(k * ny + j) * nx + i] = s + threadIdx.z;");
  O.Geometry["grid.z"] = "ceil_div(NZ, 4)";
  Result Z = forge::testing::runRule("stencil-register-rows", Tagged, "k", O);
  EXPECT_TRUE(Z.Proposals.empty());
  EXPECT_TRUE(has(Z.Skip, "'threadIdx.z' (line 12) is used other than in the plane")) << Z.Skip;
}

} // namespace

// The streaming form: the shapes it takes (an early return inside the
// thread's guard, a constant before the loop) and the
// reasons it gives where the kernel's reads are not one row per iteration
// of one loop over the rows.
TEST(StencilRegisterRows, StreamsTheRowLoop) {
  Result R = run(R"(__global__ void k(const float *in, float *out, int w, int h) {
  const int K = 2;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    if (x == 0) return;
    float s = 0.f;
    for (int dy = -K; dy <= K; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
    out[y * w + x] = s;
  }
})",
                 {16, 16, 1}, /*Streamed=*/true);
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  const std::string &A = R.Applied[0];
  EXPECT_TRUE(has(R.Proposals[0].Summary, "into 8 x 2 outputs per thread")) << R.Proposals[0].Summary;
  EXPECT_TRUE(has(R.Proposals[1].Summary, "into 4 x 2 outputs per thread")) << R.Proposals[1].Summary;
  // The constant once; the locals per output; the early return clears the
  // output's flags at both levels.
  EXPECT_TRUE(has(A, "  const int K = 2;\n")) << A;
  EXPECT_TRUE(has(A, "float s_s[8][2];")) << A;
  EXPECT_TRUE(has(A, "act2[o][c] = act[o][c] = false;") || has(A, "act[o][c] = act2[o][c] = false;"))
      << A;
  EXPECT_TRUE(has(A, "const int dy = rr - o - 2;")) << A;
  EXPECT_TRUE(has(A, "if (dy >= -2 && dy <= 2) {")) << A;
  EXPECT_TRUE(has(A, "s_s[o][c] += src_row[c + dx + 1];") || has(A, "s_s[o][c] += in_row[c + dx + 1];"))
      << A;
  ASSERT_TRUE(R.Proposals[0].Spec.has_value());
  EXPECT_EQ(R.Proposals[0].Spec->Geometry.at("grid.x"), "ceil_div(ceil_div(W, 16), 2)");
  EXPECT_EQ(R.Proposals[0].Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(H, 16), 8)");
}

TEST(StencilRegisterRows, NotStreamedWithTheReason) {
  struct Case {
    const char *Name, *Code, *Reason;
  } Cases[] = {
      {"two rows per iteration", R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.f;
    for (int dy = -1; dy <= 0; ++dy)
      s += in[min(max(y + dy, 0), h - 1) * w + x] + in[min(max(y + dy + 1, 0), h - 1) * w + x];
    out[y * w + x] = s;
  }
})",
       "are at more than one row offset in one iteration of the loop over the rows"},
      {"counts down", R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.f;
    for (int dy = 1; dy >= -1; --dy)
      s += in[min(max(y + dy, 0), h - 1) * w + x];
    out[y * w + x] = s;
  }
})",
       "counts down"},
      {"exit after the loop", R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.f;
    for (int dy = -1; dy <= 1; ++dy)
      s += in[min(max(y + dy, 0), h - 1) * w + x];
    if (s > 0.f) return;
    out[y * w + x] = s;
  }
})",
       "after the loop over 'dy', may leave the kernel or a loop"},
      {"an else branch", R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float s = 0.f;
    for (int dy = -1; dy <= 1; ++dy)
      s += in[min(max(y + dy, 0), h - 1) * w + x];
    out[y * w + x] = s;
  } else {
    return;
  }
})",
       "which has an else branch or a declaration"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Name);
    Result Whole = run(C.Code);
    ASSERT_FALSE(Whole.Proposals.empty()) << Whole.Skip;
    EXPECT_TRUE(has(Whole.Proposals[0].Rationale, "Not streamed: ")) << Whole.Proposals[0].Rationale;
    EXPECT_TRUE(has(Whole.Proposals[0].Rationale, C.Reason)) << Whole.Proposals[0].Rationale;
    EXPECT_TRUE(run(C.Code, {16, 16, 1}, /*Streamed=*/true).Proposals.empty());
  }
}
