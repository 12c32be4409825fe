//===- HistogramPrivatizeTest.cpp - histogram-privatize on many shapes ----===//
//
// The rule on a table of naive histograms parsed against the mock CUDA
// headers: how the bins index is bounded (the loaded type, `% nbins` with a
// parameter, `& mask`, `min`, a guard, `>>`), the launch shape (grid-stride,
// one element per thread, early return, 2D), the operation (add, float add,
// max, or) and the counter type; what each rewrite contains, whether it
// caps the grid or sets the dynamic shared memory; and the reason of each
// refusal. The lit tests (test/passes/histogram-privatize/) cover the
// command line, the real CUDA headers and nvcc.
//
//===----------------------------------------------------------------------===//
#include "RuleHarness.h"
#include "forge/Measure/LaunchSpec.h"
#include "gtest/gtest.h"

using namespace forge;
using forge::testing::has;

namespace {

forge::testing::RuleRun run(const std::string &Code, const std::string &Kernel,
                            const measure::LaunchSpec *Spec = nullptr,
                            std::map<std::string, std::string> Geometry = {
                                {"grid.x", "ceil_div(N, 256)"}, {"block.x", "256"}}) {
  forge::testing::RuleRunOptions O;
  O.Block = {{256, 1, 1}};
  O.Geometry = std::move(Geometry);
  O.SmCount = 132;
  O.Spec = Spec;
  return forge::testing::runRule("histogram-privatize", Code, Kernel, O);
}

measure::LaunchSpec specWith(const std::string &Scalars) {
  std::string Text = R"J({"kernel": "k", "sizes": {"N": 1000, "NB": 1000},
    "buffers": [{"name": "bins", "dtype": "u32", "count": "NB", "role": "inout",
                 "init": {"kind": "constant", "value": 0}}],
    "scalars": [)J" + Scalars + R"J(], "args": ["bins", "nbins"], "grid": "ceil_div(N, 256)", "block": 256})J";
  auto S = measure::parseLaunchSpec(Json::parse(Text), "test.json");
  EXPECT_TRUE(bool(S)) << forge::testing::err(S.takeError());
  return S ? *S : measure::LaunchSpec();
}

struct Positive {
  const char *Name;
  const char *Code;
  /// Pieces the (first) rewrite must contain.
  std::vector<const char *> Pieces;
  bool CapsGrid;
  /// A lane-copies variant is proposed too (the first proposal).
  bool Lanes;
  /// The 16-byte-load variants come first (with lane copies, with one
  /// copy), then the scalar copy; the pieces are those of the scalar copy
  /// (always the last proposal), and VecPieces those of the first.
  std::vector<const char *> VecPieces = {};
};

