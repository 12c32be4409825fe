//===- refs_conv.cu - Hand-tuned stencil and convolution references --------===//
///
/// \file
/// Provenance: written for this suite; there is no cuDNN on the image, and
/// no library has a 1D stencil. These kernels are the "library" time of the
/// stencil/convolution category. They compute exactly what the first-round
/// kernels compute (utils/bench/kernels/stencil1d.cu, conv2d_*.cu,
/// conv2d_separable.cu): correlations (the filter is not flipped) with zero
/// padding, the filter an input array. What makes them fast:
///
/// - stencil1d: a block stages 1024 outputs plus the halo in shared memory
///   with float4 loads; each thread computes 4 consecutive outputs from
///   shared memory and stores them as one float4.
/// - conv2d K x K (K = 3, 5, 7): a 32 x 8 block computes a 32 x 32 output
///   tile; the (32 + K - 1)^2 input tile (zero-padded) and the filter are
///   staged in shared memory; each thread computes 4 outputs of a column,
///   reading each input column strip once into registers and reusing it
///   for the 4 outputs (K (K + 3) shared loads for 4 K^2 multiply-adds).
/// - separable: both passes in one kernel: the horizontal pass writes
///   (32 + K - 1) x 32 row sums to shared memory, the vertical pass
///   combines K of them per output. No intermediate image in global memory.
///
/// Each is checked on sampled outputs (borders included) against a
/// double-precision host computation.
///
//===----------------------------------------------------------------------===//
#include "refs.h"

#include <string>

