#include "forge/Arch/TargetInfo.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"
#include <set>

using namespace forge;
using namespace forge::arch;

namespace {

const TargetInfo &get(llvm::StringRef Name) {
  static const TargetInfo Invalid = {"invalid", 0, 0, ArchVariant::None,
                                     nullptr, 0};
  llvm::Expected<const TargetInfo &> T = lookupTarget(Name);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return Invalid;
  }
  return *T;
}

/// The UsageError message of E, or "" (with a failure) for any other result.
std::string usageMessage(llvm::Error E) {
  std::string Msg;
  bool IsUsage = false;
  llvm::handleAllErrors(
      std::move(E), [&](const UsageError &U) { IsUsage = true; Msg = U.message(); },
      [&](const llvm::ErrorInfoBase &Other) { Msg = Other.message(); });
  EXPECT_TRUE(IsUsage) << "not a UsageError: " << Msg;
  return Msg;
}

TEST(TargetInfo, LookupNormalisesSpellings) {
  const TargetInfo *Want = &get("sm_90a");
  EXPECT_STREQ(Want->Name, "sm_90a");
  for (const char *Spelling :
       {"90a", "sm90a", "compute_90a", "SM_90A", " sm_90a ", "compute90a"})
    EXPECT_EQ(&get(Spelling), Want) << Spelling;
  EXPECT_STREQ(get("100f").Name, "sm_100f");
  EXPECT_STREQ(get("compute_121").Name, "sm_121");
}

TEST(TargetInfo, UnknownNameListsKnownTargets) {
  llvm::Expected<const TargetInfo &> T = lookupTarget("sm_95");
  ASSERT_FALSE(T);
  std::string Msg = usageMessage(T.takeError());
  EXPECT_EQ(Msg, "unknown target 'sm_95'; known targets: " +
                     llvm::join(knownTargetNames(), ", "));
  EXPECT_NE(Msg.find("sm_75, sm_80, sm_86"), std::string::npos);
  EXPECT_NE(Msg.find("sm_121f"), std::string::npos);
}

TEST(TargetInfo, RejectsMalformedAndRetiredNames) {
  // sm_101 was renamed sm_110 in CUDA 13; sm_70 and older are gone.
  for (const char *Bad : {"", "sm_", "compute_", "sm_90x", "sm_9a0", "gfx90a",
                          "sm_101", "sm_101a", "sm_70", "sm_90af"}) {
    llvm::Expected<const TargetInfo &> T = lookupTarget(Bad);
    EXPECT_FALSE(T) << Bad;
    if (!T)
      usageMessage(T.takeError());
  }
}

TEST(TargetInfo, KnownNamesInOrder) {
  std::vector<std::string> Want = {
      "sm_75",   "sm_80",   "sm_86",   "sm_87",   "sm_89",   "sm_90",
      "sm_90a",  "sm_100",  "sm_100a", "sm_100f", "sm_103",  "sm_103a",
      "sm_103f", "sm_110",  "sm_110a", "sm_110f", "sm_120",  "sm_120a",
      "sm_120f", "sm_121",  "sm_121a", "sm_121f"};
  EXPECT_EQ(knownTargetNames(), Want);
}

TEST(TargetInfo, ParseTargetList) {
  llvm::Expected<std::vector<const TargetInfo *>> L =
      parseTargetList("sm_80, 90a,sm_80,,compute_100f");
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  ASSERT_EQ(L->size(), 3u);
  EXPECT_STREQ((*L)[0]->Name, "sm_80");
  EXPECT_STREQ((*L)[1]->Name, "sm_90a");
  EXPECT_STREQ((*L)[2]->Name, "sm_100f");

  llvm::Expected<std::vector<const TargetInfo *>> Bad =
      parseTargetList("sm_80,sm_95");
  ASSERT_FALSE(Bad);
  EXPECT_EQ(usageMessage(Bad.takeError()).rfind("unknown target 'sm_95'", 0),
            0u);

  for (const char *Empty : {"", " , ,"}) {
    llvm::Expected<std::vector<const TargetInfo *>> E = parseTargetList(Empty);
    ASSERT_FALSE(E) << Empty;
    EXPECT_EQ(usageMessage(E.takeError()).rfind("empty target list", 0), 0u);
  }
}