const Positive Positives[] = {
    {"bytes, grid-stride while (the bench kernel)",
     R"(__global__ void k(const unsigned char *data, unsigned int *bins, long long count) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long step = (long long)blockDim.x * gridDim.x;
  while (idx < count) {
    atomicAdd(&bins[data[idx]], 1u);
    idx += step;
  }
})",
     {"__shared__ unsigned int forge_hist[256];", "atomicAdd(&forge_hist[data[idx]], 1u);",
      "for (int forge_j = forge_t; forge_j < 256; forge_j += forge_nt)",
      "atomicAdd(&bins[forge_j], forge_c);"},
     true, true,
     {"__shared__ unsigned int forge_hist[256][32];", "const int forge_w = forge_t % 32;",
      "auto forge_e = [&](unsigned char forge_v0) {\n      atomicAdd(&forge_hist[forge_v0][forge_w], 1u);\n    };",
      // The flush reads a bin's copies rotated by the bin (distinct banks).
      "unsigned int forge_c = forge_hist[forge_j][forge_j % 32];",
      "forge_c = forge_c + forge_hist[forge_j][(forge_j + forge_r) % 32];",
      "long long forge_h = (long long)((16 - ((unsigned long long)data & 15)) & 15) / 1;",
      "forge_h = forge_h < forge_n ? forge_h : forge_n;",
      "long long forge_m = (forge_n - forge_h) / 16;",
      "for (long long forge_i = forge_g; forge_i < forge_h; forge_i += forge_s)\n      forge_e(data[forge_i]);",
      "const uint4 forge_q0_0 = reinterpret_cast<const uint4 *>(data + forge_h)[forge_k];",
      "forge_e((unsigned char)forge_q0_0.x);", "forge_e((unsigned char)(forge_q0_0.w >> 24));",
      "for (long long forge_i = forge_h + forge_m * 16 + forge_g; forge_i < forge_n; forge_i += forge_s)"}},
    {"one element per thread under if (i < n), int bins",
     R"(__global__ void k(const unsigned char *in, int *hist, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    atomicAdd(&hist[in[i]], 1);
})",
     {"__shared__ int forge_hist[256];", "atomicAdd(&forge_hist[in[i]], 1);",
      "atomicAdd(&hist[forge_j], forge_c);"},
     true, true,
     // The guard becomes a grid-stride loop (capped) over the same elements.
     {"auto forge_e = [&](unsigned char forge_v0) {atomicAdd(&forge_hist[forge_v0][forge_w], 1); };",
      "const long long forge_n = n;", "forge_e((unsigned char)(forge_q0_0.z >> 16));"}},
    {"16-bit keys into 1024 bins through a local, for loop",
     R"(__global__ void k(const unsigned short *keys, unsigned *bins, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x) {
    unsigned short key = keys[i];
    atomicAdd(&bins[key & 1023], 1u);
  }
})",
     {"__shared__ unsigned int forge_hist[1024];", "atomicAdd(&forge_hist[key & 1023], 1u);"}, true,
     true,
     // 1024 bins: 8 copies fit in 48 KiB (lanes l and l + 8 share one).
     {"__shared__ unsigned int forge_hist[1024][8];", "const int forge_w = forge_t % 8;",
      "auto forge_e = [&](unsigned short forge_v0) {",
      "unsigned short key = forge_v0;",
      "long long forge_h = (long long)((16 - ((unsigned long long)keys & 15)) & 15) / 2;",
      "long long forge_m = (forge_n - forge_h) / 8;",
      "forge_e((unsigned short)(forge_q0_0.w >> 16));",
      "for (long long forge_i = forge_h + forge_m * 8 + forge_g; forge_i < forge_n; forge_i += forge_s)"}},
    {"weighted float bins of byte keys: two buffers, one head",
     R"(__global__ void k(const unsigned char *key, const float *w, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[key[i]], w[i]);
})",
     {"__shared__ float forge_hist[256];", "atomicAdd(&forge_hist[key[i]], w[i]);"}, true, true,
     {"auto forge_e = [&](unsigned char forge_v0, float forge_v1) {",
      "if (forge_m < 0 || ((unsigned long long)(w + forge_h) & 15) != 0)",
      "const uint4 forge_q1_3 = reinterpret_cast<const uint4 *>(w + forge_h)[forge_k * 4 + 3];",
      "forge_e((unsigned char)(forge_q0_0.w >> 24), __uint_as_float(forge_q1_3.w));",
      "forge_e(key[forge_i], w[forge_i]);"}},
    {"bytes % 64 after an early return",
     R"(__global__ void k(const unsigned char *d, unsigned *bins, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned b = d[i] % 64;
  atomicAdd(&bins[b], 1u);
})",
     // Without the 16-byte path the body runs per virtual block, its return
     // ending the block's part.
     {"__shared__ unsigned int forge_hist[64];", "auto forge_block = [&](unsigned forge_bx) {",
      "const int i = forge_bx * blockDim.x + threadIdx.x;", "    return;\n"},
     true, true,
     {"unsigned b = forge_v0 % 64;", "atomicAdd(&forge_hist[b][forge_w], 1u);",
      "const long long forge_n = n;"}},
    {"min(v, 63) through a local, pointer arithmetic, early return",
     R"(__global__ void k(const unsigned *v, unsigned long long *h, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  unsigned b = min(v[i], 63u);
  atomicAdd(h + b, 1ull);
})",
     {"__shared__ unsigned long long forge_hist[64];", "if (i >= n) return;",
      "atomicAdd(forge_hist + b, 1ull);", "atomicAdd(&h[forge_j], forge_c);",
      "for (long long forge_vb = (long long)blockIdx.x; forge_vb < forge_blocks_x; forge_vb += "
      "forge_grid_blocks)\n      forge_block((unsigned)forge_vb);"},
     true, true,
     // 4-byte elements come 16 bytes (four) per thread per iteration too.
     {"const uint4 forge_q0_0 = reinterpret_cast<const uint4 *>(v + forge_h)[forge_k];",
      "forge_e((unsigned int)forge_q0_0.w);"}},
    {"weighted float histogram with & 127",
     R"(__global__ void k(const int *key, const float *w, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[key[i] & 127], w[i]);
})",
     {"__shared__ float forge_hist[128];", "atomicAdd(&forge_hist[key[i] & 127], w[i]);"},
     true, true,
     {"auto forge_e = [&](int forge_v0, float forge_v1) {",
      "forge_e((int)forge_q0_0.y, __uint_as_float(forge_q1_0.y));"}},
    {"a guard 0 <= v < 100 on a signed value",
     R"(__global__ void k(const int *data, int *h, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int v = data[i];
    if (v >= 0 && v < 100)
      atomicAdd(&h[v], 1);
  }
})",
     {"__shared__ int forge_hist[100];", "atomicAdd(&forge_hist[v], 1);"}, true, true,
     {"int v = forge_v0;", "forge_e((int)forge_q0_0.z);"}},
    {"atomicMax on int, identity INT_MIN, combined with max",
     R"(__global__ void k(const int *key, const int *val, int *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(&m[key[i] & 255], val[i]);
})",
     {"forge_hist[forge_j] = (int)(-2147483647 - 1);", "if (forge_c != (int)(-2147483647 - 1))",
      "atomicMax(&m[forge_j], forge_c);"},
     true, true,
     {"atomicMax(&forge_hist[forge_v0 & 255][forge_w], forge_v1);",
      "forge_e((int)forge_q0_0.x, (int)forge_q1_0.x);"}},
    {"atomicOr of bits, a shift of a 32-bit key",
     R"(__global__ void k(const unsigned *key, int *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicOr(&flags[key[i] >> 24], 1 << (key[i] & 31));
})",
     {"__shared__ int forge_hist[256];", "atomicOr(&flags[forge_j], forge_c);"}, true,
     true,
     {"atomicOr(&forge_hist[forge_v0 >> 24][forge_w], 1 << (forge_v0 & 31));",
      "forge_e((unsigned int)forge_q0_0.w);"}},
    {"the count through a __device__ wrapper, for (;;) with a break",
     R"(__device__ void bump(unsigned *bin) { atomicAdd(bin, 1u); }
__global__ void k(const unsigned char *data, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (;; i += gridDim.x * blockDim.x) {
    if (i >= n) break;
    bump(&bins[data[i]]);
  }
})",
     {"__shared__ unsigned int forge_hist[256];", "bump(&forge_hist[data[i]]);",
      "atomicAdd(&bins[forge_j], forge_c);"},
     false, true},
    {"atomicInc with the limit 0xffffffff, flushed with atomicAdd",
     R"(__global__ void k(const unsigned char *data, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicInc(&bins[data[i]], 0xffffffffu);
})",
     {"__shared__ unsigned int forge_hist[256];", "atomicInc(&forge_hist[data[i]], 0xffffffffu);",
      "atomicAdd(&bins[forge_j], forge_c);"},
     true, true,
     {"atomicInc(&forge_hist[forge_v0][forge_w], 0xffffffffu);",
      "const uint4 forge_q0_0 = reinterpret_cast<const uint4 *>(data + forge_h)[forge_k];"}},
};

