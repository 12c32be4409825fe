//===- Templates/ModelNew.cpp - `forge-port new --llm` --------------------===//
#include "forge/Templates/ModelNew.h"
#include "forge/Agent/EditCheck.h"
#include "forge/Agent/Optimizer.h"
#include "forge/Agent/Prompt.h"
#include "forge/Agent/SourceCheck.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Frontend/CudaInvocation.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Measure/Measurement.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Output.h"
#include "forge/Templates/Description.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace forge::templates {

//===-- References --------------------------------------------------------===//

namespace {

/// How near Sample is to what was asked: the element type, then its size
/// and family, then the shape's rank and values (key-value pairs).
int nearness(const Request &Sample, std::optional<Scalar> Type, const Request *Parsed) {
  int Score = 0;
  if (Type) {
    const ScalarInfo &A = scalarInfo(Sample.Type), &B = scalarInfo(*Type);
    Score += Sample.Type == *Type ? 8 : 0;
    Score += A.Bytes == B.Bytes ? 4 : 0;
    Score += A.Floating == B.Floating ? 2 : 0;
  }
  if (Parsed && Parsed->Kind == Sample.Kind) {
    Score += Sample.Shape.size() == Parsed->Shape.size() ? 1 : 0;
    Score += bool(Sample.ValueType) == bool(Parsed->ValueType) ? 1 : 0;
  }
  return Score;
}

std::string kindPhrase(OpKind K) {
  return formatv("the same operation ({0})", opKindName(K)).str();
}

} // namespace

std::vector<ModelReference> chooseReferences(StringRef Description, const Request *Parsed,
                                             unsigned Max) {
  std::vector<ModelReference> Refs;
  if (Max == 0)
    return Refs;
  if (Parsed) {
    if (Expected<Instance> I = instantiate(*Parsed)) {
      ModelReference R;
      R.Sample = "your-request";
      R.Template = I->Template;
      R.Why = "the library's template instantiated for the request as parsed";
      R.Req = *Parsed;
      R.Inst = std::move(*I);
      Refs.push_back(std::move(R));
    } else {
      consumeError(I.takeError());
    }
  }
  DescriptionHints H = descriptionHints(Description);
  std::vector<OpKind> Kinds;
  if (Parsed)
    Kinds.push_back(Parsed->Kind);
  for (OpKind K : H.Kinds)
    if (!is_contained(Kinds, K))
      Kinds.push_back(K);
  std::optional<Scalar> Type = Parsed ? std::optional<Scalar>(Parsed->Type) : H.Type;

  auto Used = [&](StringRef Template) {
    return any_of(Refs, [&](const ModelReference &R) { return R.Template == Template; });
  };
  // One sample per operation, in the order said; then, while there is
  // room, the operations' other templates (a radix sort, then a merge sort).
  for (bool OtherTemplates : {false, true})
    for (OpKind K : Kinds) {
      if (Refs.size() >= Max)
        return Refs;
      bool Have = any_of(Refs, [&](const ModelReference &R) { return R.Req.Kind == K; });
      if (Have && !OtherTemplates)
        continue;
      const TemplateInfo *Best = nullptr;
      std::optional<Request> BestReq;
      int BestScore = -1;
      for (const TemplateInfo &T : templateCatalog()) {
        if (T.Kind != K || Used(T.Name))
          continue;
        for (const Request &S : T.Samples()) {
          int Score = nearness(S, Type, Parsed);
          if (Score > BestScore) {
            Best = &T, BestReq = S, BestScore = Score;
          }
        }
      }
      if (!Best)
        continue;
      Expected<Instance> I = Best->Instantiate(*BestReq);
      if (!I) {
        consumeError(I.takeError());
        continue;
      }
      ModelReference R;
      R.Sample = BestReq->Name;
      R.Template = Best->Name.str();
      R.Why = kindPhrase(K);
      R.Req = *BestReq;
      R.Inst = std::move(*I);
      Refs.push_back(std::move(R));
    }
  if (Refs.empty())
    for (const TemplateInfo &T : templateCatalog())
      if (T.Kind == OpKind::Map) {
        Request S = T.Samples().front();
        if (Expected<Instance> I = T.Instantiate(S)) {
          ModelReference R;
          R.Sample = S.Name;
          R.Template = T.Name.str();
          R.Why = "no operation of the library was recognised: an example of the file and "
                  "spec format";
          R.Req = S;
          R.Inst = std::move(*I);
          Refs.push_back(std::move(R));
        } else {
          consumeError(I.takeError());
        }
        break;
      }
  return Refs;
}

