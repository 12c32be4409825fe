//===- forge-port/New.cpp - `forge-port new` ------------------------------===//
///
/// \file
/// Options, one call of the new driver (Templates/NewSession.h), and the
/// summary. With --tune and --optimize the written kernel is handed to
/// `forge-port tune` and `forge-port optimize` (this executable, as child
/// processes, with the same target and worker). With a model (--llm), a
/// request no template computes is written by the model instead
/// (Templates/ModelNew.h). See docs/new.md.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "SharedOptions.h"
#include "forge/Arch/GpuModel.h"
#include "forge/Frontend/Toolchain.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Secrets.h"
#include "forge/Templates/ModelNew.h"
#include "forge/Templates/NewSession.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include <cstdio>
#include <unistd.h>

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::OptionCategory Cat("forge-port new options");
#define SUB cl::cat(Cat), cl::sub(newCommand())
cl::list<std::string> Words(cl::Positional, cl::desc("\"<description>\""), SUB);
cl::opt<std::string> RequestPath("request",
                                 cl::desc("Read the request as JSON instead of a description "
                                          "(the format of --dry-run --format=json)"),
                                 cl::value_desc("request.json"), SUB);
cl::opt<std::string> Out("o", cl::desc("Write the kernel here"), cl::value_desc("kernel.cu"),
                         SUB);
cl::opt<std::string> SpecOut("spec-out",
                             cl::desc("Write its launch spec here (default: the kernel's name "
                                      "with .json)"),
                             cl::value_desc("spec.json"), SUB);
cl::opt<std::string> Name("name", cl::desc("The kernel's name (default: the template's)"), SUB);
cl::opt<bool> Force("force", cl::desc("Overwrite existing files"), SUB);
cl::opt<bool> DryRun("dry-run", cl::desc("Say what would be generated; write nothing"), SUB);
enum class Format { Text, Json };
cl::opt<Format> OutputFormat("format", cl::desc("Output format of the summary"),
                             cl::values(clEnumValN(Format::Text, "text", "(default)"),
                                        clEnumValN(Format::Json, "json",
                                                   "the request, template and files")),
                             cl::init(Format::Text), SUB);
cl::opt<std::string> SamplesDir("all-samples",
                                cl::desc("Write every template's samples (kernel, spec, "
                                         "request) into this directory, for checking the "
                                         "templates on a GPU"),
                                cl::value_desc("dir"), SUB);
cl::opt<bool> Tune("tune", cl::desc("Then tune it on the local GPU (forge-port tune -i)"), SUB);
cl::opt<bool> Optimize("optimize",
                       cl::desc("Then optimise it on the local GPU (forge-port optimize -i; the "
                                "JSON report next to the kernel, its final spec into the spec "
                                "file)"),
                       SUB);
cl::opt<std::string> TuneBudget("tune-budget",
                                cl::desc("--tune's budget: configurations (N) or time (90s, 5m); "
                                         "also optimize's tuner proposal's configurations"),
                                SUB);
cl::opt<std::string> TuneStrategy("tune-strategy",
                                  cl::desc("--tune's strategy (exhaustive, random, greedy, "
                                           "annealing, genetic)"),
                                  SUB);
cl::opt<unsigned> Rounds("rounds", cl::desc("--optimize's round limit"), SUB);
cl::opt<bool> LlmAlways("llm-always",
                        cl::desc("Ask the model (--llm) even when a template computes the "
                                 "request; the template is then its first reference"),
                        SUB);
#undef SUB

/// Runs `forge-port <Args...>` (this executable) with the terminal's
/// standard streams and Env (none: this process's environment); its exit
/// status.
Expected<int> runSelf(const char *Argv0, ArrayRef<std::string> Args,
                      const std::optional<std::vector<std::string>> &Env) {
  static int Anchor;
  std::string Self = sys::fs::getMainExecutable(Argv0, &Anchor);
  if (Self.empty())
    return makeError("cannot find the forge-port executable to run '{0}'", Args.front());
  std::vector<StringRef> Argv = {Self};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<SmallVector<StringRef, 64>> EnvRefs;
  if (Env)
    EnvRefs.emplace(Env->begin(), Env->end());
  std::string Msg;
  int RC = sys::ExecuteAndWait(
      Self, Argv, EnvRefs ? std::optional<ArrayRef<StringRef>>(*EnvRefs) : std::nullopt, {}, 0,
      0, &Msg);
  if (RC < 0)
    return makeError("forge-port {0}: {1}", Args.front(), Msg);
  return RC;
}
/// "5", "0.25": a number of seconds as a flag takes it.
std::string shortest(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%g", V);
  return Buf;
}