// One element per thread in a 2D launch: the guard bounds blockIdx.x and
// blockIdx.y, the blocks become a loop (x fastest), and the grid is one
// capped dimension.
TEST(HistogramPrivatize, VirtualBlocksCapA2DGrid) {
  const char *Code = R"(__global__ void k(const unsigned char *img, size_t pitch, int w, int h,
                  unsigned *levels) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= w || row >= h)
    return;
  atomicAdd(levels + (img[row * pitch + col] >> 2), 1u);
})";
  auto R = run(Code, "k", nullptr,
               {{"grid.x", "ceil_div(W, 32)"}, {"grid.y", "ceil_div(H, 8)"}, {"block.x", "32"},
                {"block.y", "8"}});
  // Two 16-byte variants over the rows (RowsOfA2DGridIn16ByteLoads), then
  // the scalar copy over virtual blocks.
  ASSERT_EQ(R.Proposals.size(), 3u) << R.Skip;
  for (size_t I = 2; I < 3; ++I) {
    const agent::Proposal &P = R.Proposals[I];
    EXPECT_TRUE(has(P.Summary, "the guard's blocks strided over a capped grid")) << P.Summary;
    ASSERT_TRUE(P.Spec);
    EXPECT_EQ(P.Spec->Geometry.at("grid.x"),
              "min((ceil_div(W, 32)) * (ceil_div(H, 8)), 132 * FORGE_GRID_WAVES * 8)");
    EXPECT_EQ(P.Spec->Geometry.at("grid.y"), "1");
    // 64 bins: a light flush, four waves first.
    EXPECT_EQ(P.Spec->NewTunables.at("FORGE_GRID_WAVES").front(), 4);
    EXPECT_TRUE(has(P.Spec->Justification, "'col < w' and 'row < h'")) << P.Spec->Justification;
    const std::string &A = R.Applied[I];
    EXPECT_TRUE(has(A, "int row = forge_by * blockDim.y + threadIdx.y;")) << A;
    EXPECT_TRUE(has(A, "const long long forge_limit_y = (long long)h;")) << A;
    // The early return stays: it ends the virtual block's part.
    EXPECT_TRUE(has(A, "    if (col >= w || row >= h)\n      return;")) << A;
    EXPECT_FALSE(has(A, "if (!(")) << A;
  }
}

