//===- Agent/Prompt.cpp - What a model is asked ---------------------------===//
#include "forge/Agent/Prompt.h"
#include "forge/Arch/GpuModel.h"
#include "forge/Arch/TargetInfo.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;

namespace forge::agent {

StringRef systemPrompt() {
  return R"(You are a CUDA performance engineer working inside Kernel Forge's optimisation loop.
You are shown one CUDA kernel, the GPU target, its latest measurement and what was tried before.
Propose ONE transformation that makes the kernel faster on that target.

Rules the loop enforces (a proposal that breaks one is rejected with its reason):
- Keep the kernel's name, template parameters and parameter types (you may add const or __restrict__).
- Keep every launch of the kernel; you may change only the launch configuration at launch sites.
- Edit only kernels, the __device__ functions they call, and launch configuration.
- Compute the same results as the original kernel on every element (checked on two random input sets
  against the original, every output element must be written; fp32 relative L2 error below 1e-5).
- Do not lower precision (no half/bfloat types, no fast-math intrinsics) unless told it is allowed.
- No host calls for processes, files, network or the environment.
- The kernel's launch geometry comes from a fixed launch spec: the grid and block are not yours to change,
  so the kernel must stay correct for the grid and block it is launched with.

Reply with SEARCH/REPLACE edit blocks ONLY, no prose outside them:

<<<<<<< SEARCH
exact lines copied from the current source
=======
the lines that replace them
>>>>>>> REPLACE

Each SEARCH text must appear exactly once in the current source. Use as many blocks as you need.)";
}

std::string targetFacts(const arch::TargetInfo &Target) {
  const arch::TargetInfo *T = &Target;
  const arch::SmLimits &L = T->limits();
  std::string S;
  raw_string_ostream OS(S);
  OS << formatv("{0} (compute capability {1}.{2}): {3} threads and {4} blocks per SM, at most {5} "
                "threads per block; {6} registers per SM, at most {7} per thread; {8} KB shared "
                "memory per SM, {9} B per block after opting in, {10} KB static __shared__ per "
                "block; warp size 32",
                T->Name, T->Major, T->Minor, L.MaxThreadsPerSM, L.MaxBlocksPerSM,
                L.MaxThreadsPerBlock, L.RegistersPerSM, L.MaxRegistersPerThread,
                L.SharedMemPerSM / 1024, L.OptInSharedMemPerBlock,
                L.StaticSharedMemPerBlock / 1024);
  std::vector<std::string> Features;
  for (unsigned F = 0; F < arch::NumFeatures; ++F)
    if (T->hasFeature(arch::Feature(F)))
      Features.push_back(arch::featureName(arch::Feature(F)));
  if (!Features.empty()) {
    OS << "; features:";
    for (const std::string &F : Features)
      OS << " " << F;
  }
  if (const arch::GpuModel *G = arch::referenceGpuFor(*T))
    OS << formatv(". A typical part is the {0}: {1} SMs, {2} MB L2, {3} GB/s DRAM, {4} TFLOP/s "
                  "FP32, {5} TFLOP/s FP64",
                  G->DeviceName, G->SMs, G->L2MB, G->BandwidthGBs, G->Fp32Tflops,
                  G->Fp64Tflops);
  OS << ".";
  return S;
}