//===-- The prompt --------------------------------------------------------===//

StringRef modelNewSystemPrompt() {
  return R"(You are a CUDA engineer writing a new kernel for Kernel Forge (`forge-port new`).
You are given a description of an operation, what Kernel Forge's description parser understood of it,
the GPU target, and reference kernels from Kernel Forge's template library, each with its launch spec.
Write ONE self-contained .cu file that computes the described operation in ONE launch of ONE
__global__ kernel, and that kernel's launch spec.

Rules (a reply that breaks one is refused with its reason, and nothing is written):
- The file is ordinary, commented CUDA: the kernel, the __device__ functions it calls and, as in the
  references, an inline host wrapper that launches it on the current device. No main().
- No cuBLAS, CUB, Thrust or other libraries. Include only <cuda_runtime.h>, <cstddef>, <cstdint>,
  <cstring>, <climits>, <cfloat>, <cmath>, <cuda_fp16.h>, <cuda_bf16.h>, <cooperative_groups.h>,
  <mma.h> or <cuda/std/...> headers.
- Host code may call only the CUDA runtime's launch, device-query, error, memory and synchronisation
  functions and math functions: no files, processes, network or environment, no asm in host code, no
  attributes besides __launch_bounds__, alignment and inlining, no #pragma but unroll, no code in
  #if branches that the device compile does not see.
- The spec is JSON in the references' format: "kernel", "template_args", "sizes", "buffers" (name,
  dtype, count, init, role), "scalars", "args" (the kernel's parameters in order), "grid", "block",
  "shared_mem", "tunables", "constraints", "bytes", "flops". Inputs are initialised with "uniform",
  "normal", "iota" or "constant" (never "file"). Expressions may use the sizes and the tunables.
- The kernel must write every output element for the grid and block the spec launches it with, and
  give the same results for every value of its tunables.

Reply with exactly two fenced code blocks, and nothing else fenced: the whole .cu file, then its spec.

```cuda
// the whole file
```

```json
{ "kernel": "...", ... }
```)";
}

std::string buildModelNewPrompt(const ModelNewAsk &A) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "## Description\n" << A.Description << "\n\n";
  OS << "## What Kernel Forge understood\n"
     << (A.Understood.empty() ? std::string("nothing") : A.Understood) << "\n\n";
  OS << "## Target\n";
  if (A.Target)
    OS << agent::targetFacts(*A.Target) << "\n";
  OS << "The spec's sizes are for a GPU with " << A.SMs
     << " SMs (the references' SMS); the host wrapper asks the device it runs on.\n\n";
  OS << "## The template library\n";
  for (const TemplateInfo &T : templateCatalog())
    OS << "- " << T.Name << " (" << opKindName(T.Kind) << "): " << T.Summary << "\n";
  for (size_t I = 0; I < A.References.size(); ++I) {
    const ModelReference &R = A.References[I];
    OS << "\n## Reference " << I + 1 << ": template '" << R.Template << "', sample '" << R.Sample
       << "'\n"
       << describe(R.Req) << "; shown for " << R.Why << ".\n";
    std::string Fence = agent::fenceFor(R.Inst.Source);
    OS << Fence << "cuda\n" << R.Inst.Source << (StringRef(R.Inst.Source).ends_with("\n") ? "" : "\n")
       << Fence << "\n";
    std::string Spec = R.Inst.Spec.dump(1);
    Fence = agent::fenceFor(Spec);
    OS << Fence << "json\n" << Spec << "\n" << Fence << "\n";
  }
  OS << "\n## Your reply\nWrite the kernel for the description above";
  if (!A.Name.empty())
    OS << ", named `" << A.Name << "` (the spec's \"kernel\")";
  OS << ". Reply with one ```cuda block (the whole file) and one ```json block (its launch spec) "
        "only.\n";
  return S;
}