// A 2D guard on the column and the row, with loads at 'row * pitch +
// column': the rows are read in 16-byte loads, each row from its own
// 16-byte boundary, the whole grid striding over (row, step) pairs.
TEST(HistogramPrivatize, RowsOfA2DGridIn16ByteLoads) {
  std::map<std::string, std::string> Grid2D = {{"grid.x", "ceil_div(W, 32)"},
                                               {"grid.y", "ceil_div(H, 8)"},
                                               {"block.x", "32"},
                                               {"block.y", "8"}};
  {
    const char *Code = R"(__global__ void k(const unsigned char *img, unsigned *hist, int width,
                  int height, size_t pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    atomicAdd(&hist[img[y * pitch + x]], 1u);
})";
    auto R = run(Code, "k", nullptr, Grid2D);
    ASSERT_EQ(R.Proposals.size(), 3u) << R.Skip;
    for (size_t I = 0; I < 2; ++I) {
      const agent::Proposal &P = R.Proposals[I];
      EXPECT_TRUE(has(P.Summary, "reading 'img' (unsigned char) in 16-byte loads")) << P.Summary;
      EXPECT_TRUE(has(P.Rationale, "row by row")) << P.Rationale;
      ASSERT_TRUE(P.Spec);
      EXPECT_EQ(P.Spec->Geometry.at("grid.x"),
                std::string("min((ceil_div(W, 32)) * (ceil_div(H, 8)), 132 * FORGE_GRID_WAVES * ") +
                    (I == 0 ? "6)" : "8)"));
      EXPECT_EQ(P.Spec->Geometry.at("grid.y"), "1");
      const std::string &A = R.Applied[I];
      for (const char *Piece :
           {"const long long forge_n = width;", "const long long forge_rows = height;",
            "const long long forge_steps = (forge_n + 16 - 1) / 16 + 1;",
            "for (long long forge_y = forge_g / forge_steps, forge_k = forge_g % forge_steps; "
            "forge_y < forge_rows;) {",
            "const unsigned char *forge_p0 = img + ((forge_y) * pitch + 0);",
            "long long forge_h = (long long)((16 - ((unsigned long long)forge_p0 & 15)) & 15) / 1;",
            "const long long forge_a = forge_h + (forge_k - 1) * 16;",
            "} else if (forge_a + 16 <= forge_n) {",
            "const uint4 forge_q0_0 = reinterpret_cast<const uint4 *>(forge_p0 + forge_a)[0];",
            "forge_e((unsigned char)(forge_q0_0.w >> 24));",
            "for (long long forge_i = forge_a; forge_i < forge_n && forge_i < forge_a + 16; "
            "++forge_i)\n            forge_e(forge_p0[forge_i]);",
            "if (forge_k >= forge_steps) {",
            // Rows without a gap (pitch == width) are one range.
            "if ((long long)(((1) * pitch + 0) - ((0) * pitch + 0)) == forge_n) {",
            "const long long forge_nn = forge_rows * forge_n;",
            "const unsigned char *forge_f0 = img + ((0) * pitch + 0);",
            "reinterpret_cast<const uint4 *>(forge_f0 + forge_h)[forge_k];",
            "} else {\n      const long long forge_dy = forge_s / forge_steps"})
        EXPECT_TRUE(has(A, Piece)) << Piece << "\n" << A;
      // The column and the row are gone with their guard.
      EXPECT_FALSE(has(A, "int x = ")) << A;
      EXPECT_FALSE(has(A, "x < width")) << A;
    }
    EXPECT_TRUE(has(R.Applied[0], "[64][32]") || has(R.Applied[0], "[256][32]")) << R.Applied[0];
  }
  {
    // Two loads at two pitches and widths, through an index local, after an
    // exit; the weights at another alignment than the bytes run scalar.
    const char *Code = R"(__global__ void k(const unsigned char *img, const float *w, float *hist,
                  int width, int height, size_t pitch) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= height || col >= width)
    return;
  int at = row * width + col;
  atomicAdd(&hist[img[row * pitch + col] >> 4], w[at]);
})";
    auto R = run(Code, "k", nullptr, Grid2D);
    ASSERT_EQ(R.Proposals.size(), 3u) << R.Skip;
    const std::string &A = R.Applied[1];
    for (const char *Piece :
         {"auto forge_e = [&](unsigned char forge_v0, float forge_v1) {",
          "const unsigned char *forge_p0 = img + ((forge_y) * pitch + 0);",
          "const float *forge_p1 = w + ((forge_y) * width + 0);",
          "} else if (forge_a + 16 <= forge_n && ((unsigned long long)(forge_p1 + forge_a) & 15) "
          "== 0) {",
          "const uint4 forge_q1_3 = reinterpret_cast<const uint4 *>(forge_p1 + forge_a)[3];",
          "forge_e((unsigned char)(forge_q0_0.y >> 8), __uint_as_float(forge_q1_1.y));",
          "forge_e(forge_p0[forge_i], forge_p1[forge_i]);"})
      EXPECT_TRUE(has(A, Piece)) << Piece << "\n" << A;
    EXPECT_FALSE(has(A, "int at = ")) << A;
    EXPECT_FALSE(has(A, "return;")) << A;
  }
  {
    // A third layer of blocks repeats the elements in the original.
    const char *Code = R"(__global__ void k(const unsigned char *img, unsigned *hist, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    atomicAdd(&hist[img[y * w + x]], 1u);
})";
    auto Geometry = Grid2D;
    Geometry["grid.z"] = "2";
    auto R = run(Code, "k", nullptr, Geometry);
    ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
    EXPECT_TRUE(has(R.Proposals.back().Rationale,
                    "No 16-byte loads: the grid has more than one layer of blocks"))
        << R.Proposals.back().Rationale;
  }
}

