//===- Agent/ProposeSession.cpp - The propose driver ----------------------===//
#include "forge/Agent/ProposeSession.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Agent/Prompt.h"
#include "forge/Arch/GpuModel.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include <deque>

using namespace llvm;

namespace forge::agent {

namespace {

bool sameKernel(StringRef A, StringRef B) {
  auto Last = [](StringRef S) {
    return S.rsplit("::").second.empty() ? S : S.rsplit("::").second;
  };
  return A == B || Last(A) == Last(B);
}

/// Block size, tunables and geometry from the spec.
Error fillFromSpec(ProposalRequest &Req, const measure::LaunchSpec &Spec, StringRef SpecPath) {
  auto Env = Spec.environment();
  if (!Env)
    return Env.takeError();
  auto G = Spec.geometry(*Env);
  if (!G)
    return makeError("{0}: the launch geometry at the default tunables: {1}", SpecPath,
                     toString(G.takeError()));
  Req.Block = G->Block;
  Req.BlockThreads = G->Block[0] * G->Block[1] * G->Block[2];
  Req.Spec = &Spec; // as the optimizer passes it: rules may read sizes and scalars
  for (const measure::Tunable &T : Spec.Tunables)
    Req.Tunables[T.Name] = T.defaultValue();
  static const char *const Dims[] = {"x", "y", "z"};
  for (size_t I = 0; I < Spec.Grid.size() && I < 3; ++I)
    Req.Geometry[std::string("grid.") + Dims[I]] = Spec.Grid[I].text();
  for (size_t I = 0; I < Spec.Block.size() && I < 3; ++I)
    Req.Geometry[std::string("block.") + Dims[I]] = Spec.Block[I].text();
  return Error::success();
}

/// The block of the kernel's first launch in the file with constant
/// dimensions, if any.
void fillFromLaunch(ProposalRequest &Req, const frontend::Toolchain &TC,
                    const frontend::ParseOptions &PO) {
  frontend::ParseDiagnostics Quiet(nullptr);
  auto Index = frontend::buildKernelIndex(TC, PO, Req.File, Quiet);
  if (!Index) {
    consumeError(Index.takeError());
    return;
  }
  for (const frontend::LaunchSiteInfo &L : Index->LaunchSites) {
    if (!L.Active || !sameKernel(L.Kernel, Req.Kernel))
      continue;
    if (L.Block.Dim3)
      Req.Block = *L.Block.Dim3;
    else if (L.Block.Value)
      Req.Block = std::array<int64_t, 3>{{*L.Block.Value, 1, 1}};
    else
      continue;
    Req.BlockThreads = (*Req.Block)[0] * (*Req.Block)[1] * (*Req.Block)[2];
    return;
  }
}

} // namespace

bool ProposeResult::empty() const {
  if (!Steps.empty() || !Original.empty())
    return llvm::none_of(Steps, [](const ApplyStep &S) { return S.Applied.has_value(); });
  return Proposals.empty();
}

Expected<ProposeResult> ProposeSession::run() {
  if (!O.Target || !O.Toolchain)
    return makeError("ProposeSession: the target and the toolchain are required");
  if (O.Spec && O.Block)
    return makeUsageError("--spec and --block exclude each other");
  ProposeResult R;
  R.Kernel = O.Kernel;
  if (R.Kernel.empty() && O.Spec)
    R.Kernel = O.Spec->Kernel;
  if (R.Kernel.empty())
    return makeUsageError("--kernel is required (or a --spec that names the kernel)");
  if (O.Spec && !sameKernel(O.Spec->Kernel, R.Kernel))
    return makeUsageError("the spec {0} is for kernel '{1}', not '{2}'", O.SpecPath,
                          O.Spec->Kernel, R.Kernel);
  if (Error E = frontend::checkCudaInput(O.File))
    return std::move(E);
  auto Source = readFile(O.File);
  if (!Source)
    return Source.takeError();
  if (O.Output.K == OutputChoice::Kind::File) {
    bool Same = false;
    if (!sys::fs::equivalent(O.File, O.Output.Path, Same) && Same)
      return makeUsageError(
          "-o names the input file; 'propose' never rewrites its input, write elsewhere");
  }
  auto PO = frontend::makeParseOptions(O.File, O.BuildDir, O.Target, O.ExtraArgs);
  if (!PO)
    return PO.takeError();

  ProposalRequest Req;
  Req.File = O.File;
  Req.Source = *Source;
  Req.Kernel = R.Kernel;
  Req.Target = O.Target;
  Req.AssumeNoAlias = O.AssumeNoAlias;
  Req.TargetFacts = targetFacts(*O.Target);
  // The SM count of the target's reference GPU (H200 for sm_90), else an
  // H200's 132: there is no GPU to ask here.
  const arch::GpuModel *Gpu = arch::referenceGpuFor(*O.Target);
  Req.SmCount = Gpu ? unsigned(Gpu->SMs) : 132;
  if (O.Spec) {
    if (Error E = fillFromSpec(Req, *O.Spec, O.SpecPath))
      return std::move(E);
  } else if (O.Block) {
    Req.Block = *O.Block;
    Req.BlockThreads = (*O.Block)[0] * (*O.Block)[1] * (*O.Block)[2];
  } else {
    fillFromLaunch(Req, *O.Toolchain, *PO);
  }

  if (!O.Apply) {
    ExpertProposer P(*O.Toolchain, *PO, O.Rules);
    P.setParseDiagnostics(O.ParseDiagOS);
    auto Proposals = P.propose(Req);
    if (!Proposals)
      return Proposals.takeError();
    R.Proposals = std::move(*Proposals);
    R.Skipped = P.skipped();
    return R;
  }

  // One rule at a time, each on the result of the previous ones.
  R.Original = *Source;
  R.Source = *Source;
  std::deque<measure::LaunchSpec> Specs; // the spec as each step leaves it
  for (size_t I = 0; I < O.Rules.size(); ++I) {
    ExpertProposer P(*O.Toolchain, *PO, {O.Rules[I]});
    P.setComposable(O.Rules);
    P.setParseDiagnostics(I == 0 ? O.ParseDiagOS : nullptr);
    Req.Source = R.Source;
    auto Proposals = P.propose(Req);
    if (!Proposals)
      return Proposals.takeError();
    ApplyStep Step;
    Step.Rule = O.Rules[I]->Name;
    Step.Skipped = P.skipped();
    if (!Proposals->empty()) {
      Proposal &Pr = Proposals->front();
      if (!Pr.launchOnly()) {
        auto Next = applyEditText(Pr.Edits, O.File, R.Source, Pr.Origin);
        if (!Next)
          return makeError("{0}: {1}", Pr.Origin, toString(Next.takeError()));
        R.Source = std::move(*Next);
      }
      if (Pr.Spec && Req.Spec) {
        // Later rules see the spec as this proposal leaves it.
        measure::ValueMap V(Req.Tunables.begin(), Req.Tunables.end());
        auto Next = applySpecChange(*Req.Spec, *Pr.Spec, Specs, V);
        if (!Next)
          return makeError("{0}: {1}", Pr.Origin, toString(Next.takeError()));
        setLaunch(Req, **Next, V);
      } else if (Pr.Spec) {
        for (const auto &[Field, Expr] : Pr.Spec->Geometry)
          Req.Geometry[Field] = Expr;
        for (const auto &[Name, Values] : Pr.Spec->NewTunables)
          if (!Values.empty())
            Req.Tunables[Name] = Values.front();
        for (const auto &[Name, Value] : Pr.Spec->Values)
          Req.Tunables[Name] = Value;
      }
      Step.Applied = std::move(Pr);
    }
    R.Steps.push_back(std::move(Step));
  }
  if (!R.empty() && O.Output.K == OutputChoice::Kind::File)
    if (Error E = O.Output.write(O.File, R.Source, /*Changed=*/true))
      return std::move(E);
  return R;
}

} // namespace forge::agent