namespace refs {
namespace {

//===----------------------------------------------------------------------===//
// 1D stencil
//===----------------------------------------------------------------------===//

const int StencilBlock = 256, StencilPer = 4,
          StencilTile = StencilBlock * StencilPer;

template <int R>
__global__ void __launch_bounds__(StencilBlock)
    stencilTiled(const float *__restrict__ X, const float *__restrict__ Wt,
                 float *__restrict__ Out, long long N) {
  __shared__ float Tile[StencilTile + 2 * R];
  float Wr[2 * R + 1];
#pragma unroll
  for (int J = 0; J < 2 * R + 1; ++J)
    Wr[J] = __ldg(Wt + J);
  long long Base = (long long)blockIdx.x * StencilTile;
  int T = threadIdx.x;
  // Body: float4 loads when the whole tile is in range (Base is a multiple
  // of 4 floats, so the float4s are aligned).
  if (Base + StencilTile <= N) {
    float4 V = reinterpret_cast<const float4 *>(X + Base)[T];
    Tile[R + 4 * T + 0] = V.x;
    Tile[R + 4 * T + 1] = V.y;
    Tile[R + 4 * T + 2] = V.z;
    Tile[R + 4 * T + 3] = V.w;
  } else {
    for (int K = 0; K < StencilPer; ++K) {
      long long I = Base + StencilPer * T + K;
      Tile[R + StencilPer * T + K] = I < N ? X[I] : 0.0f;
    }
  }
  if (T < 2 * R) {
    // Halo: R on the left, R on the right, zero outside the array.
    long long I = T < R ? Base - R + T : Base + StencilTile + (T - R);
    int S = T < R ? T : StencilTile + R + (T - R);
    Tile[S] = (I >= 0 && I < N) ? X[I] : 0.0f;
  }
  __syncthreads();
  float Acc[StencilPer];
#pragma unroll
  for (int K = 0; K < StencilPer; ++K) {
    float A = 0.0f;
#pragma unroll
    for (int J = 0; J < 2 * R + 1; ++J)
      A += Wr[J] * Tile[StencilPer * T + K + J];
    Acc[K] = A;
  }
  long long I0 = Base + StencilPer * T;
  if (I0 + StencilPer <= N) {
    reinterpret_cast<float4 *>(Out + Base)[T] =
        make_float4(Acc[0], Acc[1], Acc[2], Acc[3]);
  } else {
    for (int K = 0; K < StencilPer; ++K)
      if (I0 + K < N)
        Out[I0 + K] = Acc[K];
  }
}

//===----------------------------------------------------------------------===//
// 2D convolution
//===----------------------------------------------------------------------===//

const int ConvTx = 32, ConvTy = 8, ConvPer = 4, ConvTile = ConvTy * ConvPer;

/// Loads the zero-padded input tile of the output tile at (Y0, X0).
template <int K>
__device__ void loadTile(float (*Tile)[ConvTx + K - 1], const float *In,
                         int H, int W, int Y0, int X0) {
  constexpr int R = K / 2, TH = ConvTile + K - 1, TW = ConvTx + K - 1;
  int Tid = threadIdx.y * ConvTx + threadIdx.x;
  for (int I = Tid; I < TH * TW; I += ConvTx * ConvTy) {
    int Ry = I / TW, Rx = I % TW;
    int Gy = Y0 + Ry - R, Gx = X0 + Rx - R;
    Tile[Ry][Rx] = (Gy >= 0 && Gy < H && Gx >= 0 && Gx < W)
                       ? __ldg(In + (size_t)Gy * W + Gx)
                       : 0.0f;
  }
}

template <int K>
__global__ void __launch_bounds__(ConvTx *ConvTy)
    convTiled(const float *__restrict__ In, const float *__restrict__ Filt,
              float *__restrict__ Out, int H, int W) {
  __shared__ float Tile[ConvTile + K - 1][ConvTx + K - 1];
  __shared__ float F[K * K];
  int Tid = threadIdx.y * ConvTx + threadIdx.x;
  if (Tid < K * K)
    F[Tid] = Filt[Tid];
  int Y0 = blockIdx.y * ConvTile, X0 = blockIdx.x * ConvTx;
  loadTile<K>(Tile, In, H, W, Y0, X0);
  __syncthreads();

  int Tx = threadIdx.x, Ty = threadIdx.y * ConvPer;
  float Acc[ConvPer] = {};
#pragma unroll
  for (int J = 0; J < K; ++J) {
    float Col[ConvPer + K - 1];
#pragma unroll
    for (int R = 0; R < ConvPer + K - 1; ++R)
      Col[R] = Tile[Ty + R][Tx + J];
#pragma unroll
    for (int O = 0; O < ConvPer; ++O)
#pragma unroll
      for (int I = 0; I < K; ++I)
        Acc[O] += F[I * K + J] * Col[O + I];
  }
  int X = X0 + Tx;
#pragma unroll
  for (int O = 0; O < ConvPer; ++O) {
    int Y = Y0 + Ty + O;
    if (Y < H && X < W)
      Out[(size_t)Y * W + X] = Acc[O];
  }
}

template <int K>
__global__ void __launch_bounds__(ConvTx *ConvTy)
    separableTiled(const float *__restrict__ In, const float *__restrict__ Fx,
                   const float *__restrict__ Fy, float *__restrict__ Out,
                   int H, int W) {
  constexpr int TH = ConvTile + K - 1;
  __shared__ float Tile[TH][ConvTx + K - 1];
  __shared__ float Rows[TH][ConvTx];
  int Y0 = blockIdx.y * ConvTile, X0 = blockIdx.x * ConvTx;
  loadTile<K>(Tile, In, H, W, Y0, X0);
  float Hx[K], Vy[K];
#pragma unroll
  for (int J = 0; J < K; ++J) {
    Hx[J] = __ldg(Fx + J);
    Vy[J] = __ldg(Fy + J);
  }
  __syncthreads();
  int Tx = threadIdx.x;
  for (int R = threadIdx.y; R < TH; R += ConvTy) {
    float A = 0.0f;
#pragma unroll
    for (int J = 0; J < K; ++J)
      A += Hx[J] * Tile[R][Tx + J];
    Rows[R][Tx] = A;
  }
  __syncthreads();
  int Ty = threadIdx.y * ConvPer, X = X0 + Tx;
#pragma unroll
  for (int O = 0; O < ConvPer; ++O) {
    float A = 0.0f;
#pragma unroll
    for (int I = 0; I < K; ++I)
      A += Vy[I] * Rows[Ty + O + I][Tx];
    int Y = Y0 + Ty + O;
    if (Y < H && X < W)
      Out[(size_t)Y * W + X] = A;
  }
}

//===----------------------------------------------------------------------===//
// Drivers
//===----------------------------------------------------------------------===//

const char *Provenance = "hand-tuned kernel written for this suite "
                         "(utils/bench/reference/refs_conv.cu; no cuDNN on the "
                         "image)";

/// Samples: the four corners, the edges, and random pixels.
std::vector<size_t> pixelSamples(int H, int W) {
  std::vector<size_t> S = sampleIndices((size_t)H * W, 2048, 23);
  for (int Y : {0, 1, H / 2, H - 2, H - 1})
    for (int X : {0, 1, W / 2, W - 2, W - 1})
      if (Y >= 0 && X >= 0 && Y < H && X < W)
        S.push_back((size_t)Y * W + X);
  return S;
}

template <int K> void conv2d(Bench &B, const Sizes &S, const char *Op) {
  long long H = sizeOf(S, "H"), W = sizeOf(S, "W");
  if (sizeOf(S, "K") != K)
    throw Failure(std::string(Op) + ": K must be " + std::to_string(K));
  DevBuf<float> In(H * W), Filt(K * K), Out(H * W);
  fillUniform(In.get(), In.size(), -1, 1, B.options().Seed, B.stream());
  fillUniform(Filt.get(), Filt.size(), -1, 1, B.options().Seed + 1, B.stream());
  dim3 Block(ConvTx, ConvTy);
  dim3 Grid((unsigned)((W + ConvTx - 1) / ConvTx),
            (unsigned)((H + ConvTile - 1) / ConvTile));
  Stats T = B.time([&] {
    convTiled<K><<<Grid, Block, 0, B.stream()>>>(In.get(), Filt.get(),
                                                  Out.get(), (int)H, (int)W);
    check(cudaGetLastError(), "conv kernel launch");
  });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), "conv kernel");
    std::vector<float> Hin = In.toHost(), Hf = Filt.toHost();
    std::vector<size_t> Idx = pixelSamples((int)H, (int)W);
    std::vector<float> Got = readAt(Out.get(), Idx);
    std::vector<double> G(Got.begin(), Got.end()), Want;
    for (size_t P : Idx) {
      long long Y = P / W, X = P % W;
      double A = 0;
      for (int I = 0; I < K; ++I)
        for (int J = 0; J < K; ++J) {
          long long Yy = Y + I - K / 2, Xx = X + J - K / 2;
          if (Yy >= 0 && Yy < H && Xx >= 0 && Xx < W)
            A += (double)Hf[I * K + J] * Hin[Yy * W + Xx];
        }
      Want.push_back(A);
    }
    Ok = compareRelL2(G, Want, 1e-5);
  }
  B.report(Op, "tuned-conv-kernel",
           std::string("shared-memory tiled ") + std::to_string(K) + "x" +
               std::to_string(K) + " correlation, 32x32 outputs per block; " +
               Provenance,
           true, S, T, Ok);
  memcpyEquivalent(B, Op, S, 8 * H * W + 4 * K * K, false);
}

} // namespace