// Where a block the guard rejects would still act, or the block index is
// read where the rule cannot replace it, the grid stays and the rationale
// says why.
TEST(HistogramPrivatize, VirtualBlocksRefusals) {
  struct Case {
    const char *Code, *Why;
  } Cases[] = {
      {R"(__global__ void k(const int *d, unsigned *h, int *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[d[i] & 63], 1u);
  seen[blockIdx.x] = 1;
})",
       "the kernel writes memory outside the guard 'i < n'"},
      {R"(__device__ int first() { return blockIdx.x * blockDim.x; }
__global__ void k(const int *d, unsigned *h, int n) {
  int i = first() + threadIdx.x;
  if (i < n && blockIdx.x >= 0)
    atomicAdd(&h[d[i] & 63], 1u);
})",
       "'blockIdx.x' is read inside a macro or a called function"},
      {R"(__global__ void k(const int *d, unsigned *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&h[(d[i] + gridDim.x) & 63], 1u);
})",
       "the kernel reads 'gridDim.x'"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Code);
    auto R = run(C.Code, "k");
    ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
    const agent::Proposal &P = R.Proposals.back();
    EXPECT_FALSE(P.Spec && P.Spec->Geometry.count("grid.x"));
    EXPECT_TRUE(has(P.Rationale, C.Why)) << P.Rationale;
    EXPECT_FALSE(has(R.Applied.back(), "forge_block")) << R.Applied.back();
  }
}

TEST(HistogramPrivatize, RewritesEveryShape) {
  for (const Positive &C : Positives) {
    SCOPED_TRACE(C.Name);
    auto R = run(C.Code, "k");
    ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
    bool Vec = !C.VecPieces.empty();
    ASSERT_EQ(R.Proposals.size(), (C.Lanes ? 2u : 1u) + (Vec ? 1u : 0u));
    // The scalar copy: the last proposal.
    size_t S = R.Proposals.size() - 1;
    const std::string &A = R.Applied[S];
    for (const char *P : C.Pieces)
      EXPECT_TRUE(has(A, P)) << P << "\n" << A;
    // Two barriers around the counting, and no global atomic per element left.
    EXPECT_TRUE(has(A, "__syncthreads();\n")) << A;
    const agent::Proposal &P = R.Proposals[S];
    bool Caps = P.Spec && P.Spec->Geometry.count("grid.x");
    EXPECT_EQ(Caps, C.CapsGrid) << A;
    if (Caps) {
      EXPECT_EQ(P.Spec->Geometry.at("grid.x"), "min(ceil_div(N, 256), 132 * FORGE_GRID_WAVES * 8)");
    }
    if (C.Lanes) {
      const std::string &W = R.Applied[0];
      EXPECT_TRUE(has(W, "const int forge_w = forge_t % ")) << W;
      EXPECT_TRUE(has(W, "][forge_w]")) << W;
      EXPECT_TRUE(has(W, "for (int forge_r = 1; forge_r < ")) << W;
      EXPECT_TRUE(has(R.Proposals[0].Summary, "lane copies")) << R.Proposals[0].Summary;
    }
    if (!Vec) {
      EXPECT_TRUE(has(P.Rationale, "No 16-byte loads: ")) << P.Rationale;
      continue;
    }
    // The 16-byte variants: the first (lane copies when there are any),
    // then one copy; both cap the grid (every access is in the loop).
    for (size_t I = 0; I + 1 < R.Proposals.size(); ++I) {
      const agent::Proposal &V = R.Proposals[I];
      EXPECT_TRUE(has(V.Summary, "in 16-byte loads")) << V.Summary;
      ASSERT_TRUE(V.Spec && V.Spec->Geometry.count("grid.x"));
      // Lane copies of 256 or 1024 bins take 32 KiB a block: 6 blocks of 256
      // threads an SM (the occupancy calculator, sm_90); 64 to 128 bins (8
      // to 16 KiB) and one copy leave the threads' 8.
      bool Big = C.Lanes && I == 0 &&
                 (has(R.Applied[I], "[256][32];") || has(R.Applied[I], "[1024][8];"));
      EXPECT_EQ(V.Spec->Geometry.at("grid.x"),
                std::string("min(ceil_div(N, 256), 132 * FORGE_GRID_WAVES * ") +
                    (Big ? "6)" : "8)"));
      EXPECT_TRUE(has(R.Applied[I], "__syncthreads();\n")) << R.Applied[I];
      EXPECT_TRUE(has(R.Applied[I], "reinterpret_cast<const uint4 *>(")) << R.Applied[I];
    }
    for (const char *P : C.VecPieces)
      EXPECT_TRUE(has(R.Applied[0], P)) << P << "\n" << R.Applied[0];
  }
}

