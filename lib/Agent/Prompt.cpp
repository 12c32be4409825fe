//===- Agent/Prompt.cpp - What a model is asked ---------------------------===//
#include "forge/Agent/Prompt.h"
#include "forge/Arch/GpuModel.h"
#include "forge/Arch/TargetInfo.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

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

std::string buildPrompt(const ProposalRequest &Req, const Proposal *Failed) {
  std::string S;
  raw_string_ostream OS(S);
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
  if (Failed) {
    OS << "\n## Your previous edit did not compile\nThe edit:\n" << Failed->Edits
       << "\n\nThe compiler said:\n"
       << Req.CompileErrors
       << "\n\nFix the edit. Reply with edit blocks against the CURRENT source below (the failed "
          "edit is NOT applied).\n";
  }
  OS << "\n## Current source (" << Req.File << ")\n```cuda\n" << Req.Source;
  if (!StringRef(Req.Source).ends_with("\n"))
    OS << "\n";
  OS << "```\n\nReply with SEARCH/REPLACE edit blocks only.\n";
  return S;
}

} // namespace forge::agent