/// The model path's summary: why no template, the references, each reply's
/// stages, and what was written (or, on a dry run, what would be asked).
void printModelResult(const templates::ModelNewResult &M, const agent::ModelConfig &Model,
                      bool DryRun, bool AsJson) {
  std::vector<std::string> Refs;
  for (const templates::ModelReference &R : M.References)
    Refs.push_back(R.Sample + " (" + R.Template + ")");
  if (AsJson) {
    Json J = {{"model", Model.Model},
              {"endpoint", agent::redactedEndpoint(Model.Url)},
              {"template_refusal", M.TemplateRefusal},
              {"references", Refs},
              {"kernel", M.Kernel},
              {"kernel_file", M.OutPath},
              {"spec_file", M.SpecOut},
              {"requests", M.Requests},
              {"repaired", M.Repaired}};
    Json Stages = Json::array();
    for (const templates::ModelStage &S : M.Stages)
      Stages.push_back(
          {{"reply", S.Reply}, {"stage", S.Stage}, {"passed", S.Passed}, {"detail", S.Detail}});
    J["stages"] = Stages;
    if (DryRun)
      J["prompt"] = M.Prompt;
    outs() << J.dump(2) << "\n";
    return;
  }
  if (!M.TemplateRefusal.empty())
    outs() << "no template: " << M.TemplateRefusal << "\n";
  outs() << "model:      " << Model.Model << " at " << agent::redactedEndpoint(Model.Url)
         << "\nreferences: " << (Refs.empty() ? std::string("none") : join(Refs, ", ")) << "\n";
  if (DryRun) {
    outs() << "dry run:    the model was not asked; nothing written (--format=json shows the "
              "prompt)\n";
    return;
  }
  for (const templates::ModelStage &S : M.Stages) {
    StringRef Detail = StringRef(S.Detail).split('\n').first;
    outs() << formatv("reply {0}:    {1}: {2}{3}\n", S.Reply, S.Stage,
                      S.Passed ? "" : "failed: ", Detail);
  }
  outs() << "wrote:      " << M.OutPath << ", " << M.SpecOut << " (launch spec; kernel '"
         << M.Kernel << "', written by the model" << (M.Repaired ? " and repaired once" : "")
         << ")\n";
}
} // namespace