// The lane copies' address in every spelling of the atomic's address: the
// index goes first, the lane's copy second, whatever the operands' order
// or parentheses.
TEST(HistogramPrivatize, LaneCopiesIndexEveryAddressSpelling) {
  const char *Shape = R"(__global__ void k(const int *key, unsigned *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = key[i] & 63;
    atomicAdd(ADDR, 1u);
  }
})";
  const std::pair<const char *, const char *> Cases[] = {
      {"&h[b]", "atomicAdd(&forge_hist[b][forge_w], 1u);"},
      {"h + b", "atomicAdd(&forge_hist[b][forge_w], 1u);"},
      {"b + h", "atomicAdd(&forge_hist[b][forge_w], 1u);"},
      {"(h) + (b)", "atomicAdd(&forge_hist[(b)][forge_w], 1u);"},
      {"&(h)[b]", "atomicAdd(&forge_hist[b][forge_w], 1u);"},
  };
  for (const auto &[Addr, Want] : Cases) {
    SCOPED_TRACE(Addr);
    std::string Code = Shape;
    Code.replace(Code.find("ADDR"), 4, Addr);
    auto R = run(Code, "k");
    ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
    // 64 bins of 4 bytes: 32 copies (8 KiB), one per lane.
    EXPECT_TRUE(has(R.Applied[0], "__shared__ unsigned int forge_hist[64][32];")) << R.Applied[0];
    EXPECT_TRUE(has(R.Applied[0], Want)) << R.Applied[0];
  }
}

TEST(HistogramPrivatize, ParameterBinsUseDynamicSharedMemory) {
  const char *Code = R"(__global__ void k(const unsigned *data, unsigned *bins, int nbins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i] % nbins], 1u);
}
void launch(const unsigned *d, unsigned *b, int nb, int n) {
  k<<<(n + 255) / 256, 256>>>(d, b, nb, n);
})";
  measure::LaunchSpec Spec = specWith(R"({"name": "nbins", "dtype": "i32", "value": "NB"})");
  auto R = run(Code, "k", &Spec);
  // No lane copies of a parameter count: the 16-byte loads of the 4-byte
  // elements, then the scalar copy.
  ASSERT_EQ(R.Proposals.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Proposals[0].Summary, "in 16-byte loads")) << R.Proposals[0].Summary;
  const std::string &A = R.Applied[1];
  EXPECT_TRUE(has(A, "extern __shared__ unsigned int forge_hist_k[];")) << A;
  EXPECT_TRUE(has(A, "forge_j < (int)nbins;")) << A;
  EXPECT_TRUE(has(A, "atomicAdd(&forge_hist_k[data[i] % nbins], 1u);")) << A;
  EXPECT_TRUE(has(A, "k<<<(n + 255) / 256, 256, (size_t)(nb) * sizeof(unsigned int)>>>")) << A;
  for (const agent::Proposal &P : R.Proposals) {
    ASSERT_TRUE(P.Spec);
    EXPECT_EQ(P.Spec->Geometry.at("shared"), "(NB) * 4");
  }

  // The same with '& (nbins - 1)': the count is the parameter itself.
  std::string Mask = Code;
  Mask.replace(Mask.find("% nbins"), 7, "& (nbins - 1)");
  R = run(Mask, "k", &Spec);
  ASSERT_EQ(R.Proposals.size(), 2u) << R.Skip;
  for (const agent::Proposal &P : R.Proposals)
    EXPECT_EQ(P.Spec->Geometry.at("shared"), "(NB) * 4");

  // No spec: the bytes cannot be set.
  R = run(Code, "k");
  EXPECT_TRUE(R.Proposals.empty());
  EXPECT_TRUE(has(R.Skip, "whose value the spec does not give")) << R.Skip;

  // A spec value too large for 48 KiB.
  measure::LaunchSpec Big = specWith(R"({"name": "nbins", "dtype": "i32", "value": 20000})");
  R = run(Code, "k", &Big);
  EXPECT_TRUE(R.Proposals.empty());
  EXPECT_TRUE(has(R.Skip, "the spec gives 20000 bins")) << R.Skip;
}

