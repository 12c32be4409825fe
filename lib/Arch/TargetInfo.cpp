//===- Arch/TargetInfo.cpp - The CUDA target table ------------------------===//
//
// Sources, checked for CUDA 13.0:
//  - CUDA C++ Programming Guide, "Technical Specifications per Compute
//    Capability" (resident blocks/warps/threads, shared memory per SM and
//    per block, 255 registers per thread) and the per-capability "Shared
//    Memory" sections (carveout sizes, the 1 KB reserved per block).
//  - cuda_occupancy.h in the toolkit (blocks per SM, allocation units,
//    carveouts per compute capability; sm_75 allocates shared memory in
//    256 B units, sm_80 and later in 128 B units).
//  - PTX ISA 9.0 target requirements for wgmma, tcgen05 and setmaxnreg.
//
//===----------------------------------------------------------------------===//

#include "forge/Arch/TargetInfo.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace forge::arch {

namespace {

constexpr int KB = 1024;

const int TuringCarveouts[] = {32, 64};
const int Carveouts100[] = {0, 8, 16, 32, 64, 100};
const int Carveouts164[] = {0, 8, 16, 32, 64, 100, 132, 164};
const int Carveouts228[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

// Threads/SM, blocks/SM, threads/block, regs/SM, regs/block, regs/thread,
// register unit, sub-partitions, smem/SM, opt-in smem/block, static
// smem/block, smem unit, reserved smem/block, carveouts.
const SmLimits CC75 = {1024, 16, 1024, 65536, 65536, 255, 256, 4,
                       64 * KB, 64 * KB, 48 * KB, 256, 0, TuringCarveouts};
const SmLimits CC80 = {2048, 32, 1024, 65536, 65536, 255, 256, 4,
                       164 * KB, 163 * KB, 48 * KB, 128, KB, Carveouts164};
const SmLimits CC86 = {1536, 16, 1024, 65536, 65536, 255, 256, 4,
                       100 * KB, 99 * KB, 48 * KB, 128, KB, Carveouts100};
const SmLimits CC87 = {1536, 16, 1024, 65536, 65536, 255, 256, 4,
                       164 * KB, 163 * KB, 48 * KB, 128, KB, Carveouts164};
const SmLimits CC89 = {1536, 24, 1024, 65536, 65536, 255, 256, 4,
                       100 * KB, 99 * KB, 48 * KB, 128, KB, Carveouts100};
const SmLimits CC90 = {2048, 32, 1024, 65536, 65536, 255, 256, 4,
                       228 * KB, 227 * KB, 48 * KB, 128, KB, Carveouts228};
// 10.0 and 10.3 (B200, B300) share the Hopper-sized SM.
const SmLimits CC100 = CC90;
// 11.0 (Thor, sm_101 before CUDA 13): 48 warps and 24 blocks per SM.
const SmLimits CC110 = {1536, 24, 1024, 65536, 65536, 255, 256, 4,
                        228 * KB, 227 * KB, 48 * KB, 128, KB, Carveouts228};
// 12.0 and 12.1 (RTX 50, DGX Spark).
const SmLimits CC120 = {1536, 24, 1024, 65536, 65536, 255, 256, 4,
                        100 * KB, 99 * KB, 48 * KB, 128, KB, Carveouts100};

constexpr unsigned bit(Feature F) { return 1u << static_cast<unsigned>(F); }

constexpr unsigned Ampere = bit(Feature::CpAsync);
constexpr unsigned Hopper = Ampere | bit(Feature::TMA) | bit(Feature::Clusters);
constexpr unsigned HopperA = Hopper | bit(Feature::WGMMA) |
                             bit(Feature::SetMaxNReg);
constexpr unsigned BlackwellDC = Hopper | bit(Feature::TCGen05) |
                                 bit(Feature::SetMaxNReg);
constexpr unsigned BlackwellRtx = Hopper | bit(Feature::SetMaxNReg);

constexpr ArchVariant P = ArchVariant::None;
constexpr ArchVariant A = ArchVariant::ArchSpecific;
constexpr ArchVariant F = ArchVariant::FamilySpecific;

// The features are spelled out per row rather than derived from the
// compute capability: which suffix unlocks what is exactly the knowledge
// the porting rules need, and it does not follow a simple order.
const TargetInfo Targets[] = {
    {"sm_75", 7, 5, P, &CC75, 0},
    {"sm_80", 8, 0, P, &CC80, Ampere},
    {"sm_86", 8, 6, P, &CC86, Ampere},
    {"sm_87", 8, 7, P, &CC87, Ampere},
    {"sm_89", 8, 9, P, &CC89, Ampere},
    {"sm_90", 9, 0, P, &CC90, Hopper},
    {"sm_90a", 9, 0, A, &CC90, HopperA},
    {"sm_100", 10, 0, P, &CC100, Hopper},
    {"sm_100a", 10, 0, A, &CC100, BlackwellDC},
    {"sm_100f", 10, 0, F, &CC100, BlackwellDC},
    {"sm_103", 10, 3, P, &CC100, Hopper},
    {"sm_103a", 10, 3, A, &CC100, BlackwellDC},
    {"sm_103f", 10, 3, F, &CC100, BlackwellDC},
    {"sm_110", 11, 0, P, &CC110, Hopper},
    {"sm_110a", 11, 0, A, &CC110, BlackwellDC},
    {"sm_110f", 11, 0, F, &CC110, BlackwellDC},
    {"sm_120", 12, 0, P, &CC120, Hopper},
    {"sm_120a", 12, 0, A, &CC120, BlackwellRtx},
    {"sm_120f", 12, 0, F, &CC120, BlackwellRtx},
    {"sm_121", 12, 1, P, &CC120, Hopper},
    {"sm_121a", 12, 1, A, &CC120, BlackwellRtx},
    {"sm_121f", 12, 1, F, &CC120, BlackwellRtx},
};

const char *const FeatureNames[NumFeatures] = {
    "cp.async", "tma", "clusters", "wgmma", "tcgen05", "setmaxnreg",
};

/// "SM_90A", "sm90a", "90a", "compute_90a" -> "90a"; None if the rest is
/// not digits with an optional a/f suffix.
std::optional<std::string> canonicalSuffix(StringRef Name) {
  std::string Lower = Name.trim().lower();
  StringRef S = Lower;
  if (!S.consume_front("compute_") && !S.consume_front("compute"))
    if (!S.consume_front("sm_"))
      S.consume_front("sm");
  StringRef Digits = S;
  if (S.ends_with("a") || S.ends_with("f"))
    Digits = S.drop_back();
  if (Digits.empty() || !all_of(Digits, isDigit))
    return std::nullopt;
  return S.str();
}

} // namespace

const char *featureName(Feature F) {
  return FeatureNames[static_cast<unsigned>(F)];
}

std::string TargetInfo::archMacroValue() const {
  return std::to_string(Major * 100 + Minor * 10);
}

std::string TargetInfo::gencodeArch() const {
  return "compute_" + StringRef(Name).drop_front(3).str();
}

std::string TargetInfo::gencode(bool Ptx) const {
  return "arch=" + gencodeArch() + ",code=" + (Ptx ? gencodeArch() : gencodeCode());
}

bool TargetInfo::runsOn(const TargetInfo &Device) const {
  if (Variant == ArchVariant::ArchSpecific)
    return Device.Major == Major && Device.Minor == Minor;
  return Device.Major == Major && Device.Minor >= Minor;
}

ArrayRef<TargetInfo> allTargets() { return Targets; }

const TargetInfo &defaultTarget() {
  for (const TargetInfo &T : Targets)
    if (StringRef(T.Name) == "sm_80")
      return T;
  llvm_unreachable("the target table has no sm_80");
}

std::vector<std::string> knownTargetNames() {
  std::vector<std::string> Names;
  for (const TargetInfo &T : Targets)
    Names.push_back(T.Name);
  return Names;
}

Expected<const TargetInfo &> lookupTarget(StringRef Name) {
  if (std::optional<std::string> Suffix = canonicalSuffix(Name)) {
    std::string Canonical = "sm_" + *Suffix;
    for (const TargetInfo &T : Targets)
      if (Canonical == T.Name)
        return T;
  }
  return makeUsageError("unknown target '{0}'; known targets: {1}",
                        Name.trim(), join(knownTargetNames(), ", "));
}

Expected<std::vector<const TargetInfo *>>
parseTargetList(StringRef CommaSeparated) {
  SmallVector<StringRef, 8> Parts;
  CommaSeparated.split(Parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<const TargetInfo *> Result;
  for (StringRef Part : Parts) {
    if (Part.trim().empty())
      continue;
    Expected<const TargetInfo &> T = lookupTarget(Part);
    if (!T)
      return T.takeError();
    if (!is_contained(Result, &*T))
      Result.push_back(&*T);
  }
  if (Result.empty())
    return makeUsageError("empty target list '{0}'; known targets: {1}",
                          CommaSeparated, join(knownTargetNames(), ", "));
  return Result;
}

} // namespace forge::arch
