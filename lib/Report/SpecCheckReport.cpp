//===- SpecCheckReport.cpp - What `spec --check` prints --------------------===//
#include "forge/Report/SpecCheckReport.h"
#include "forge/Arch/TargetInfo.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <map>
#include <set>
#include <tuple>

using namespace llvm;
using namespace forge;
using namespace forge::measure;

namespace {

/// Findings of one place: the same line, access and buffer.
struct Place {
  const SanitizerFinding *First = nullptr;
  unsigned Accesses = 0;
  std::set<std::string> Threads; ///< "thread in block"
  uint64_t MinOffset = 0, MaxOffset = 0;
};

/// The finding's place, the checked source named as the user named it.
std::string where(const SanitizerFinding &F, const SpecCheckResult &R) {
  if (F.File.empty())
    return "<unknown>";
  bool Checked = F.File == R.SourceIncluded ||
                 (!sys::path::has_parent_path(F.File) &&
                  F.File == sys::path::filename(R.SourceIncluded));
  std::string File = Checked ? R.Source : F.File;
  return F.Line ? formatv("{0}:{1}", File, F.Line).str() : File;
}

std::string byteRange(uint64_t Lo, uint64_t Hi) {
  return Lo == Hi ? formatv("{0} byte(s)", Lo).str()
                  : formatv("{0} to {1} bytes", Lo, Hi).str();
}

} // namespace

void report::renderSpecCheck(raw_ostream &OS, const SpecCheckResult &R, const LaunchSpec &Spec) {
  // Device findings grouped by place, in the order they first appeared.
  using Near = SanitizerFinding::Near;
  using Key = std::tuple<std::string, unsigned, std::string, std::string, uint64_t, Near>;
  std::map<Key, size_t> Index;
  std::vector<Place> Places;
  std::vector<const SanitizerFinding *> Host;
  for (const SanitizerFinding &F : R.Report.Findings) {
    if (!F.onDevice()) {
      Host.push_back(&F);
      continue;
    }
    uint64_t Off = F.Offset;
    Key K{F.File, F.Line, F.What, F.Address, F.AllocationBytes, F.Relation};
    auto [It, New] = Index.try_emplace(K, Places.size());
    if (New)
      Places.push_back({&F, 0, {}, Off, Off});
    Place &P = Places[It->second];
    ++P.Accesses;
    P.Threads.insert(F.Thread + F.Block);
    P.MinOffset = std::min(P.MinOffset, Off);
    P.MaxOffset = std::max(P.MaxOffset, Off);
  }

  for (const Place &P : Places) {
    const SanitizerFinding &F = *P.First;
    OS << where(F, R) << ": error: " << F.What;
    if (!F.Address.empty())
      OS << ": " << F.Address;
    std::string Buffers = R.buffersOfSize(F.AllocationBytes);
    std::string Name = Buffers.empty() ? formatv("an allocation of {0} bytes", F.AllocationBytes).str()
                                       : formatv("{0} ({1} bytes)", Buffers, F.AllocationBytes).str();
    // The sanitizer counts "after" from the buffer's last byte: 1 is the
    // first byte past its end.
    if (F.Relation == Near::After)
      OS << ", starting " << byteRange(P.MinOffset - 1, P.MaxOffset - 1) << " past the end of "
         << Name;
    else if (F.Relation == Near::Before)
      OS << ", " << byteRange(P.MinOffset, P.MaxOffset) << " before the start of " << Name;
    else if (F.Relation == Near::Inside)
      OS << ", inside " << Name;
    OS << formatv("; {0} access(es) by {1} thread(s), the first by thread {2} in block {3}",
                  P.Accesses, P.Threads.size(), F.Thread, F.Block);
    if (!F.Function.empty())
      OS << ", in " << F.Function;
    OS << "\n";
    // Past the end of exactly one buffer: the count it would need.
    if (F.Relation == Near::After && Buffers.find(" or ") == std::string::npos &&
        !Buffers.empty()) {
      StringRef BufName = StringRef(Buffers).drop_front().drop_back();
      if (const Buffer *B = Spec.findBuffer(BufName)) {
        uint64_t Elem = dtypeSize(B->Type);
        uint64_t Need = F.AllocationBytes + P.MaxOffset - 1 + std::max(F.Size, 1u);
        OS << formatv("note: the accesses reported need {0} bytes of '{1}' ({2} elements); its "
                      "count '{3}' is {4} here: the count is short, or the kernel's bound is "
                      "not the spec's\n",
                      Need, BufName, (Need + Elem - 1) / Elem, B->Count.text(),
                      F.AllocationBytes / Elem);
      }
    }
  }
  // A failed kernel makes every CUDA call after it fail: the first such
  // error says so, the rest are counted.
  if (!Host.empty()) {
    OS << "error: " << Host.front()->What << "\n";
    if (Host.size() > 1)
      OS << formatv("note: {0} more CUDA API error(s) after it\n", Host.size() - 1);
  }

  std::string Kernel = R.Kernel ? statusName(R.Kernel->Status) : "did not finish";
  OS << formatv("spec check: {0} on {1} ({2}) under compute-sanitizer memcheck: ", Spec.Kernel,
                R.GpuName, R.Target ? R.Target->Name : "?");
  if (R.Report.ErrorCount)
    OS << formatv("{0} error(s)", *R.Report.ErrorCount);
  else
    OS << "no error summary (the sanitizer did not finish)";
  if (!Places.empty())
    OS << formatv(" at {0} place(s) in the kernel", Places.size());
  OS << "; the kernel's run: " << Kernel;
  if (R.Kernel && !R.Kernel->Error.empty())
    OS << " (" << R.Kernel->Error << ")";
  if (!R.RunError.empty())
    OS << " (" << R.RunError << ")";
  OS << "\n";
}