// A clamp to a parameter number of bins assigned after the index's
// declaration (Analysis' symbolic value range): the bins are nbins,
// sized at run time; the same clamp declines when the kernel assigns nbins
// (even after the atomic: the flush would read the new value), or when its
// ceiling is nbins.
TEST(HistogramPrivatize, ParameterClampAssignedAfterTheDeclaration) {
  const char *Code = R"(__global__ void k(const float *x, unsigned *bins, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * nbins);
    if (b < 0) b = 0;
    else if (b >= nbins) b = nbins - 1;
    atomicAdd(&bins[b], 1u);
  }
  TAIL
})";
  measure::LaunchSpec Spec = specWith(R"({"name": "nbins", "dtype": "i32", "value": "NB"})");
  auto With = [&](const char *Tail) {
    std::string C = Code;
    C.replace(C.find("TAIL"), 4, Tail);
    return run(C, "k", &Spec);
  };
  auto R = With("");
  ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
  for (const agent::Proposal &P : R.Proposals) {
    ASSERT_TRUE(P.Spec);
    EXPECT_EQ(P.Spec->Geometry.at("shared"), "(NB) * 4");
    EXPECT_TRUE(has(P.Rationale, "whose index 'b' is in [0, nbins) by its value range [0, nbins - 1]"))
        << P.Rationale;
  }
  const std::string &A = R.Applied.back();
  EXPECT_TRUE(has(A, "extern __shared__ unsigned int forge_hist_k[];")) << A;
  EXPECT_TRUE(has(A, "forge_j < (int)nbins;")) << A;
  EXPECT_TRUE(has(A, "else if (b >= nbins) b = nbins - 1;")) << A;
  EXPECT_TRUE(has(A, "atomicAdd(&forge_hist_k[b], 1u);")) << A;

  R = With("nbins = 0;");
  EXPECT_TRUE(R.Proposals.empty());
  EXPECT_TRUE(has(R.Skip, "where the atomic runs it is in [0, nbins - 1], but the kernel assigns "
                          "'nbins', and the private copy is sized by its value at the launch"))
      << R.Skip;

  std::string Ceil = Code;
  Ceil.replace(Ceil.find("b = nbins - 1;"), 14, "b = nbins;");
  Ceil.replace(Ceil.find("TAIL"), 4, "");
  R = run(Ceil, "k", &Spec);
  EXPECT_TRUE(R.Proposals.empty());
  EXPECT_TRUE(has(R.Skip, "where the atomic runs it is in [0, nbins] (the launch sizes the bins by "
                          "'nbins': a clamp's ceiling is 'nbins - 1')"))
      << R.Skip;
}

struct Negative {
  const char *Name;
  const char *Code;
  const char *Reason;
};

const Negative Negatives[] = {
    {"unbounded int index",
     R"(__global__ void k(const int *data, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1);
})",
     "the bins index 'data[i]' of 'atomicAdd(&bins[data[i]], 1)' is not bounded"},
    {"a signed remainder can be negative",
     R"(__global__ void k(const int *data, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i] % 16], 1);
})",
     "is not bounded"},
    {"the old value is stored elsewhere",
     R"(__global__ void k(const unsigned char *data, int *bins, int *slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    slot[i] = atomicAdd(&bins[data[i]], 1);
})",
     "the kernel uses the value 'atomicAdd(&bins[data[i]], 1)' returns"},
    {"the bins are also written",
     R"(__global__ void k(const unsigned char *data, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    bins[0] = 0;
  if (i < n)
    atomicAdd(&bins[data[i]], 1);
})",
     "the kernel also writes 'bins[0]'"},
    {"65536 bins are too many",
     R"(__global__ void k(const unsigned short *data, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
})",
     "(65536 bins); 65536 x 4 B = 262144 B exceeds the 49152 B"},
    {"a return inside the loop",
     R"(__global__ void k(const unsigned char *data, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (data[i] == 0) return;
    atomicAdd(&bins[data[i]], 1u);
  }
})",
     "the 'return' at line 3 would skip the block's barriers"},
    {"atomicInc wraps",
     R"(__global__ void k(const unsigned char *data, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicInc(&bins[data[i]], 100u);
})",
     "has no identity to start a private copy from"},
    {"a uniform address is a reduction, not a histogram",
     R"(__global__ void k(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, x[i]);
})",
     "the model finds no histogram"},
};

TEST(HistogramPrivatize, DeclinesWithTheReason) {
  for (const Negative &C : Negatives) {
    SCOPED_TRACE(C.Name);
    auto R = run(C.Code, "k");
    EXPECT_TRUE(R.Proposals.empty()) << (R.Applied.empty() ? "" : R.Applied[0]);
    EXPECT_TRUE(has(R.Skip, C.Reason)) << R.Skip;
  }
}