TEST(TargetInfo, NamingHelpers) {
  struct {
    const char *Name;
    int CC;
    const char *Macro, *Arch, *Code;
    ArchVariant Variant;
  } Cases[] = {
      {"sm_75", 75, "750", "compute_75", "sm_75", ArchVariant::None},
      {"sm_90a", 90, "900", "compute_90a", "sm_90a", ArchVariant::ArchSpecific},
      {"sm_100f", 100, "1000", "compute_100f", "sm_100f",
       ArchVariant::FamilySpecific},
      {"sm_103a", 103, "1030", "compute_103a", "sm_103a",
       ArchVariant::ArchSpecific},
      {"sm_120", 120, "1200", "compute_120", "sm_120", ArchVariant::None},
      {"sm_121f", 121, "1210", "compute_121f", "sm_121f",
       ArchVariant::FamilySpecific},
  };
  for (const auto &C : Cases) {
    const TargetInfo &T = get(C.Name);
    EXPECT_EQ(T.ccNumber(), C.CC) << C.Name;
    EXPECT_EQ(T.archMacroValue(), C.Macro) << C.Name;
    EXPECT_EQ(T.gencodeArch(), C.Arch) << C.Name;
    EXPECT_EQ(T.gencodeCode(), C.Code) << C.Name;
    EXPECT_EQ(T.gencode(), std::string("arch=") + C.Arch + ",code=" + C.Code) << C.Name;
    EXPECT_EQ(T.gencode(/*Ptx=*/true), std::string("arch=") + C.Arch + ",code=" + C.Arch)
        << C.Name;
    EXPECT_EQ(T.Variant, C.Variant) << C.Name;
  }
}

// The full feature matrix, written out independently of the table.
TEST(TargetInfo, FeatureMatrix) {
  const std::set<std::string> None;
  const std::set<std::string> Ampere = {"cp.async"};
  const std::set<std::string> Hopper = {"cp.async", "tma", "clusters"};
  const std::set<std::string> HopperA = {"cp.async", "tma", "clusters",
                                         "wgmma", "setmaxnreg"};
  const std::set<std::string> DC = {"cp.async", "tma", "clusters", "tcgen05",
                                    "setmaxnreg"};
  const std::set<std::string> Rtx = {"cp.async", "tma", "clusters",
                                     "setmaxnreg"};
  std::pair<const char *, std::set<std::string>> Want[] = {
      {"sm_75", None},     {"sm_80", Ampere},   {"sm_86", Ampere},
      {"sm_87", Ampere},   {"sm_89", Ampere},   {"sm_90", Hopper},
      {"sm_90a", HopperA}, {"sm_100", Hopper},  {"sm_100a", DC},
      {"sm_100f", DC},     {"sm_103", Hopper},  {"sm_103a", DC},
      {"sm_103f", DC},     {"sm_110", Hopper},  {"sm_110a", DC},
      {"sm_110f", DC},     {"sm_120", Hopper},  {"sm_120a", Rtx},
      {"sm_120f", Rtx},    {"sm_121", Hopper},  {"sm_121a", Rtx},
      {"sm_121f", Rtx},
  };
  ASSERT_EQ(std::size(Want), allTargets().size());
  for (const auto &[Name, Features] : Want) {
    std::set<std::string> Got;
    for (unsigned F = 0; F < NumFeatures; ++F)
      if (get(Name).hasFeature(Feature(F)))
        Got.insert(featureName(Feature(F)));
    EXPECT_EQ(Got, Features) << Name;
  }
}

// The porting rules in DESIGN.md, stated as rules over every target.
TEST(TargetInfo, FeatureRulesFromDesign) {
  for (const TargetInfo &T : allTargets()) {
    EXPECT_EQ(T.hasFeature(Feature::WGMMA), llvm::StringRef(T.Name) == "sm_90a")
        << T.Name;
    EXPECT_EQ(T.hasFeature(Feature::SetMaxNReg),
              T.Variant != ArchVariant::None && T.ccNumber() >= 90)
        << T.Name;
    EXPECT_EQ(T.hasFeature(Feature::TMA), T.ccNumber() >= 90) << T.Name;
    EXPECT_EQ(T.hasFeature(Feature::Clusters), T.ccNumber() >= 90) << T.Name;
    EXPECT_EQ(T.hasFeature(Feature::CpAsync), T.ccNumber() >= 80) << T.Name;
    if (T.hasFeature(Feature::TCGen05)) {
      EXPECT_NE(T.Variant, ArchVariant::None) << T.Name;
    }
  }
  EXPECT_FALSE(get("sm_120a").hasFeature(Feature::TCGen05));
  EXPECT_TRUE(get("sm_100a").hasFeature(Feature::TCGen05));
  EXPECT_FALSE(get("sm_100").hasFeature(Feature::TCGen05));
}

// DESIGN.md "Porting rules" table for sm_80 / sm_90 / sm_100.
TEST(TargetInfo, DesignLimitsTable) {
  struct {
    const char *Name;
    int SmemPerSM, OptIn;
  } Cases[] = {{"sm_80", 164 * 1024, 166912},
               {"sm_90", 228 * 1024, 232448},
               {"sm_100", 228 * 1024, 232448}};
  for (const auto &C : Cases) {
    const SmLimits &L = get(C.Name).limits();
    EXPECT_EQ(L.SharedMemPerSM, C.SmemPerSM) << C.Name;
    EXPECT_EQ(L.OptInSharedMemPerBlock, C.OptIn) << C.Name;
    EXPECT_EQ(L.StaticSharedMemPerBlock, 49152) << C.Name;
    EXPECT_EQ(L.MaxThreadsPerSM, 2048) << C.Name;
    EXPECT_EQ(L.maxWarpsPerSM(), 64) << C.Name;
    EXPECT_EQ(L.MaxBlocksPerSM, 32) << C.Name;
    EXPECT_EQ(L.RegistersPerSM, 65536) << C.Name;
    EXPECT_EQ(L.MaxRegistersPerThread, 255) << C.Name;
    EXPECT_EQ(L.ReservedSharedMemPerBlock, 1024) << C.Name;
    EXPECT_EQ(L.SharedMemAllocUnit, 128) << C.Name;
  }
}