void runStencil1d(Bench &B, const Sizes &S) {
  constexpr int R = 3;
  long long N = sizeOf(S, "N");
  if (sizeOf(S, "R") != R)
    throw Failure("stencil1d: the reference is compiled for R = 3");
  DevBuf<float> X(N), Wt(2 * R + 1), Out(N);
  fillUniform(X.get(), N, -1, 1, B.options().Seed, B.stream());
  fillUniform(Wt.get(), Wt.size(), -1, 1, B.options().Seed + 1, B.stream());
  unsigned Grid = (unsigned)((N + StencilTile - 1) / StencilTile);
  Stats T = B.time([&] {
    stencilTiled<R><<<Grid, StencilBlock, 0, B.stream()>>>(X.get(), Wt.get(),
                                                          Out.get(), N);
    check(cudaGetLastError(), "stencil kernel launch");
  });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), "stencil kernel");
    std::vector<float> Hw = Wt.toHost();
    std::vector<size_t> Idx = sampleIndices(N, 4096, 29);
    for (size_t I : {(size_t)1, (size_t)2, (size_t)StencilTile - 1,
                     (size_t)StencilTile, (size_t)N - 2})
      if (I < (size_t)N)
        Idx.push_back(I);
    std::vector<size_t> Around;
    for (size_t I : Idx)
      for (int J = -R; J <= R; ++J)
        Around.push_back((long long)I + J >= 0 && (long long)I + J < N ? I + J : 0);
    std::vector<float> Hx = readAt(X.get(), Around), Got = readAt(Out.get(), Idx);
    std::vector<double> G(Got.begin(), Got.end()), Want;
    for (size_t K = 0; K < Idx.size(); ++K) {
      double A = 0;
      for (int J = -R; J <= R; ++J) {
        long long P = (long long)Idx[K] + J;
        if (P >= 0 && P < N)
          A += (double)Hw[J + R] * Hx[K * (2 * R + 1) + J + R];
      }
      Want.push_back(A);
    }
    Ok = compareRelL2(G, Want, 1e-5);
  }
  B.report("stencil1d", "tuned-stencil-kernel",
           std::string("shared-memory tiled 7-point stencil, float4 loads and "
                       "stores, 4 outputs per thread; ") +
               Provenance,
           true, S, T, Ok);
  memcpyEquivalent(B, "stencil1d", S, 8 * N + 4 * (2 * R + 1), false);
}