/// Kernels privatised without the 16-byte path, and why (in the scalar
/// proposals' rationale).
const Negative NoVector[] = {
    {"8-byte elements",
     R"(__global__ void k(const long long *data, int *h, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&h[data[i] & 255], 1);
})",
     "No 16-byte loads: 'data[i]' loads 'long long'; only 1-, 2- and 4-byte integers and float "
     "are unpacked."},
    {"not the element's own index",
     R"(__global__ void k(const unsigned char *data, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[2 * i]], 1u);
})",
     "No 16-byte loads: the element's code reads 'i' other than as the index of a load 'p[i]' "
     "of a pointer parameter ('i')."},
    {"a value that differs by thread",
     R"(__global__ void k(const unsigned char *data, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[(data[i] + threadIdx.x) & 255], 1u);
})",
     "No 16-byte loads: the element's code reads 'threadIdx.x', which differs between threads"},
    {"a store at the index",
     R"(__global__ void k(const unsigned char *data, unsigned *bins, unsigned char *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    seen[i] = 1;
    atomicAdd(&bins[data[i]], 1u);
  }
})",
     "No 16-byte loads: the element's code reads 'i' other than as the index of a load"},
    {"the index read after the guard",
     R"(__global__ void k(const unsigned char *data, unsigned *bins, int *last, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
  if (i == n - 1)
    *last = i;
})",
     "No 16-byte loads: 'i' is read outside the element's code"},
    {"a 2D guard whose column is read outside a load",
     R"(__global__ void k(const unsigned char *img, unsigned *hist, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    atomicAdd(&hist[(img[y * width + x] + x) & 63], 1u);
})",
     "No 16-byte loads: the element's code reads 'x' or 'y' other than in the index of a load of "
     "a pointer parameter ('hist[(img[y * width + x] + x) & 63]')"},
    {"a 2D guard, a load one element to the right",
     R"(__global__ void k(const unsigned char *img, unsigned *hist, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    atomicAdd(&hist[img[y * width + x + 1]], 1u);
})",
     "No 16-byte loads: 'img[y * width + x + 1]' is not read at 'row * pitch + column'"},
    {"a 2D guard, a transposed load",
     R"(__global__ void k(const unsigned char *img, unsigned *hist, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    atomicAdd(&hist[img[x * height + y]], 1u);
})",
     "No 16-byte loads: 'img[x * height + y]' is not read at 'row * pitch + column'"},
    {"a 2D guard, a pitch that differs by thread",
     R"(__global__ void k(const unsigned char *img, unsigned *hist, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int p = width + threadIdx.x % 2;
  if (x < width && y < height)
    atomicAdd(&hist[img[y * p + x]], 1u);
})",
     "No 16-byte loads: the index of 'img[y * p + x]' reads 'p', which differs between threads"},
    {"a while loop whose index is read after it",
     R"(__global__ void k(const unsigned char *data, unsigned *bins, long long n, long long *end) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    atomicAdd(&bins[data[i]], 1u);
    i += (long long)blockDim.x * gridDim.x;
  }
  end[0] = i;
})",
     "No 16-byte loads: 'i' is read outside the grid-stride loop at line 3."},
};

TEST(HistogramPrivatize, SaysWhyThereIsNoVectorPath) {
  for (const Negative &C : NoVector) {
    SCOPED_TRACE(C.Name);
    auto R = run(C.Code, "k");
    ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
    for (const agent::Proposal &P : R.Proposals) {
      EXPECT_FALSE(has(P.Summary, "16-byte")) << P.Summary;
      EXPECT_TRUE(has(P.Rationale, C.Reason)) << P.Rationale;
    }
    for (const std::string &A : R.Applied)
      EXPECT_FALSE(has(A, "uint4")) << A;
  }
}

TEST(HistogramPrivatize, KeepsOtherStoresAndTheGrid) {
  // A kernel that also writes another buffer: the store stays, and the grid
  // is not capped since it lies outside the grid-stride loop.
  const char *Code = R"(__global__ void k(const unsigned char *data, unsigned *bins, int *done, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i]], 1u);
  if (threadIdx.x == 0)
    done[blockIdx.x] = 1;
})";
  auto R = run(Code, "k");
  ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "done[blockIdx.x] = 1;")) << R.Applied[0];
  EXPECT_FALSE(R.Proposals[0].Spec && R.Proposals[0].Spec->Geometry.count("grid.x"));
}

} // namespace

namespace {

TEST(HistogramPrivatize, ARewrittenKernelIsNotRewrittenAgain) {
  const char *Code = R"(__global__ void k(const unsigned char *data, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i]], 1u);
})";
  auto R = run(Code, "k");
  ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
  for (const std::string &A : R.Applied) {
    auto Again = run(A, "k");
    EXPECT_TRUE(Again.Proposals.empty()) << A;
    // The private copy is a shared histogram now, which the shared-bins
    // path declines (its zeroing starts at the flat thread index).
    EXPECT_TRUE(has(Again.Skip, "the model finds no histogram") ||
                has(Again.Skip, "the bins are in shared memory already ('forge_hist')"))
        << Again.Skip;
  }
}

} // namespace