// CUDA Programming Guide "Technical Specifications per Compute Capability"
// and cuda_occupancy.h (CUDA 13.0).
TEST(TargetInfo, PerCapabilityLimits) {
  struct {
    const char *Name;
    int ThreadsPerSM, BlocksPerSM, SmemPerSM, OptIn;
  } Cases[] = {
      {"sm_75", 1024, 16, 65536, 65536},   {"sm_80", 2048, 32, 167936, 166912},
      {"sm_86", 1536, 16, 102400, 101376}, {"sm_87", 1536, 16, 167936, 166912},
      {"sm_89", 1536, 24, 102400, 101376}, {"sm_90", 2048, 32, 233472, 232448},
      {"sm_100", 2048, 32, 233472, 232448}, {"sm_103", 2048, 32, 233472, 232448},
      {"sm_110", 1536, 24, 233472, 232448}, {"sm_120", 1536, 24, 102400, 101376},
      {"sm_121", 1536, 24, 102400, 101376},
  };
  for (const auto &C : Cases) {
    const SmLimits &L = get(C.Name).limits();
    EXPECT_EQ(L.MaxThreadsPerSM, C.ThreadsPerSM) << C.Name;
    EXPECT_EQ(L.MaxBlocksPerSM, C.BlocksPerSM) << C.Name;
    EXPECT_EQ(L.SharedMemPerSM, C.SmemPerSM) << C.Name;
    EXPECT_EQ(L.OptInSharedMemPerBlock, C.OptIn) << C.Name;
    EXPECT_EQ(L.MaxThreadsPerBlock, 1024) << C.Name;
    EXPECT_EQ(L.RegisterAllocUnit, 256) << C.Name;
  }
  EXPECT_EQ(get("sm_75").limits().ReservedSharedMemPerBlock, 0);
  EXPECT_EQ(get("sm_75").limits().SharedMemAllocUnit, 256);
}

TEST(TargetInfo, VariantsShareLimitsAndCarveoutsEndAtSmemPerSM) {
  EXPECT_EQ(get("sm_90a").Limits, get("sm_90").Limits);
  EXPECT_EQ(get("sm_121f").Limits, get("sm_121").Limits);
  for (const TargetInfo &T : allTargets()) {
    llvm::ArrayRef<int> C = T.limits().CarveoutsKB;
    ASSERT_FALSE(C.empty()) << T.Name;
    EXPECT_TRUE(std::is_sorted(C.begin(), C.end())) << T.Name;
    EXPECT_EQ(C.back() * 1024, T.limits().SharedMemPerSM) << T.Name;
    if (T.Variant != ArchVariant::None) {
      EXPECT_EQ(T.Limits, get(llvm::StringRef(T.Name).drop_back()).Limits)
          << T.Name;
    }
  }
  EXPECT_EQ(get("sm_80").limits().CarveoutsKB,
            llvm::ArrayRef<int>({0, 8, 16, 32, 64, 100, 132, 164}));
}

TEST(TargetInfo, BinaryCompatibility) {
  struct {
    const char *Code, *Device;
    bool Runs;
  } Cases[] = {
      {"sm_100f", "sm_100", true},  {"sm_100f", "sm_103", true},
      {"sm_100f", "sm_110", false}, {"sm_100f", "sm_120", false},
      {"sm_103f", "sm_100", false}, {"sm_100a", "sm_100", true},
      {"sm_100a", "sm_103", false}, {"sm_90a", "sm_90", true},
      {"sm_90a", "sm_100", false},  {"sm_80", "sm_86", true},
      {"sm_80", "sm_89", true},     {"sm_80", "sm_90", false},
      {"sm_86", "sm_80", false},    {"sm_120f", "sm_121", true},
      {"sm_120a", "sm_121", false}, {"sm_90", "sm_90a", true},
  };
  for (const auto &C : Cases)
    EXPECT_EQ(get(C.Code).runsOn(get(C.Device)), C.Runs)
        << C.Code << " on " << C.Device;
}

} // namespace

TEST(TargetInfo, DefaultTargetIsSm80) {
  EXPECT_STREQ(defaultTarget().Name, "sm_80");
  EXPECT_EQ(&defaultTarget(), &get("sm_80"));
}
