//===- ResourceTableTest.cpp - Rows of the port's resource table ----------===//
//
// Which kernels nvcc compiled get a row, and the block size each row's
// occupancy is predicted for, from an index made by hand: launches in a
// host template counted per instantiation, the first constant block of a
// kernel kept and the others named, plain kernels listed unlaunched,
// instantiations nothing launches listed only with All.
//
//===----------------------------------------------------------------------===//
#include "forge/Port/ResourceTable.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::port;

namespace {

frontend::ValueText constant(int64_t V) {
  frontend::ValueText T;
  T.Text = std::to_string(V);
  T.Value = V;
  return T;
}

frontend::ValueText dim3(int64_t X, int64_t Y) {
  frontend::ValueText T;
  T.Text = "block";
  T.Dim3 = std::array<int64_t, 3>{X, Y, 1};
  return T;
}

frontend::ValueText runtime(const char *Text) {
  frontend::ValueText T;
  T.Text = Text;
  return T;
}

build::KernelResources entry(const char *Mangled, const char *Demangled) {
  build::KernelResources K;
  K.MangledName = Mangled;
  K.DemangledName = Demangled;
  K.IsEntry = true;
  K.Registers = 8;
  return K;
}

frontend::FileIndex sampleIndex() {
  frontend::FileIndex I;
  frontend::KernelInfo Tile;
  Tile.Name = Tile.QualifiedName = "tile";
  Tile.Mangled = "_Z4tilePf";
  frontend::KernelInfo Quiet; // defined, never launched here
  Quiet.Name = Quiet.QualifiedName = "quiet";
  Quiet.Mangled = "_Z5quietPf";
  frontend::KernelInfo Scale;
  Scale.Name = Scale.QualifiedName = "scale";
  Scale.IsTemplate = true;
  I.Kernels = {Tile, Quiet, Scale};

  frontend::LaunchSiteInfo A; // tile<<<g, block>>> with dim3 block(16, 16)
  A.Kernel = "tile";
  A.KernelMangled = "_Z4tilePf";
  A.Loc = {"k.cu", 10, 3};
  A.Block = dim3(16, 16);
  A.SharedMem = frontend::ValueText(); // not written: none
  frontend::LaunchSiteInfo B = A; // tile<<<g, 128, bytes>>>: another size
  B.Loc = {"k.cu", 11, 3};
  B.Block = constant(128);
  B.SharedMem = runtime("bytes");
  frontend::LaunchSiteInfo C; // scale<BS><<<1, BS>>> in a host template
  C.Kernel = "scale";
  C.InTemplate = true;
  C.Loc = {"k.cu", 20, 3};
  C.Block = runtime("BS");
  for (int64_t BS : {64, 512}) {
    frontend::LaunchInstantiation LI;
    LI.KernelMangled = "_Z5scaleILi" + std::to_string(BS) + "EEvPf";
    LI.Block = constant(BS);
    C.Instantiations.push_back(LI);
  }
  frontend::LaunchSiteInfo D; // tile<<<g, threads>>>: known at run time
  D.Kernel = "tile";
  D.KernelMangled = "_Z4tilePf";
  D.Loc = {"k.cu", 12, 3};
  D.Block = runtime("threads");
  I.LaunchSites = {A, B, C, D};
  return I;
}

TEST(ResourceTable, LaunchesPerSymbol) {
  FileLaunches L = launchesOf(sampleIndex());
  ASSERT_TRUE(L.BySymbol.count("_Z4tilePf"));
  const KernelLaunches &Tile = L.BySymbol.at("_Z4tilePf");
  EXPECT_EQ(Tile.Sites, 3u);
  ASSERT_TRUE(Tile.Shape);
  EXPECT_EQ(Tile.Shape->Threads, 256) << "dim3(16, 16) is 256 threads; the first launch wins";
  EXPECT_EQ(Tile.Shape->Loc.Line, 10u);
  EXPECT_EQ(Tile.OtherThreads, std::vector<int64_t>{128});
  EXPECT_EQ(L.BySymbol.at("_Z5scaleILi64EEvPf").Shape->Threads, 64);
  EXPECT_EQ(L.BySymbol.at("_Z5scaleILi512EEvPf").Shape->Threads, 512);
  EXPECT_EQ(L.PlainKernelSymbols, (std::set<std::string>{"_Z4tilePf", "_Z5quietPf"}));
  EXPECT_FALSE(L.PlainKernelNames.count("scale")) << "a template is not a plain kernel";
}

TEST(ResourceTable, RowsForLaunchedAndPlainKernels) {
  FileLaunches L = launchesOf(sampleIndex());
  std::vector<build::KernelResources> Target = {
      entry("_Z4tilePf", "tile(float*)"),
      entry("_Z5scaleILi64EEvPf", "void scale<64>(float*)"),
      entry("_Z5scaleILi3EEvPf", "void scale<3>(float*)"), // nothing launches it
      entry("_Z5quietPf", "quiet(float*)"),
      entry("_ZN4cub6kernelEv", "void cub::kernel<int>()"), // a library's
      entry("_Z4tilePf", "tile(float*)"),                  // once only
  };
  build::KernelResources Helper = entry("_Z6helperv", "helper()");
  Helper.IsEntry = false; // a device function is no row
  Target.push_back(Helper);

  ResourceTable T = resourceTable(Target, nullptr, L, 256, /*All=*/false);
  ASSERT_EQ(T.Rows.size(), 3u);
  EXPECT_EQ(T.NotListed, 2u);
  EXPECT_EQ(T.Rows[0].name(), "tile(float*)");
  EXPECT_TRUE(T.Rows[0].FromLaunch);
  EXPECT_EQ(T.Rows[0].Shape.Threads, 256);
  EXPECT_EQ(T.Rows[0].OtherThreads, std::vector<int64_t>{128});
  EXPECT_EQ(T.Rows[1].name(), "void scale<64>(float*)");
  EXPECT_EQ(T.Rows[1].Shape.Threads, 64);
  EXPECT_EQ(T.Rows[2].name(), "quiet(float*)");
  EXPECT_FALSE(T.Rows[2].FromLaunch);
  EXPECT_FALSE(T.Rows[2].Launched);
  EXPECT_EQ(T.Rows[2].Shape.Threads, 256) << "assumed";

  ResourceTable All = resourceTable(Target, nullptr, L, 96, /*All=*/true);
  ASSERT_EQ(All.Rows.size(), 5u);
  EXPECT_EQ(All.NotListed, 0u);
  EXPECT_EQ(All.Rows[2].name(), "void scale<3>(float*)");
  EXPECT_EQ(All.Rows[2].Shape.Threads, 96);
  EXPECT_FALSE(All.Rows[2].FromLaunch);
}

TEST(ResourceTable, UnknownDynamicSharedMemory) {
  frontend::FileIndex I = sampleIndex();
  std::swap(I.LaunchSites[0], I.LaunchSites[1]); // 128 threads, 'bytes' first
  FileLaunches L = launchesOf(I);
  const LaunchShape &S = *L.BySymbol.at("_Z4tilePf").Shape;
  EXPECT_EQ(S.Threads, 128);
  EXPECT_FALSE(S.DynamicSharedKnown);
}

TEST(ResourceTable, PlainKernelByDemangledName) {
  // nvcc and Clang spell an anonymous namespace's symbols differently: the
  // demangled name still says it is the file's plain kernel.
  FileLaunches L;
  L.PlainKernelNames = {"k"};
  std::vector<build::KernelResources> Target = {
      entry("_ZN37_INTERNAL_abc_1kEPf", "(anonymous namespace)::k(float*)"),
      entry("_Z1kIiEvPf", "void k<int>(int*)")};
  ResourceTable T = resourceTable(Target, nullptr, L, 256, false);
  ASSERT_EQ(T.Rows.size(), 1u);
  EXPECT_EQ(T.NotListed, 1u) << "an instantiation is not a plain kernel";
}

TEST(ResourceTable, DemangledBaseName) {
  EXPECT_EQ(demangledBaseName("stage(float const*, float*)"),
            std::make_pair(std::string("stage"), false));
  EXPECT_EQ(demangledBaseName("void ns::scale<float, 4>(float*)"),
            std::make_pair(std::string("scale"), true));
  EXPECT_EQ(demangledBaseName("(anonymous namespace)::k(float*)"),
            std::make_pair(std::string("k"), false));
  EXPECT_EQ(demangledBaseName("void a::b<c::d<2>, 3>(int)"),
            std::make_pair(std::string("b"), true));
}

} // namespace
