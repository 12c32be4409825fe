#include "forge/Arch/Roofline.h"
#include "gtest/gtest.h"

using namespace forge::arch;

namespace {

const GpuModel &gpu(llvm::StringRef Name) {
  llvm::Expected<const GpuModel &> G = lookupGpuModel(Name);
  if (!G) {
    ADD_FAILURE() << llvm::toString(G.takeError());
    return allGpuModels().front();
  }
  return *G;
}

// H200: 67 TFLOP/s FP32, 34 FP64, 4254 GB/s measured.
TEST(Roofline, H200Ridge) {
  const GpuModel &H200 = gpu("H200");
  EXPECT_DOUBLE_EQ(peakGflops(H200), 67000);
  EXPECT_NEAR(ridgePoint(H200), 67000.0 / 4254, 1e-9);
  EXPECT_NEAR(ridgePoint(H200, Precision::FP64), 34000.0 / 4254, 1e-9);
}

TEST(Roofline, AttainableIsMinOfRoofs) {
  const GpuModel &H200 = gpu("H200");
  // Triad: 2 FLOP per 12 bytes.
  EXPECT_NEAR(attainableGflops(H200, 2.0 / 12), 4254.0 / 6, 1e-9);
  EXPECT_DOUBLE_EQ(attainableGflops(H200, 1.0), 4254);
  EXPECT_DOUBLE_EQ(attainableGflops(H200, 100.0), 67000);
  EXPECT_DOUBLE_EQ(attainableGflops(H200, 100.0, Precision::FP64), 34000);
  EXPECT_DOUBLE_EQ(attainableGflops(H200, -1.0), 0);
  // Without a measurement the datasheet bandwidth is used.
  EXPECT_DOUBLE_EQ(attainableGflops(gpu("A100"), 1.0), 2039);
}

TEST(Roofline, Classify) {
  const GpuModel &H200 = gpu("H200");
  EXPECT_EQ(classifyRoofline(H200, 2.0 / 12), Boundedness::MemoryBound);
  EXPECT_EQ(classifyRoofline(H200, 15.0), Boundedness::MemoryBound);
  EXPECT_EQ(classifyRoofline(H200, 16.0), Boundedness::ComputeBound);
  // The FP64 ridge is lower: 10 FLOP/byte is compute-bound in FP64 only.
  EXPECT_EQ(classifyRoofline(H200, 10.0, Precision::FP64),
            Boundedness::ComputeBound);
  EXPECT_EQ(classifyRoofline(H200, 10.0), Boundedness::MemoryBound);
  EXPECT_STREQ(boundednessName(Boundedness::MemoryBound), "memory-bound");
  EXPECT_STREQ(boundednessName(Boundedness::ComputeBound), "compute-bound");
}

} // namespace