namespace {

/// The kernel, the target, the measurement, the launch, the tunables, the
/// kernel's model and the history: what every prompt of a round shows.
void writeContext(raw_ostream &OS, const ProposalRequest &Req) {
  OS << "## Kernel\n`" << Req.Kernel << "` in " << Req.File << " (round " << Req.Round
     << ").\n\n## Target\n"
     << (Req.TargetFacts.empty() && Req.Target ? targetFacts(*Req.Target) : Req.TargetFacts) << "\n\n";
  OS << "## Latest measurement\n" << (Req.Analysis.empty() ? "not measured" : Req.Analysis)
     << "\n";
  if (Req.BlockThreads)
    OS << "Launched with " << *Req.BlockThreads << " threads per block";
  if (!Req.Geometry.empty()) {
    OS << (Req.BlockThreads ? "; " : "") << "launch spec:";
    for (const auto &[K, V] : Req.Geometry)
      OS << " " << K << " = " << V << ";";
  }
  OS << "\n";
  if (!Req.Tunables.empty()) {
    OS << "Tunable parameters (the tuner sweeps these separately):";
    for (const auto &[K, V] : Req.Tunables)
      OS << " " << K << "=" << V;
    OS << "\n";
  }
  if (!Req.Model.empty()) {
    // The model names the line and the pattern; a long one is cut, not the
    // source below.
    constexpr size_t MaxLines = 120;
    SmallVector<StringRef> Lines;
    StringRef(Req.Model).rtrim().split(Lines, '\n');
    OS << "\n## Kernel analysis (static, from the AST)\n";
    for (size_t I = 0; I < Lines.size() && I < MaxLines; ++I)
      OS << Lines[I] << "\n";
    if (Lines.size() > MaxLines)
      OS << "(" << Lines.size() - MaxLines << " more lines not shown)\n";
  }
  if (!Req.History.empty()) {
    OS << "\n## Tried so far\n";
    for (const Attempt &A : Req.History)
      OS << "- round " << A.Round << ", " << A.Origin << ": " << A.Summary << " -> "
         << verdictName(A.Verdict) << (A.Stage ? " at " + stageName(*A.Stage).str() : "")
         << (A.Reason.empty() ? "" : ": " + A.Reason) << "\n";
  }
}

/// Text that came from outside the loop (an evolved instruction, a line of
/// the user-editable experience file) as one line: control characters
/// dropped, whitespace folded, at most Max bytes.
std::string oneLine(StringRef Text, size_t Max) {
  std::string Out;
  bool Space = false;
  for (unsigned char C : Text) {
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      Space = !Out.empty();
      continue;
    }
    if (C < 0x20 || C == 0x7f)
      continue;
    if (Space)
      Out += ' ';
    Space = false;
    Out += char(C);
  }
  if (Out.size() > Max) {
    size_t End = Max;
    while (End > 0 && ((unsigned char)Out[End] & 0xc0) == 0x80)
      --End;
    Out.resize(End);
    Out += " [cut]";
  }
  return Out;
}

/// The evolving instruction and the experience library's lines, when the
/// request has them; nothing otherwise.
void writeGuidance(raw_ostream &OS, const ProposalRequest &Req) {
  constexpr size_t MaxInstruction = 1200, MaxExperienceLine = 400, MaxExperienceLines = 12;
  std::string Instruction = oneLine(Req.Instruction, MaxInstruction);
  std::vector<std::string> Lines;
  for (const std::string &L : Req.Experience) {
    std::string T = oneLine(L, MaxExperienceLine);
    if (!T.empty() && Lines.size() < MaxExperienceLines)
      Lines.push_back(std::move(T));
  }
  if (Instruction.empty() && Lines.empty())
    return;
  OS << "\n## Guidance\n";
  if (!Instruction.empty())
    OS << "Approach: " << Instruction << "\n";
  if (!Lines.empty()) {
    if (!Instruction.empty())
      OS << "\n";
    OS << "What earlier runs measured on kernels of this pattern:\n";
    for (const std::string &L : Lines)
      OS << "- " << L << "\n";
  }
}

void writeFailed(raw_ostream &OS, const ProposalRequest &Req, const Proposal *Failed) {
  if (Failed) {
    OS << "\n## Your previous edit did not compile\nThe edit:\n" << Failed->Edits
       << "\n\nThe compiler said:\n"
       << Req.CompileErrors
       << "\n\nFix the edit. Reply with edit blocks against the CURRENT source below (the failed "
          "edit is NOT applied).\n";
  }
}

} // namespace

std::string buildPrompt(const ProposalRequest &Req, const Proposal *Failed) {
  std::string S;
  raw_string_ostream OS(S);
  writeContext(OS, Req);
  writeGuidance(OS, Req);
  writeFailed(OS, Req, Failed);
  OS << "\n## Current source (" << Req.File << ")\n```cuda\n" << Req.Source;
  if (!StringRef(Req.Source).ends_with("\n"))
    OS << "\n";
  OS << "```\n\nReply with SEARCH/REPLACE edit blocks only.\n";
  return S;
}

std::string fenceFor(StringRef Text) {
  size_t Longest = 0, Run = 0;
  for (char C : Text) {
    Run = C == '`' ? Run + 1 : 0;
    Longest = std::max(Longest, Run);
  }
  return std::string(std::max<size_t>(3, Longest + 1), '`');
}