std::string buildModelNewRepair(StringRef Stage, StringRef Detail) {
  return formatv("Your reply failed the {0} check:\n{1}\n\nReply again with the whole corrected "
                 "file in one ```cuda block and its launch spec in one ```json block.\n",
                 Stage, Detail)
      .str();
}

//===-- The reply ---------------------------------------------------------===//

Expected<ModelKernelReply> parseModelNewReply(StringRef Reply) {
  SmallVector<StringRef, 0> Lines;
  Reply.split(Lines, '\n');
  std::optional<std::pair<std::string, unsigned>> Source, Spec; // text, line
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].rtrim("\r");
    StringRef T = L.ltrim(' ');
    if (L.size() - T.size() > 3 || !T.starts_with("```"))
      continue;
    size_t Ticks = T.find_first_not_of('`');
    if (Ticks == StringRef::npos)
      Ticks = T.size();
    std::string Info = T.drop_front(Ticks).trim().lower();
    StringRef Lang = StringRef(Info).split(' ').first;
    unsigned Open = I + 1;
    std::string Body;
    size_t J = I + 1;
    for (; J < Lines.size(); ++J) {
      StringRef C = Lines[J].rtrim("\r");
      StringRef CT = C.trim();
      if (CT.size() >= Ticks && CT.find_first_not_of('`') == StringRef::npos)
        break;
      Body += C.str() + "\n";
    }
    if (J == Lines.size())
      return makeError("the code block opened on line {0} of the reply is not closed", Open);
    I = J;
    if (Lang.empty())
      return makeError("the code block on line {0} of the reply has no language: tag the kernel "
                       "```cuda and its spec ```json",
                       Open);
    bool IsCuda = is_contained({"cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc"}, Lang);
    if (!IsCuda && Lang != "json")
      return makeError("the code block on line {0} of the reply is '{1}': the reply must hold "
                       "one cuda block (the kernel file) and one json block (its spec), nothing "
                       "else fenced",
                       Open, Lang);
    auto &Slot = IsCuda ? Source : Spec;
    if (Slot)
      return makeError("the reply has two {0} blocks (lines {1} and {2}); it must hold one",
                       IsCuda ? "cuda" : "json", Slot->second, Open);
    Slot = std::make_pair(std::move(Body), Open);
  }
  if (!Source && !Spec)
    return makeError("the reply has no fenced code block: it must hold one ```cuda block (the "
                     "kernel file) and one ```json block (its spec)");
  if (!Source)
    return makeError("the reply has no ```cuda block (the kernel file)");
  if (!Spec)
    return makeError("the reply has no ```json block (the kernel's launch spec)");
  if (StringRef(Source->first).trim().empty())
    return makeError("the cuda block on line {0} of the reply is empty", Source->second);
  Expected<Json> J =
      parseJson(Spec->first, formatv("the json block on line {0} of the reply", Spec->second).str());
  if (!J)
    return J.takeError();
  if (!J->is_object())
    return makeError("the json block on line {0} of the reply is not a JSON object (a launch "
                     "spec)",
                     Spec->second);
  ModelKernelReply R;
  R.Source = std::move(Source->first);
  R.Spec = std::move(*J);
  return R;
}

//===-- The driver --------------------------------------------------------===//