void runConv2d3x3(Bench &B, const Sizes &S) { conv2d<3>(B, S, "conv2d_3x3"); }
void runConv2d5x5(Bench &B, const Sizes &S) { conv2d<5>(B, S, "conv2d_5x5"); }
void runConv2d7x7(Bench &B, const Sizes &S) { conv2d<7>(B, S, "conv2d_7x7"); }

void runConv2dSeparable(Bench &B, const Sizes &S) {
  constexpr int K = 7;
  long long H = sizeOf(S, "H"), W = sizeOf(S, "W");
  if (sizeOf(S, "K") != K)
    throw Failure("conv2d_separable: the reference is compiled for K = 7");
  DevBuf<float> In(H * W), Fx(K), Fy(K), Out(H * W);
  fillUniform(In.get(), In.size(), -1, 1, B.options().Seed, B.stream());
  fillUniform(Fx.get(), K, -1, 1, B.options().Seed + 1, B.stream());
  fillUniform(Fy.get(), K, -1, 1, B.options().Seed + 2, B.stream());
  dim3 Block(ConvTx, ConvTy);
  dim3 Grid((unsigned)((W + ConvTx - 1) / ConvTx),
            (unsigned)((H + ConvTile - 1) / ConvTile));
  Stats T = B.time([&] {
    separableTiled<K><<<Grid, Block, 0, B.stream()>>>(
        In.get(), Fx.get(), Fy.get(), Out.get(), (int)H, (int)W);
    check(cudaGetLastError(), "separable kernel launch");
  });
  std::string Ok = "skipped";
  if (B.options().Check) {
    check(cudaStreamSynchronize(B.stream()), "separable kernel");
    std::vector<float> Hin = In.toHost(), Hx = Fx.toHost(), Hy = Fy.toHost();
    std::vector<size_t> Idx = pixelSamples((int)H, (int)W);
    std::vector<float> Got = readAt(Out.get(), Idx);
    std::vector<double> G(Got.begin(), Got.end()), Want;
    for (size_t P : Idx) {
      long long Y = P / W, X = P % W;
      double A = 0;
      for (int I = 0; I < K; ++I) {
        long long Yy = Y + I - K / 2;
        if (Yy < 0 || Yy >= H)
          continue;
        double Row = 0;
        for (int J = 0; J < K; ++J) {
          long long Xx = X + J - K / 2;
          if (Xx >= 0 && Xx < W)
            Row += (double)Hx[J] * Hin[Yy * W + Xx];
        }
        A += Hy[I] * Row;
      }
      Want.push_back(A);
    }
    Ok = compareRelL2(G, Want, 1e-5);
  }
  B.report("conv2d_separable", "tuned-separable-kernel",
           std::string("fused two-pass separable 7+7 correlation, row sums in "
                       "shared memory; ") +
               Provenance,
           true, S, T, Ok);
  memcpyEquivalent(B, "conv2d_separable", S, 8 * H * W + 8 * K, false);
}

} // namespace refs