namespace {

void writeSource(raw_ostream &OS, StringRef Source) {
  std::string Fence = fenceFor(Source);
  OS << Fence << "cuda\n" << Source;
  if (!Source.ends_with("\n"))
    OS << "\n";
  OS << Fence << "\n";
}

std::string timeText(double Ns) {
  return Ns > 0 ? formatv("{0:F2} us", Ns / 1000).str() : std::string("not measured");
}

} // namespace

std::vector<std::pair<std::string, std::pair<std::string, std::string>>>
cellDifferences(StringRef Current, StringRef Other) {
  static const char *Names[] = {"memory strategy", "work per thread", "vector width",
                                "occupancy band"};
  SmallVector<StringRef, 4> A, B;
  Current.split(A, '/');
  Other.split(B, '/');
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> Out;
  if (A.size() != 4 || B.size() != 4) {
    if (Current != Other)
      Out.push_back({"cell", {Current.trim().str(), Other.trim().str()}});
    return Out;
  }
  for (unsigned I = 0; I < 4; ++I)
    if (A[I].trim() != B[I].trim())
      Out.push_back({Names[I], {A[I].trim().str(), B[I].trim().str()}});
  return Out;
}

std::string buildCrossoverPrompt(const ProposalRequest &Req, const Proposal *Failed) {
  if (!Req.Other)
    return buildPrompt(Req, Failed);
  const ProposalRequest::Elite &O = *Req.Other;
  constexpr size_t MaxOther = 64 * 1024;
  std::string Cell = oneLine(Req.Cell, 200), OtherCell = oneLine(O.Cell, 200),
              Origin = oneLine(O.Origin, 200);
  std::string S;
  raw_string_ostream OS(S);
  writeContext(OS, Req);
  writeGuidance(OS, Req);
  OS << "\n## Crossover\n"
     << "This step combines two elites of an evolutionary search over versions of this kernel. "
        "They sit in different cells of its archive (a cell is memory strategy / work per "
        "thread / vector width / occupancy band):\n"
     << "- the CURRENT kernel, the one you edit: cell " << (Cell.empty() ? "unknown" : Cell)
     << ", " << timeText(Req.CurrentNs) << ";\n"
     << "- the OTHER elite: cell " << (OtherCell.empty() ? "unknown" : OtherCell) << ", "
     << timeText(O.MedianNs);
  if (Req.CurrentNs > 0 && O.MedianNs > 0) {
    double R = Req.CurrentNs / O.MedianNs;
    if (R >= 1)
      OS << formatv(" ({0:F2}x faster than the current)", R);
    else
      OS << formatv(" ({0:F2}x slower than the current)", 1 / R);
  }
  if (!Origin.empty())
    OS << ", produced by " << Origin;
  OS << ".\n";
  auto Diff = cellDifferences(Cell, OtherCell);
  if (Diff.empty()) {
    OS << "\nTheir cells are alike; they differ in how the code is written.\n";
  } else {
    OS << "\nWhat differs between them (current vs other):\n";
    for (const auto &[What, Values] : Diff)
      OS << "- " << What << ": " << Values.first << " vs " << Values.second << "\n";
  }
  OS << "\nPropose ONE edit of the CURRENT source that combines the strengths of both: keep "
        "what makes the current kernel fast and bring in what makes the other elite fast. The "
        "other elite is shown for reference only: it is never applied, and every SEARCH text "
        "must be copied from the CURRENT source. The usual rules hold for the result.\n";
  writeFailed(OS, Req, Failed);
  OS << "\n## The other elite (reference only; do not edit it)\n";
  StringRef OtherSource = O.Source;
  if (OtherSource.size() > MaxOther) {
    size_t End = MaxOther;
    while (End > 0 && ((unsigned char)OtherSource[End] & 0xc0) == 0x80)
      --End;
    writeSource(OS, OtherSource.take_front(End));
    OS << "(" << OtherSource.size() - End << " more bytes not shown)\n";
  } else {
    writeSource(OS, OtherSource);
  }
  OS << "\n## Current source (" << Req.File << ")\n";
  writeSource(OS, Req.Source);
  OS << "\nReply with SEARCH/REPLACE edit blocks against the CURRENT source only.\n";
  return S;
}

} // namespace forge::agent