namespace {

struct Failure {
  std::string Stage, Detail;
  bool Repairable = true;
};

/// Every occurrence of From in Text replaced by To.
std::string replaceAll(std::string Text, StringRef From, StringRef To) {
  if (From.empty())
    return Text;
  for (size_t P = Text.find(From); P != std::string::npos; P = Text.find(From, P + To.size()))
    Text.replace(P, From.size(), To.str());
  return Text;
}

class ReplyChecker {
public:
  ReplyChecker(const ModelNewOptions &O, std::string OutPath, std::string SpecOut,
               const agent::SourceChecker &Checker, const build::NvccDriver &Driver,
               std::string Scratch, std::optional<Request> Parsed)
      : O(O), OutPath(std::move(OutPath)), SpecOut(std::move(SpecOut)), Checker(Checker),
        Driver(Driver), Scratch(std::move(Scratch)), Parsed(std::move(Parsed)) {}

  /// The first stage Reply fails; none when it passes them all. Stages
  /// passed are appended to Log. An error: a check could not run.
  Expected<std::optional<Failure>> check(const ModelKernelReply &Reply, unsigned N,
                                         std::vector<ModelStage> &Log, std::string &Kernel);

private:
  const ModelNewOptions &O;
  std::string OutPath, SpecOut;
  const agent::SourceChecker &Checker;
  const build::NvccDriver &Driver;
  std::string Scratch;
  std::optional<Request> Parsed;
};

Expected<std::optional<Failure>> ReplyChecker::check(const ModelKernelReply &Reply, unsigned N,
                                                     std::vector<ModelStage> &Log,
                                                     std::string &Kernel) {
  auto Pass = [&](StringRef Stage, std::string Detail) {
    Log.push_back({N, Stage.str(), true, std::move(Detail)});
  };
  auto Fail = [&](StringRef Stage, std::string Detail, bool Repairable = true) {
    Log.push_back({N, Stage.str(), false, Detail});
    return std::optional<Failure>(Failure{Stage.str(), std::move(Detail), Repairable});
  };

  // The spec: the parser, then what measuring it needs.
  Expected<measure::LaunchSpec> Spec = measure::parseLaunchSpec(Reply.Spec, SpecOut);
  if (!Spec)
    return Fail("spec", toString(Spec.takeError()));
  Kernel = Spec->Kernel;
  if (!O.New.Name.empty() && Spec->Kernel != O.New.Name)
    return Fail("spec", formatv("the spec's kernel is '{0}'; it must be '{1}' (--name)",
                                Spec->Kernel, O.New.Name)
                            .str());
  for (const measure::Buffer &B : Spec->Buffers)
    if (B.Init && B.Init->Kind == measure::InitKind::File)
      return Fail("spec", formatv("buffer '{0}' is read from a file ('{1}'): a model's spec "
                                  "initialises inputs with uniform, normal, iota or constant",
                                  B.Name, B.Init->Path)
                              .str());
  if (Spec->AllowLowerPrecision && !(Parsed && Parsed->AllowLowerPrecision))
    return Fail("spec", "the spec allows lower precision, which the description does not");
  if (Expected<measure::Geometry> G = Spec->geometry({}); !G)
    return Fail("spec", "its launch at the defaults: " + toString(G.takeError()));
  if (Expected<bool> C = Spec->satisfiesConstraints({}); !C)
    return Fail("spec", "its constraints: " + toString(C.takeError()));
  else if (!*C)
    return Fail("spec", "the tunables' defaults break its constraints");
  Pass("spec", formatv("kernel '{0}', {1} argument(s), {2} tunable(s)", Spec->Kernel,
                       Spec->Args.size(), Spec->Tunables.size())
                   .str());

  // The AST check, as for an edit: nothing a kernel file does not need.
  Expected<agent::KernelContract> C =
      Checker.analyse(OutPath, Reply.Source, Spec->Kernel, *O.Target);
  if (!C)
    return C.takeError();
  std::vector<std::string> Added = agent::checkNewFile(C->Facts);
  if (!Added.empty()) {
    std::string Why = "the file has what a kernel file does not need: " + join(Added, "; ");
    if (C->ParseErrors)
      Why += formatv(" (and {0} parse error(s))", C->ParseErrors).str();
    return Fail("scan", Why, /*Repairable=*/false);
  }
  Pass("scan", "the AST check finds nothing outside the allowlists");
  if (C->ParseErrors)
    return Fail("parse", formatv("{0} parse error(s): {1}", C->ParseErrors,
                                 join(C->ErrorMessages, "\n"))
                             .str());
  if (!C->Found)
    return Fail("spec", formatv("the spec's kernel '{0}' is not a __global__ function of the "
                                "file",
                                Spec->Kernel)
                            .str());

  // nvcc, for the target: the file alone, then the harness `measure`
  // builds from the spec (its arguments against the kernel's parameters).
  SmallString<256> Unit(Scratch);
  sys::path::append(Unit, sys::path::filename(OutPath));
  if (Error E = writeFileAtomically(Unit, Reply.Source))
    return std::move(E);
  build::CompileJob J;
  J.Source = std::string(Unit);
  J.Targets = {*O.Target};
  J.Output = build::OutputKind::Object;
  Expected<build::CompileResult> R = Driver.compile(J);
  if (!R)
    return R.takeError();
  if (!R->ok())
    return Fail("compile",
                replaceAll(agent::compileErrorsForModel(*R, J.Source), J.Source, OutPath));
  Pass("compile", formatv("compiles for {0}", O.Target->Name).str());

  measure::MeasureRequest Q;
  Q.Spec = &*Spec;
  Q.Reference = {"ref", std::string(Unit), {}, "the model's kernel", nullptr};
  Q.Target = O.Target;
  Q.JobDir = Scratch + "/job-" + std::to_string(N);
  Q.BuildOnly = true;
  Expected<measure::MeasureReport> M = measure::runMeasurement(Driver, Q);
  if (!M) {
    // The harness is ours: its messages name it without the scratch path.
    std::string Why = replaceAll(toString(M.takeError()), Q.JobDir + "/", "");
    StringRef W = Why;
    W.consume_front(formatv("the reference ({0}) does not compile: ", Q.Reference.Label).str());
    return Fail("harness", "the spec's harness does not compile: " +
                               replaceAll(W.str(), Unit, OutPath));
  }
  Pass("harness", "the spec's harness builds: its arguments match the kernel's parameters");
  return std::nullopt;
}

} // namespace