int forge::tool::runNew(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port new: a kernel from a description, from the template "
                         "library (offline), or from a model (--llm)\n\n  forge-port new \"sum of 64M floats\" -o sum.cu "
                         "[--spec-out sum.json] [--to sm_90] [--tune] [--optimize]\n"))
    return ExitUsage;
  auto Target = optionalTarget(To.empty() ? "sm_90" : To.getValue());
  if (!Target)
    return reportError(Target.takeError());
  const arch::GpuModel *Gpu = arch::referenceGpuFor(**Target);
  int SMs = Gpu ? Gpu->SMs : 132;

  if (!SamplesDir.empty()) {
    if (!Words.empty() || !RequestPath.empty() || !Out.empty())
      return reportError(makeUsageError("--all-samples takes no description, --request or -o"));
    auto Names = templates::writeAllSamples(SamplesDir, SMs, Force);
    if (!Names)
      return reportError(Names.takeError());
    outs() << "wrote " << Names->size() << " samples to " << SamplesDir << ": "
           << join(*Names, ", ") << "\n";
    return ExitOK;
  }

  templates::NewSessionOptions O;
  O.Description = join(Words, " ");
  O.RequestPath = RequestPath;
  if (O.Description.empty() == O.RequestPath.empty())
    return reportError(makeUsageError(
        "say what to generate: forge-port new \"<description>\" -o kernel.cu (or --request "
        "request.json, not both)"));
  O.Name = Name;
  O.SMs = SMs;
  if (!DryRun) {
    if (Out.empty())
      return reportError(makeUsageError("-o kernel.cu is required (or --dry-run)"));
    O.OutPath = Out;
    O.SpecOut = SpecOut;
  } else if (Tune || Optimize) {
    return reportError(makeUsageError("--dry-run writes nothing to --tune or --optimize"));
  }
  O.Force = Force;
  if (Tune + Optimize == 0 && (!TuneBudget.empty() || !TuneStrategy.empty() ||
                               Rounds.getNumOccurrences()))
    return reportError(makeUsageError("--tune-budget, --tune-strategy and --rounds go with "
                                      "--tune or --optimize"));
  std::optional<agent::ModelConfig> Model;
  if (modelRequested()) {
    auto C = modelOption();
    if (!C)
      return reportError(C.takeError());
    Model = *C;
  } else if (LlmAlways) {
    return reportError(makeUsageError("--llm-always asks the model: pass --llm and --model (or "
                                      "set FORGE_LLM_URL and FORGE_LLM_MODEL)"));
  }
  // What the steps after this one work on.
  std::string OutPath, SpecPath, Generated;
  std::optional<templates::NewResult> R;
  if (Model) {
    frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, CudaPath);
    templates::ModelNewOptions MO;
    MO.New = O;
    MO.Model = *Model;
    MO.Always = LlmAlways;
    MO.Target = *Target;
    MO.Toolchain = &TC;
    MO.CudaPath = CudaPath;
    auto MR = templates::runNewWithModel(MO);
    if (!MR)
      return reportError(MR.takeError());
    if (MR->Template) {
      R = std::move(*MR->Template);
    } else {
      printModelResult(*MR, *Model, DryRun, OutputFormat == Format::Json);
      if (DryRun)
        return ExitOK;
      OutPath = MR->OutPath;
      SpecPath = MR->SpecOut;
      if (Expected<std::string> Text = readFile(OutPath))
        Generated = std::move(*Text);
      else
        return reportError(Text.takeError());
      if (!Tune && !Optimize && OutputFormat == Format::Text)
        outs() << "next:       forge-port tune " << OutPath << " --spec " << SpecPath << " --to "
               << (*Target)->Name << " -i\n";
    }
  } else {
    auto T = templates::runNew(O);
    if (!T)
      return reportError(T.takeError());
    R = std::move(*T);
  }

  if (R && OutputFormat == Format::Json) {
    Json J = {{"request", templates::requestToJson(R->Req)},
              {"template", R->Inst.Template},
              {"kernel", R->Inst.Kernel},
              {"wrapper", R->Inst.Wrapper},
              {"assumed", R->ParseNotes},
              {"notes", R->Inst.Notes},
              {"kernel_file", R->OutPath},
              {"spec_file", R->SpecOut}};
    if (DryRun)
      J["spec"] = R->Inst.Spec;
    outs() << J.dump(2) << "\n";
  } else if (R) {
    outs() << "understood: " << templates::describe(R->Req) << "\n";
    for (const std::string &N : R->ParseNotes)
      outs() << "assumed:    " << N << "\n";
    outs() << "template:   " << R->Inst.Template << " (kernel '" << R->Inst.Kernel
           << "', host wrapper '" << R->Inst.Wrapper << "')\n";
    for (const std::string &N : R->Inst.Notes)
      outs() << "note:       " << N << "\n";
    if (Model)
      outs() << "model:      not asked (a template computes the request; --llm-always asks "
                "it)\n";
    if (DryRun) {
      outs() << "dry run:    nothing written\n";
    } else {
      outs() << "wrote:      " << R->OutPath << ", " << R->SpecOut << " (launch spec)\n";
      if (!Tune && !Optimize)
        outs() << "next:       forge-port tune " << R->OutPath << " --spec " << R->SpecOut
               << " --to " << (*Target)->Name << " -i\n";
    }
  }
  outs().flush();
  if (DryRun)
    return ExitOK;
  if (R) {
    OutPath = R->OutPath;
    SpecPath = R->SpecOut;
    Generated = R->Inst.Source;
  }

  auto Forwarded = [&](StringRef Sub) {
    std::vector<std::string> A = {Sub.str(), OutPath,         "--spec", SpecPath,
                                  "--to",    (*Target)->Name, "-i"};
    for (auto [Flag, Value] : {std::pair{"--worker", &WorkerPath}, {"--cuda-path", &CudaPath},
                               {"--job-dir", &JobDir}})
      if (!Value->empty())
        A.insert(A.end(), {Flag, Value->getValue()});
    return A;
  };
  std::vector<std::vector<std::string>> Steps;
  if (Tune) {
    SmallString<256> Report(OutPath);
    sys::path::replace_extension(Report, ".tune.json");
    Steps.push_back(Forwarded("tune"));
    Steps.back().insert(Steps.back().end(), {"--report", std::string(Report)});
    if (!TuneBudget.empty())
      Steps.back().insert(Steps.back().end(), {"--budget", TuneBudget});
    if (!TuneStrategy.empty())
      Steps.back().insert(Steps.back().end(), {"--strategy", TuneStrategy});
  }
  if (Optimize) {
    SmallString<256> Report(OutPath);
    sys::path::replace_extension(Report, ".optimize.json");
    Steps.push_back(Forwarded("optimize"));
    std::vector<std::string> &A = Steps.back();
    A.insert(A.end(), {"--report", std::string(Report)});
    // Just tuned: the loop's own sweep of the same tunables would repeat it.
    if (Tune)
      A.push_back("--no-tuner");
    else if (!TuneBudget.empty() && all_of(TuneBudget, isDigit))
      A.insert(A.end(), {"--tune-budget", TuneBudget});
    if (Rounds.getNumOccurrences())
      A.insert(A.end(), {"--rounds", std::to_string(Rounds)});
    // The loop asks the same model; its endpoint and key go through the
    // child's environment (never its command line, which `ps` shows).
    if (Model)
      A.insert(A.end(), {"--llm-timeout", shortest(Model->TimeoutS), "--llm-retries",
                         std::to_string(Model->MaxRetries), "--llm-backoff",
                         shortest(Model->BackoffS)});
  }
  // With a model, the children get no secrets but what they need: tune
  // none, optimize the model's settings.
  auto ChildEnv = [&](bool IsOptimize) -> std::optional<std::vector<std::string>> {
    if (!Model)
      return std::nullopt;
    std::vector<std::string> Env = support::scrubbedEnvironment(environ);
    if (IsOptimize) {
      Env.push_back("FORGE_LLM_URL=" + Model->Url);
      Env.push_back("FORGE_LLM_MODEL=" + Model->Model);
      if (!Model->ApiKey.empty())
        Env.push_back("FORGE_LLM_API_KEY=" + Model->ApiKey);
    }
    return Env;
  };
  for (const std::vector<std::string> &Step : Steps) {
    bool IsOptimize = Step.front() == "optimize";
    outs() << "running:    forge-port " << join(Step, " ") << "\n";
    outs().flush();
    Expected<int> RC = runSelf(Inv.Argv0, Step, ChildEnv(IsOptimize));
    if (!RC)
      return reportError(RC.takeError());
    if (*RC != 0) {
      WithColor::error(errs(), "forge-port")
          << "forge-port " << Step.front() << " exited with " << *RC << "; " << OutPath
          << " is the kernel as generated"
          << (IsOptimize && Tune ? " and tuned" : "") << "\n";
      return ExitFailure;
    }
    std::string ReportPath =
        Step[std::find(Step.begin(), Step.end(), "--report") - Step.begin() + 1];
    if (!IsOptimize) {
      Expected<std::optional<double>> Slower = templates::slowerThanDefaults(ReportPath);
      if (!Slower)
        return reportError(Slower.takeError());
      if (*Slower) {
        // The sweep's best was slower than the template's defaults in the
        // final check (a random sample need not hold them): keep those.
        if (Error E = writeFileAtomically(OutPath, Generated))
          return reportError(std::move(E));
        outs() << formatv("kept:       the generated defaults: tune's best measured {0:F3}x "
                          "of them; {1} is as generated ({2}: the report)\n",
                          **Slower, OutPath, ReportPath);
        continue;
      }
      // The tuned values are in the source's launch now; the spec's
      // defaults follow, so that measuring the file with its spec (and the
      // optimisation loop after this) runs what the file launches.
      if (Error E = templates::adoptTunedDefaults(ReportPath, SpecPath))
        return reportError(std::move(E));
      outs() << "wrote:      " << SpecPath << " (defaults: the tuned values), " << ReportPath
             << " (the report)\n";
    }
    if (IsOptimize) {
      // The kept rewrites may have changed the launch (a grid of resident
      // waves): the spec file follows the kernel.
      Expected<Json> Report = readJsonFile(ReportPath);
      if (!Report)
        return reportError(Report.takeError());
      auto It = Report->find("final_spec");
      if (It == Report->end() || !It->is_object())
        return reportError(makeError("{0} has no final_spec", ReportPath));
      if (Error E = writeFileAtomically(SpecPath, It->dump(2) + "\n"))
        return reportError(std::move(E));
      outs() << "wrote:      " << SpecPath << " (the optimised kernel's launch spec), "
             << ReportPath << " (the report)\n";
    }
  }
  return ExitOK;
}
