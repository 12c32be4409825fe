//===- Agent/Optimizer.cpp - The optimisation loop ------------------------===//
#include "forge/Agent/Optimizer.h"
#include "OptimizerLoop.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <deque>
#include <regex>

using namespace llvm;

namespace forge::agent {

namespace {

/// Whether a compiler diagnostic's file is Source (nvcc names it as it was
/// given, or resolved).
bool isSourceFile(StringRef File, StringRef Source) {
  if (File == Source)
    return true;
  bool Same = false;
  return !sys::fs::equivalent(File, Source, Same) && Same;
}

/// The compiler's log with every message located in another file, and the
/// source lines quoted under it, replaced by RedactedDiagnostic: a header
/// an edit made the compiler read is not sent back to a model.
std::string redactLog(StringRef Log, StringRef Source) {
  static const std::regex Located("^\\s*([^\\s:(]+)(:[0-9]+|\\([0-9]+\\))");
  SmallVector<StringRef, 0> Lines;
  Log.split(Lines, '\n');
  std::vector<std::string> Out;
  bool Redacting = false;
  for (StringRef L : Lines) {
    std::smatch M;
    std::string S = L.str();
    if (std::regex_search(S, M, Located))
      Redacting = !isSourceFile(M[1].str(), Source);
    else if (!L.starts_with(" ") && !L.starts_with("\t"))
      Redacting = false;
    if (!Redacting)
      Out.push_back(S);
    else if (Out.empty() || Out.back() != frontend::RedactedDiagnostic)
      Out.push_back(frontend::RedactedDiagnostic.str());
  }
  return join(Out, "\n");
}

} // namespace

std::string compileErrorsForModel(const build::CompileResult &C, StringRef Source, unsigned Max) {
  std::vector<std::string> Lines;
  for (const build::CompilerDiagnostic &D : C.Diagnostics)
    if (D.isError() && Lines.size() < Max) {
      std::string Text = D.File.empty() || isSourceFile(D.File, Source)
                             ? D.format()
                             : frontend::RedactedDiagnostic.str();
      if (!is_contained(Lines, Text))
        Lines.push_back(Text);
    }
  if (Lines.empty())
    return StringRef(redactLog(StringRef(C.Log).trim(), Source)).take_back(1500).str();
  return join(Lines, "\n");
}


const StageVerdict *ProposalRecord::failedStage() const {
  for (const StageVerdict &S : Stages)
    if (!S.Passed)
      return &S;
  return nullptr;
}

InstructionPool::~InstructionPool() = default;

bool detail::stage(ProposalRecord &R, Stage S, bool Passed, std::string Detail) {
  R.Stages.push_back({S, Passed, std::move(Detail)});
  if (!Passed) {
    R.Verdict = Verdict::Rejected;
    R.Reason = stageName(S).str() + ": " + R.Stages.back().Detail;
  }
  return Passed;
}

namespace {

/// The line span of [Offset, Offset + Length) in Text (an insertion is its
/// line).
LineSpan spanOf(StringRef Text, unsigned Offset, unsigned Length) {
  unsigned First = 1 + Text.take_front(Offset).count('\n');
  StringRef Body = Text.substr(Offset, Length);
  unsigned Last = First + Body.count('\n') - (Body.ends_with("\n") && Length ? 1 : 0);
  return {First, std::max(First, Last)};
}

/// The first line of Span in Text that is not blank and not in a line an
/// edit may touch (0 when there is none): an edit that adds a device helper
/// before a kernel spans both, and the blank line between them.
unsigned outsideLine(StringRef Text, LineSpan Span, const KernelContract &C) {
  if (C.editable(Span.First, Span.Last))
    return 0;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (unsigned L = Span.First; L <= Span.Last; ++L)
    if (L <= Lines.size() && !Lines[L - 1].trim().empty() && !C.editable(L, L))
      return L;
  return 0;
}

/// Checks where each edit of Patches lands: every line of its old text in
/// Before and of its new text in After must lie in lines an edit may touch.
std::string checkScope(const patch::PatchSet &Patches, StringRef Key, StringRef Before,
                       const KernelContract &CB, StringRef After, const KernelContract &CA) {
  long Shift = 0;
  for (const patch::Edit &E : Patches.editsFor(Key)) {
    const auto &Rp = E.Replacement;
    if (Rp.getLength()) {
      LineSpan Old = spanOf(Before, Rp.getOffset(), Rp.getLength());
      if (outsideLine(Before, Old, CB))
        return formatv("the edit of lines {0}-{1} changes code outside the kernels, the device "
                       "functions and the launch configuration (widen with --scope=file)",
                       Old.First, Old.Last)
            .str();
    }
    unsigned NewOffset = unsigned(long(Rp.getOffset()) + Shift);
    if (!Rp.getReplacementText().empty()) {
      LineSpan New = spanOf(After, NewOffset, Rp.getReplacementText().size());
      if (outsideLine(After, New, CA))
        return formatv("the new lines {0}-{1} are outside the kernels, the device functions and "
                       "the launch configuration (widen with --scope=file)",
                       New.First, New.Last)
            .str();
    }
    Shift += long(Rp.getReplacementText().size()) - long(Rp.getLength());
  }
  return "";
}

} // namespace

namespace detail {

std::string Loop::writeVersion(StringRef Sub, StringRef Text) const {
  std::string Dir = (O.JobRoot + "/" + Sub).str();
  sys::fs::create_directories(Dir);
  std::string Path = Dir + "/" + sys::path::filename(O.File).str();
  if (Error E = writeFileAtomically(Path, Text))
    consumeError(std::move(E)); // surfaces as "no such file" at compile time
  return Path;
}

ProposalRequest Loop::request(unsigned Round, const KernelSnapshot &Snap) const {
  ProposalRequest Q;
  Q.Round = Round;
  Q.File = O.File;
  Q.Source = Current.Source;
  Q.Kernel = O.Spec->Kernel;
  Q.Target = O.Target;
  Q.TargetFacts = O.TargetFacts;
  Q.Analysis = Snap.Analysis;
  Q.Model = CurrentContract.Model;
  Q.Bound = Snap.Bound;
  Q.History = History;
  Q.SmCount = O.SmCount;
  Q.AssumeNoAlias = O.AssumeNoAlias;
  if (O.Experience)
    Q.Experience = O.Experience->promptLines(CurrentContract.Pattern, CurrentContract.Family,
                                             O.Target->Name, 8);
  setLaunch(Q, *Current.Spec, Current.Values);
  return Q;
}

/// A launch change in words: "grid.x = ..., BLOCK = 256, constraint ...".
static std::string launchChangeText(const SpecChange &S) {
  std::vector<std::string> Parts;
  for (const auto &[F, T] : S.Geometry)
    Parts.push_back(F + " = " + T);
  for (const auto &[F, V] : S.Values)
    Parts.push_back(F + " = " + std::to_string(V));
  for (const std::string &K : S.NewConstraints)
    Parts.push_back("constraint " + K);
  return join(Parts, ", ");
}

bool Loop::validate(Candidate &C, const Proposal &P, unsigned Round, unsigned Index) {
  ProposalRecord &Rec = C.Rec;
  // A stage records one verdict: its first failure, or its success.
  auto Fail = [&](Stage S, std::string Why) { return stage(Rec, S, false, Why); };
  auto Pass = [&](Stage S, std::string What) { stage(Rec, S, true, What); };

  // A launch change alone, no edit: the tuner's best values of tunables
  // only the spec holds (a capped grid's waves), or a built-in rule's new
  // grid for a kernel correct for any grid (grid-fill). The source stays,
  // each value must be one the tunable declares, the geometry change must
  // be one applySpecChange allows, and the compile, the check and the
  // timing judge the launch it makes. A model's reply must edit.
  bool Geometry = P.Spec && (!P.Spec->Geometry.empty() || !P.Spec->NewTunables.empty() ||
                             !P.Spec->NewConstraints.empty());
  if (P.launchOnly() && (!Geometry || P.Trusted)) {
    Pass(Stage::Parse, Geometry ? "no edit: a change of the launch"
                                : "no edit: new values of the spec's tunables");
    Pass(Stage::Apply, "the source stays as it is");
    for (const auto &[Name, Val] : P.Spec->Values) {
      const measure::Tunable *T = Current.Spec->findTunable(Name);
      if (!T)
        return Fail(Stage::Contract, Name + " is not a tunable of the spec");
      if (!T->Values.empty() && !is_contained(T->Values, Val))
        return Fail(Stage::Contract, formatv("{0} = {1} is not one of the values the spec "
                                             "declares for it",
                                             Name, Val)
                                         .str());
    }
    C.Values = Current.Values;
    auto S = applySpecChange(*Current.Spec, *P.Spec, Specs, C.Values);
    if (!S)
      return Fail(Stage::Contract, "the launch change is not allowed: " + toString(S.takeError()));
    C.Spec = *S;
    Pass(Stage::Contract, "the source unchanged; the launch changed (" +
                              launchChangeText(*P.Spec) + ")" +
                              (Geometry ? ": " + P.Spec->Justification : ""));
    C.Patched = Current.Source;
    C.Rec.SourcePath = writeVersion(formatv("round-{0}/p{1}", Round, Index).str(), C.Patched);
    return true;
  }

  auto Blocks = parseEditBlocks(P.Edits);
  if (!Blocks)
    return Fail(Stage::Parse, toString(Blocks.takeError()));
  Pass(Stage::Parse, formatv("{0} edit block(s)", Blocks->size()).str());

  patch::ContentsProvider Contents = [&](StringRef F) -> Expected<std::string> {
    if (patch::PatchSet::normalizePath(F) == Key)
      return Current.Source;
    return makeError("{0} is not the file being optimised", F);
  };
  auto Patches = applyEditBlocks(*Blocks, O.File, {}, Contents, P.Origin);
  if (!Patches)
    return Fail(Stage::Apply, toString(Patches.takeError()));
  auto Patched = Patches->applyTo(Key, Current.Source);
  if (!Patched)
    return Fail(Stage::Apply, toString(Patched.takeError()));
  if (*Patched == Current.Source)
    return Fail(Stage::Apply, "the edits change nothing");
  Pass(Stage::Apply, formatv("{0} edit(s)", Patches->size()).str());
  if (auto D = Patches->diff(Contents))
    Rec.Diff = *D;
  else
    consumeError(D.takeError());

  auto After = O.Checker->analyse(O.File, *Patched, O.Spec->Kernel, *O.Target);
  if (!After)
    return Fail(Stage::Reparse, toString(After.takeError()));
  // The edit check (EditCheck.h) runs on the re-parse's AST before its
  // errors are judged: an edit that adds what no kernel optimisation needs
  // is rejected for that, in every scope and from every proposer, and its
  // parse errors (which may quote a file it included) never go back to a
  // model in a repair request.
  std::vector<std::string> Added =
      checkEdit(CurrentContract.Facts, After->Facts, O.Scope == "file");
  if (!Added.empty()) {
    std::string Why = "the edit adds what no kernel optimisation needs: " + join(Added, "; ");
    if (After->ParseErrors > CurrentContract.ParseErrors)
      Why += formatv(" (and {0} new parse error(s))",
                     After->ParseErrors - CurrentContract.ParseErrors)
                 .str();
    return Fail(Stage::Scan, Why);
  }
  if (After->ParseErrors > CurrentContract.ParseErrors)
    return Fail(Stage::Reparse, formatv("{0} new parse error(s): {1}",
                                   After->ParseErrors - CurrentContract.ParseErrors,
                                   join(After->ErrorMessages, "\n"))
                               .str());
  Pass(Stage::Reparse, formatv("{0} error(s), as before", After->ParseErrors).str());

  if (!After->Found)
    return Fail(Stage::Contract, "the kernel " + O.Spec->Kernel + " is no longer defined");
  if (After->Signature != CurrentContract.Signature)
    return Fail(Stage::Contract, "the signature changed from '" + CurrentContract.Signature +
                                "' to '" + After->Signature + "'");
  if (After->Launches != CurrentContract.Launches)
    return Fail(Stage::Contract, "the launches changed from [" +
                                join(CurrentContract.Launches, "; ") + "] to [" +
                                join(After->Launches, "; ") + "]");
  std::string Contract = "signature '" + After->Signature + "' and " +
                         std::to_string(After->Launches.size()) + " launch(es) unchanged";
  C.Spec = Current.Spec;
  C.Values = Current.Values;
  if (P.Spec && !P.Spec->empty()) {
    auto S = applySpecChange(*Current.Spec, *P.Spec, Specs, C.Values);
    if (!S)
      return Fail(Stage::Contract, "the launch change is not allowed: " + toString(S.takeError()));
    C.Spec = *S;
    Contract += "; launch changed (" + launchChangeText(*P.Spec) + "): " + P.Spec->Justification;
  }
  Pass(Stage::Contract, Contract);

  if (O.Scope != "file" && !P.Trusted) {
    std::string Why = checkScope(*Patches, Key, Current.Source, CurrentContract, *Patched, *After);
    if (!Why.empty())
      return Fail(Stage::Scope, Why);
    Pass(Stage::Scope, "only kernels, device functions and launch configuration changed");
  }

  if (!O.Spec->AllowLowerPrecision) {
    std::vector<std::string> Low = scanForLowerPrecision(Current.Source, *Patched);
    if (!Low.empty())
      return Fail(Stage::Scan, "lowered precision without permission (the spec's "
                          "allow_lower_precision): " +
                              join(Low, ", "));
  }
  Pass(Stage::Scan, "the AST check finds nothing added outside the allowlists; no lowered "
                    "precision added");
  C.Patched = *Patched;
  C.Rec.SourcePath = writeVersion(formatv("round-{0}/p{1}", Round, Index).str(), *Patched);
  return true;
}

void Loop::rankByExperience(std::vector<Proposal> &Props) const {
  if (!O.Experience || Props.size() < 2)
    return;
  std::vector<std::string> Names;
  for (const Proposal &P : Props)
    if (!is_contained(Names, P.Origin))
      Names.push_back(P.Origin);
  std::vector<std::string> Order = O.Experience->rank(Names, CurrentContract.Pattern,
                                                      CurrentContract.Family, O.Target->Name);
  auto Rank = [&](const Proposal &P) { return find(Order, P.Origin) - Order.begin(); };
  std::stable_sort(Props.begin(), Props.end(),
                   [&](const Proposal &A, const Proposal &B) { return Rank(A) < Rank(B); });
}

void Loop::noteExperience(const ProposalRecord &Rec, const KernelContract &Base) {
  if (!O.Experience || !Rec.Verdict || *Rec.Verdict == Verdict::Unmeasured)
    return;
  experience::Entry E;
  E.Transformation = Rec.P.Origin;
  E.Pattern = Base.Pattern;
  E.Family = Base.Family;
  E.Arch = O.Target->Name;
  E.Gpu = O.GpuName;
  E.Kernel = O.Spec->Kernel;
  E.File = O.File;
  switch (*Rec.Verdict) {
  case Verdict::Accepted:
  case Verdict::Superseded: // faster than the kernel it changed; another was faster still
    E.V = experience::Verdict::Kept;
    E.Gain = Rec.Speedup;
    break;
  case Verdict::Slower:
    E.V = experience::Verdict::Slower;
    E.Gain = Rec.Speedup;
    break;
  case Verdict::NotFaster:
    E.V = experience::Verdict::NotFaster;
    E.Gain = Rec.Speedup;
    break;
  default:
    E.V = experience::Verdict::Rejected;
    if (const StageVerdict *F = Rec.failedStage())
      E.Stage = stageName(F->Stage).str();
    break;
  }
  R.Experience.push_back(std::move(E));
}

bool Loop::checked(Candidate &C, const measure::CandidateOutcome &Out) {
  C.Rec.Status = Out.Result.Status;
  if (Out.Resources) {
    C.Rec.Registers = Out.Resources->Registers;
    C.Rec.StaticShared = Out.Resources->SharedMemBytes;
  }
  return stage(C.Rec, Stage::Correctness, Out.Result.ok(),
               Out.Result.ok()
                   ? (Precise ? "matches the original summed in double, within the "
                                "original's own distance from it; inputs unchanged"
                              : "matches the original on every output; inputs unchanged")
                   : std::string(statusName(Out.Result.Status)) + ": " +
                         measure::describeRejection(Out.Result, O.Job.FloorFactor));
}

Error Loop::judge(Candidate &C, const ProposalRequest &Q, unsigned Round, unsigned Index) {
  if (!validate(C, C.Rec.P, Round, Index)) {
    // Clang's errors are compiler errors too: they get the repair.
    if (C.Rec.failedStage()->Stage != Stage::Reparse)
      return Error::success();
  } else {
    auto Ok = compile(C);
    if (!Ok)
      return Ok.takeError();
    if (*Ok)
      return Error::success();
  }
  // One repair attempt with the compiler's errors.
  ProposalRequest RQ = Q;
  RQ.CompileErrors = C.Rec.Stages.back().Detail;
  auto Fixed = O.Propose->repair(RQ, C.Rec.P);
  if (!Fixed) {
    stage(C.Rec, Stage::Repair, false, toString(Fixed.takeError()));
    C.Rec.Reason = "compile: " + C.Rec.Stages[C.Rec.Stages.size() - 2].Detail;
    return Error::success();
  }
  if (!*Fixed)
    return Error::success();
  C.Rec.Repair = **Fixed;
  C.Rec.Stages.push_back({Stage::Repair, true, "asked once with the compiler's errors"});
  Candidate Second;
  Second.Rec = C.Rec;
  Second.Rec.Verdict.reset();
  Second.Rec.Reason.clear();
  if (validate(Second, **Fixed, Round, Index)) {
    auto Ok2 = compile(Second);
    if (!Ok2)
      return Ok2.takeError();
    if (*Ok2)
      Second.Rec.Repaired = true;
  }
  C = std::move(Second);
  return Error::success();
}

Expected<bool> Loop::compile(Candidate &C) {
  build::CompileJob J;
  J.Source = C.Rec.SourcePath;
  J.Targets = {*O.Target};
  J.Output = build::OutputKind::Object;
  J.IncludeDirs = {SrcDir};
  J.ExtraFlags = O.NvccFlags;
  auto R = O.Driver->compile(J);
  if (!R)
    return R.takeError();
  if (R->ok())
    return stage(C.Rec, Stage::Compile, true, std::string("compiles for ") + O.Target->Name);
  stage(C.Rec, Stage::Compile, false, compileErrorsForModel(*R, J.Source));
  return false;
}

Expected<measure::MeasureReport>
Loop::measure(unsigned Round, std::vector<measure::MeasureCandidate> Cands) {
  measure::MeasureRequest Q;
  Q.Spec = Reference.Spec;
  Q.Reference = {"ref", Reference.Path, Origin.Values, ReferenceLabel, nullptr};
  Q.Candidates = std::move(Cands);
  Q.Target = O.GpuTarget;
  Q.NvccFlags = O.NvccFlags;
  Q.NvccFlags.push_back("-I" + SrcDir);
  Q.Job = O.Job;
  Q.JobDir = formatv("{0}/round-{1}/job", O.JobRoot, Round).str();
  Q.WorkerPath = O.WorkerPath;
  if (O.Measure)
    return O.Measure(Q);
  return measure::runMeasurement(*O.Driver, Q);
}

KernelSnapshot Loop::snapshot(const measure::MeasureReport &Rep,
                              const measure::CandidateOutcome &Out,
                              const measure::LaunchSpec &Spec,
                              const measure::ValueMap &Values) const {
  KernelSnapshot S;
  const measure::CandidateResult &C = Out.Result;
  if (C.Time)
    S.MedianNs = C.Time->Median;
  S.Noise = C.Noise.value_or(0);
  S.AchievedGBs = C.GBps.value_or(0);
  S.AchievedGflops = C.GFlops.value_or(0);
  std::string Roof;
  if (Rep.Ceiling && S.MedianNs > 0) {
    measure::RooflinePosition P =
        measure::classify(Rep.Work.Bytes, Rep.Work.Flops, S.MedianNs, *Rep.Ceiling,
                          Rep.Work.Type == measure::DType::F64);
    S.Bound = StringRef(measure::bottleneckName(P.Class)).split('-').first.str();
    S.FractionOfPeak = P.Fraction;
    Roof = formatv("{0}: {1:F0} GB/s of {2:F0} GB/s DRAM ({3:F0} %), {4:F1} GFLOP/s ({5:F1} % "
                   "of the arithmetic ceiling)",
                   measure::bottleneckName(P.Class), S.AchievedGBs, Rep.Ceiling->DramGBps,
                   P.MemFraction * 100, S.AchievedGflops, P.ComputeFraction * 100)
               .str();
  }
  if (Out.Resources) {
    S.Registers = Out.Resources->Registers;
    S.StaticShared = Out.Resources->SharedMemBytes;
  }
  const arch::TargetInfo *T = O.GpuTarget ? O.GpuTarget : O.Target;
  auto Env = Spec.environment(Values);
  if (Env && Out.Resources) {
    if (auto G = Spec.geometry(*Env)) {
      arch::KernelResources K;
      K.ThreadsPerBlock = int(G->Block[0] * G->Block[1] * G->Block[2]);
      K.RegistersPerThread = int(S.Registers);
      K.StaticSharedBytes = int(S.StaticShared);
      K.DynamicSharedBytes = int(G->SharedMemBytes);
      if (auto Occ = arch::computeOccupancy(*T, K))
        S.Occupancy = Occ->Occupancy;
      else
        consumeError(Occ.takeError());
    } else {
      consumeError(G.takeError());
    }
  }
  if (!Env)
    consumeError(Env.takeError());
  S.Analysis = formatv("{0:F2} us (noise ±{1:F1} %); {2}; {3} registers, {4} B static shared "
                       "memory, theoretical occupancy {5:F0} %",
                       S.MedianNs / 1000, S.Noise * 100,
                       Roof.empty() ? std::string("no roofline (no ceilings)") : Roof,
                       S.Registers, S.StaticShared, S.Occupancy * 100)
                   .str();
  std::string Hot = describeHotLines(CurrentContract.Hot);
  if (!Hot.empty())
    S.Analysis += "; " + Hot;
  return S;
}

Expected<KernelSnapshot> Loop::measureOriginal() {
  progress("measuring the original kernel");
  if (O.Precise) {
    // The original against the double sums, with its buffers unchecked
    // (a bound no float sum misses): how far it is sets their tolerance.
    measure::LaunchSpec Loose = *O.Spec;
    for (measure::Buffer &B : Loose.Buffers)
      if (llvm::is_contained(O.Precise->Buffers, B.Name))
        B.ToleranceOverride = measure::Tolerance{1e30, std::nullopt};
    Specs.push_back(std::move(Loose));
    Reference.Spec = &Specs.back();
    Precise = true;
    auto Rep = measure(0, {{"current", Origin.Path, Origin.Values, "original", nullptr}});
    const measure::CandidateOutcome *Orig = nullptr;
    if (Rep)
      for (const measure::CandidateOutcome &Out : Rep->Outcomes)
        if (Out.Candidate.Id == "current" && Out.Result.ok() && Out.Result.Time)
          Orig = &Out;
    if (Orig) {
      measure::LaunchSpec Tuned = *O.Spec;
      std::vector<std::string> Parts;
      for (measure::Buffer &B : Tuned.Buffers) {
        if (!llvm::is_contained(O.Precise->Buffers, B.Name))
          continue;
        double Rel = 0, Abs = 0;
        for (const measure::BufferCheck &C : Orig->Result.Checks)
          if (C.Buffer == B.Name) {
            Rel = std::max(Rel, C.RelL2);
            Abs = std::max(Abs, C.MaxAbs);
          }
        // The atomics' order differs from run to run: a quarter more than
        // the original's distance, on top of the spec's own tolerance.
        measure::Tolerance T = Tuned.toleranceFor(B);
        measure::Tolerance W;
        W.RelL2 = T.RelL2.value_or(0) + 1.25 * Rel;
        if (T.MaxAbs)
          W.MaxAbs = *T.MaxAbs + 1.25 * Abs;
        B.ToleranceOverride = W;
        Parts.push_back(formatv("'{0}': the original is {1:e} from it (rel_l2, worst input "
                                "set), so a proposal may be {2:e}",
                                B.Name, Rel, *W.RelL2)
                            .str());
      }
      Specs.push_back(std::move(Tuned));
      Reference.Spec = &Specs.back();
      ReferenceLabel = "original in double";
      R.Reference += "; " + join(Parts, "; ");
      R.Device = Rep->Device;
      return snapshot(*Rep, *Orig, *O.Spec, {});
    }
    // The reference itself failed: check against the original instead.
    std::string Why = Rep ? (Rep->Outcomes.size() > 1
                                 ? measure::describeRejection(Rep->Outcomes[1].Result,
                                                              O.Job.FloorFactor)
                                 : std::string("no result for the original"))
                          : toString(Rep.takeError());
    progress("the precision reference failed (" + Why + "); checking against the original");
    R.Reference = "the original kernel (the precision reference failed: " + Why + ")";
    Reference = Origin;
    Precise = false;
    R.PreciseReference = false;
  }
  auto Rep = measure(0, {});
  if (!Rep)
    return Rep.takeError();
  R.Device = Rep->Device;
  return snapshot(*Rep, Rep->Outcomes.front(), *O.Spec, {});
}

Expected<OptimizeResult> Loop::run() {
  auto Snap = start();
  if (!Snap)
    return Snap.takeError();
  return O.Evolve ? evolve(*Snap) : greedy(*Snap);
}

Expected<KernelSnapshot> Loop::start() {
  auto Text = readFile(O.File);
  if (!Text)
    return Text.takeError();
  Key = patch::PatchSet::normalizePath(O.File);
  SmallString<256> Abs(O.File);
  sys::fs::make_absolute(Abs);
  SrcDir = sys::path::parent_path(Abs).str();
  R.OriginalSource = *Text;
  Origin = {writeVersion("original", *Text), *Text, O.Spec, {}};
  Current = Origin;

  progress("reading " + O.File);
  auto C0 = O.Checker->analyse(O.File, *Text, O.Spec->Kernel, *O.Target);
  if (!C0)
    return C0.takeError();
  if (!C0->Found)
    return makeError("{0}: no definition of the kernel {1} (the spec's kernel)", O.File,
                     O.Spec->Kernel);
  CurrentContract = *C0;
  R.OriginalModel = C0->Model;

  bool Gpu = O.GpuTarget != nullptr;
  R.Measured = Gpu;
  KernelSnapshot Snap;
  Reference = Origin;
  if (O.Precise) {
    Reference.Path = writeVersion("reference-hp", O.Precise->Source);
    Reference.Source = O.Precise->Source;
    R.Reference = "the original with " + O.Precise->Summary;
    R.PreciseReference = true;
  }
  if (Gpu) {
    auto S = measureOriginal();
    if (!S)
      return S.takeError();
    Snap = *S;
  } else {
    Snap.Analysis = "not measured (no GPU)";
    std::string Hot = describeHotLines(CurrentContract.Hot);
    if (!Hot.empty())
      Snap.Analysis += "; " + Hot;
  }
  R.Baseline = Snap;
  return Snap;
}

Expected<OptimizeResult> Loop::greedy(KernelSnapshot Snap) {
  bool Gpu = O.GpuTarget != nullptr;
  for (unsigned Round = 1; Round <= O.MaxRounds; ++Round) {
    if (O.Interrupted && *O.Interrupted) {
      R.StopReason = "interrupted";
      break;
    }
    RoundRecord RR;
    RR.Number = Round;
    RR.Before = Snap;
    progress(formatv("round {0}/{1}: asking the {2} proposer", Round, O.MaxRounds,
                     O.Propose->name()));
    ProposalRequest Q = request(Round, Snap);
    auto Props = O.Propose->propose(Q);
    if (!Props) {
      R.StopReason = "the " + O.Propose->name().str() + " proposer failed: " +
                     toString(Props.takeError());
      RR.Note = R.StopReason;
      RR.After = Snap;
      R.Rounds.push_back(std::move(RR));
      R.ProposerFailed = true;
      break;
    }
    RR.NotProposed = O.Propose->notProposed();
    if (Props->empty()) {
      R.StopReason = "the " + O.Propose->name().str() + " proposer has nothing new to propose";
      R.LastNotProposed = RR.NotProposed;
      break;
    }
    rankByExperience(*Props);
    if (Props->size() > O.MaxProposalsPerRound)
      Props->resize(O.MaxProposalsPerRound);
    // The kernel this round's proposals change (Current moves on when one
    // is kept), for the experience library.
    const KernelContract Base = CurrentContract;

    std::vector<Candidate> Cands(Props->size());
    for (size_t I = 0; I < Props->size(); ++I) {
      Candidate &C = Cands[I];
      C.Rec.P = (*Props)[I];
      progress(formatv("round {0}/{1}: validating {2} of {3}: {4}", Round, O.MaxRounds, I + 1,
                       Props->size(), C.Rec.P.Origin));
      if (Error E = judge(C, Q, Round, unsigned(I)))
        return std::move(E);
    }

    // Stages 6 and 7: every survivor in one job, with the original as the
    // reference and the current kernel among the candidates.
    std::vector<size_t> Live;
    for (size_t I = 0; I < Cands.size(); ++I)
      if (!Cands[I].Rec.Verdict)
        Live.push_back(I);
    if (!Gpu) {
      for (size_t I : Live) {
        Cands[I].Rec.Verdict = Verdict::Unmeasured;
        Cands[I].Rec.Reason = "passed every stage up to the compile; no GPU to check and time it";
      }
    } else if (!Live.empty()) {
      std::vector<measure::MeasureCandidate> MC;
      // Against the precision reference the original is a candidate too.
      bool CurrentIsOrigin = Current.Path == Origin.Path && !Precise;
      if (!CurrentIsOrigin)
        MC.push_back({"current", Current.Path, Current.Values, "current",
                      Current.Spec == O.Spec ? nullptr : Current.Spec});
      for (size_t I : Live)
        MC.push_back({formatv("r{0}p{1}", Round, I).str(), Cands[I].Rec.SourcePath,
                      Cands[I].Values, Cands[I].Rec.P.Origin,
                      Cands[I].Spec == O.Spec ? nullptr : Cands[I].Spec});
      progress(formatv("round {0}/{1}: checking and timing {2} proposal(s) on the GPU", Round,
                       O.MaxRounds, Live.size()));
      auto Rep = measure(Round, std::move(MC));
      if (!Rep)
        return Rep.takeError();
      const measure::CandidateOutcome *Cur = &Rep->Outcomes.front();
      for (const measure::CandidateOutcome &Out : Rep->Outcomes)
        if (Out.Candidate.Id == "current")
          Cur = &Out;
      if (!Cur->Result.ok() || !Cur->Result.Time)
        return makeError("the current kernel failed its check in round {0}: {1}", Round,
                         measure::describeRejection(Cur->Result, O.Job.FloorFactor));
      Snap = RR.Before = snapshot(*Rep, *Cur, *Current.Spec, Current.Values);
      double CurNs = Cur->Result.Time->Median;
      for (const measure::CandidateOutcome &Out : Rep->Outcomes) {
        auto It = llvm::find_if(Live, [&](size_t I) {
          return Out.Candidate.Id == formatv("r{0}p{1}", Round, I).str();
        });
        if (It == Live.end())
          continue;
        Candidate &C = Cands[*It];
        if (!checked(C, Out))
          continue;
        C.Rec.MedianNs = Out.Result.Time ? Out.Result.Time->Median : 0;
        C.Rec.Speedup = C.Rec.MedianNs > 0 ? CurNs / C.Rec.MedianNs : 0;
        double Noise = std::max({Out.Result.Noise.value_or(0), Cur->Result.Noise.value_or(0),
                                 O.MinGain});
        std::string T = formatv("{0:F2} us -> {1:F2} us, {2:F3}x (noise ±{3:F1} %)",
                                CurNs / 1000, C.Rec.MedianNs / 1000, C.Rec.Speedup, Noise * 100)
                            .str();
        if (C.Rec.Speedup > 1 + Noise) {
          stage(C.Rec, Stage::Timing, true, T);
        } else {
          stage(C.Rec, Stage::Timing, false, T);
          C.Rec.Verdict = C.Rec.Speedup < 1 - Noise ? Verdict::Slower : Verdict::NotFaster;
          C.Rec.Reason = "timing: " + T;
        }
      }
      // The fastest survivor is kept.
      int Best = -1;
      for (size_t I : Live)
        if (!Cands[I].Rec.Verdict &&
            (Best < 0 || Cands[I].Rec.MedianNs < Cands[size_t(Best)].Rec.MedianNs))
          Best = int(I);
      for (size_t I : Live)
        if (!Cands[I].Rec.Verdict) {
          Cands[I].Rec.Verdict = int(I) == Best ? Verdict::Accepted : Verdict::Superseded;
          Cands[I].Rec.Reason = Cands[I].Rec.Stages.back().Detail;
        }
      if (Best >= 0) {
        Candidate &W = Cands[size_t(Best)];
        const measure::CandidateOutcome *WO = nullptr;
        for (const measure::CandidateOutcome &Out : Rep->Outcomes)
          if (Out.Candidate.Id == formatv("r{0}p{1}", Round, Best).str())
            WO = &Out;
        RR.Accepted = Best;
        Current = {W.Rec.SourcePath, W.Patched, W.Spec, W.Values};
        auto CC = O.Checker->analyse(O.File, W.Patched, O.Spec->Kernel, *O.Target);
        if (!CC)
          return CC.takeError();
        CurrentContract = *CC;
        Snap = snapshot(*Rep, *WO, *W.Spec, W.Values);
      }
    }
    RR.After = Snap;
    RR.Gain = RR.Before.MedianNs > 0 && RR.After.MedianNs > 0
                  ? RR.Before.MedianNs / RR.After.MedianNs
                  : 1.0;
    for (Candidate &C : Cands) {
      std::optional<Stage> Reached;
      if (const StageVerdict *F = C.Rec.failedStage())
        Reached = F->Stage;
      else if (!C.Rec.Stages.empty())
        Reached = C.Rec.Stages.back().Stage;
      History.push_back(
          {Round, C.Rec.P.Origin, C.Rec.P.Summary, Reached, C.Rec.Verdict, C.Rec.Reason});
      noteExperience(C.Rec, Base);
      RR.Proposals.push_back(std::move(C.Rec));
      if (O.OnRecord)
        O.OnRecord(Round, RR.Proposals.back());
    }
    bool Stop = false;
    if (!Gpu) {
      RR.Note = R.StopReason = "no GPU: proposals were validated up to the compile stage and "
                               "none can be checked or timed, so none is kept";
      Stop = true;
    } else if (RR.Accepted < 0) {
      RR.Note = "no proposal was correct and faster than the noise; the round is rolled back";
      // The rules that failed are not asked again; the loop goes on while
      // the proposer has something new.
    } else if (RR.Gain - 1 < O.Threshold) {
      RR.Note = R.StopReason = formatv("the round gained {0:F1} %, below the {1:F0} % threshold",
                                       (RR.Gain - 1) * 100, O.Threshold * 100)
                                   .str();
      Stop = true;
    }
    R.Rounds.push_back(std::move(RR));
    if (Stop)
      break;
    if (Round == O.MaxRounds)
      R.StopReason = formatv("the round limit ({0}) was reached", O.MaxRounds).str();
  }
  R.FinalSource = Current.Source;
  R.FinalSpec = *Current.Spec;
  R.FinalValues = std::map<std::string, int64_t>(Current.Values.begin(), Current.Values.end());
  R.Final = Snap;
  return std::move(R);
}

} // namespace detail

Expected<OptimizeResult> runOptimization(const OptimizeOptions &O) {
  if (!O.Spec || !O.Target || !O.Checker || !O.Driver || !O.Propose)
    return makeError(
        "runOptimization: the spec, target, checker, driver and proposer are required");
  detail::Loop L(O);
  return L.run();
}

} // namespace forge::agent