Expected<ModelNewResult> runNewWithModel(const ModelNewOptions &O) {
  if (!O.Target || !O.Toolchain)
    return makeError("runNewWithModel: the target and the toolchain are required");
  ModelNewResult Res;

  // The template path first: what the parser understands and a template
  // computes needs no model.
  std::optional<Request> Parsed;
  std::vector<std::string> Notes;
  std::string Description = O.New.Description;
  if (!O.New.RequestPath.empty()) {
    Expected<Json> J = readJsonFile(O.New.RequestPath);
    if (!J)
      return J.takeError();
    Expected<Request> R = requestFromJson(*J, O.New.RequestPath);
    if (!R)
      return R.takeError();
    Parsed = std::move(*R);
    if (Description.empty())
      Description = Parsed->Description.empty() ? describe(*Parsed) : Parsed->Description;
  } else if (Expected<ParsedDescription> P = parseDescriptionWithNotes(Description)) {
    Parsed = std::move(P->Req);
    Parsed->SMs = O.New.SMs;
    Notes = std::move(P->Notes);
  } else {
    Res.TemplateRefusal = toString(P.takeError());
  }
  if (Parsed && !O.New.Name.empty())
    Parsed->Name = O.New.Name;
  if (Parsed) {
    Expected<Instance> I = instantiate(*Parsed);
    if (I && !O.Always) {
      Expected<NewResult> R = runNew(O.New);
      if (!R)
        return R.takeError();
      Res.Template = std::move(*R);
      return Res;
    }
    if (!I)
      Res.TemplateRefusal = formatv("{0}: {1}", describe(*Parsed), toString(I.takeError())).str();
  }

  // The outputs, before the model is asked.
  if (!O.New.OutPath.empty()) {
    Res.OutPath = O.New.OutPath;
    Res.SpecOut = O.New.SpecOut.empty() ? specPathFor(O.New.OutPath) : O.New.SpecOut;
    if (Res.SpecOut == Res.OutPath)
      return makeError("the kernel and its spec would both be written to '{0}'", Res.OutPath);
    if (Error E = refuseExisting(Res.OutPath, O.New.Force))
      return std::move(E);
    if (Error E = refuseExisting(Res.SpecOut, O.New.Force))
      return std::move(E);
  }

  ModelNewAsk Ask;
  Ask.Description = Description;
  if (Parsed) {
    Ask.Understood = describe(*Parsed);
    for (const std::string &N : Notes)
      Ask.Understood += "\nassumed: " + N;
  }
  if (!Res.TemplateRefusal.empty())
    Ask.Understood += (Ask.Understood.empty() ? "" : "\n") +
                      ("no template computes it: " + Res.TemplateRefusal);
  Ask.Name = O.New.Name;
  Ask.Target = O.Target;
  Ask.SMs = O.New.SMs;
  Ask.References = chooseReferences(Description, Parsed ? &*Parsed : nullptr);
  Res.Prompt = buildModelNewPrompt(Ask);
  Res.References = std::move(Ask.References);
  if (O.New.OutPath.empty())
    return Res; // a dry run: nothing is asked

  // The checks' tools.
  Expected<frontend::ParseOptions> PO =
      frontend::makeParseOptions(Res.OutPath, "", O.Target, {});
  if (!PO)
    return PO.takeError();
  agent::SourceChecker Checker(*O.Toolchain, *PO);
  Expected<std::unique_ptr<build::Nvcc>> Nvcc = build::findNvcc(O.CudaPath);
  if (!Nvcc)
    return Nvcc.takeError();
  ScratchDir Work;
  Expected<std::string> Scratch = Work.make("", "forge-new-model");
  if (!Scratch)
    return Scratch.takeError();
  ReplyChecker Check(O, Res.OutPath, Res.SpecOut, Checker, *(*Nvcc)->Driver, *Scratch, Parsed);

  agent::ModelClient Client(O.Model);
  std::vector<agent::ChatMessage> Conversation = {{"user", Res.Prompt}};
  std::optional<Failure> First;
  for (unsigned N = 1;; ++N) {
    Expected<agent::ModelReply> Reply = Client.complete(modelNewSystemPrompt(), Conversation);
    if (!Reply)
      return makeError("the model did not answer: {0}", toString(Reply.takeError()));
    ++Res.Requests;
    Res.Tokens = Client.tokensUsed();
    StringRef Which = N == 1 ? "the model's reply" : "the model's reply to the repair request";
    Expected<ModelKernelReply> K = parseModelNewReply(Reply->Text);
    if (!K)
      return makeError("{0} is malformed: {1}; nothing written", Which, toString(K.takeError()));
    Expected<std::optional<Failure>> F = Check.check(*K, N, Res.Stages, Res.Kernel);
    if (!F)
      return F.takeError();
    if (!*F) {
      Res.Repaired = N > 1;
      if (Error E = writeFileAtomically(Res.OutPath, K->Source))
        return std::move(E);
      if (Error E = writeFileAtomically(Res.SpecOut, K->Spec.dump(2) + "\n"))
        return std::move(E);
      return Res;
    }
    const Failure &Why = **F;
    if (!Why.Repairable)
      return makeError("{0} was refused by the {1} check: {2}; nothing written", Which, Why.Stage,
                       Why.Detail);
    if (N > O.Repairs)
      return makeError("{0} failed the {1} check: {2}; nothing written{3}", Which, Why.Stage,
                       Why.Detail,
                       First ? formatv(" (the first reply failed the {0} check)", First->Stage)
                                   .str()
                             : std::string());
    if (!First)
      First = Why;
    Conversation.push_back({"assistant", Reply->Text});
    Conversation.push_back({"user", buildModelNewRepair(Why.Stage, Why.Detail)});
  }
}

} // namespace forge::templates
