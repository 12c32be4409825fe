//===- forge-port/SharedOptions.cpp ---------------------------------------===//
#include "SharedOptions.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Measure/Measurement.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace forge::tool {

#define FORGE_SUBCOMMAND(Fn, Name, Desc)                                                   \
  cl::SubCommand &Fn() {                                                                   \
    static cl::SubCommand S(Name, Desc);                                                   \
    return S;                                                                              \
  }
FORGE_SUBCOMMAND(listCommand, "list", "list the kernels, launch sites and tunables")
FORGE_SUBCOMMAND(analyzeCommand, "analyze", "print the analysis model of kernels")
FORGE_SUBCOMMAND(portCommand, "port", "port kernels to another GPU target")
FORGE_SUBCOMMAND(specCommand, "spec", "draft a launch spec for one kernel")
FORGE_SUBCOMMAND(measureCommand, "measure", "verify and time kernels on the local GPU")
FORGE_SUBCOMMAND(tuneCommand, "tune", "sweep a kernel's tunables on the GPU and write the best back")
FORGE_SUBCOMMAND(proposeCommand, "propose", "show or apply the expert rules' proposals for a kernel")
FORGE_SUBCOMMAND(optimizeCommand, "optimize",
                 "propose, validate and keep faster versions of a kernel")
FORGE_SUBCOMMAND(newCommand, "new", "a kernel from a description, from the template library")
#undef FORGE_SUBCOMMAND

cl::OptionCategory &sharedCategory() {
  static cl::OptionCategory C("forge-port options shared by several subcommands");
  return C;
}

namespace {
/// Several cl::sub at once.
struct subs {
  std::vector<cl::SubCommand *> List;
  template <class Opt> void apply(Opt &O) const {
    for (cl::SubCommand *S : List)
      O.addSubCommand(*S);
  }
};
// Which subcommands take which shared option.
const subs Writers{{&portCommand(), &tuneCommand(), &optimizeCommand(), &proposeCommand()}};
const subs InPlaceWriters{{&portCommand(), &tuneCommand(), &optimizeCommand()}};
const subs Targeted{{&portCommand(), &tuneCommand(), &optimizeCommand(), &proposeCommand(),
                     &newCommand()}};
const subs Parsers{{&listCommand(), &analyzeCommand(), &portCommand(), &specCommand(),
                    &proposeCommand(), &optimizeCommand()}};
const subs Toolkit{{&listCommand(), &analyzeCommand(), &portCommand(), &proposeCommand(), &measureCommand(),
                    &tuneCommand(), &optimizeCommand(), &specCommand(), &newCommand()}};
const subs OnGpu{{&measureCommand(), &tuneCommand(), &optimizeCommand()}};
// spec --check runs one kernel through the worker too.
const subs WorkerUsers{{&measureCommand(), &tuneCommand(), &optimizeCommand(), &specCommand(),
                        &newCommand()}};
const subs RuleRunners{{&proposeCommand(), &optimizeCommand()}};
const subs ModelUsers{{&optimizeCommand(), &newCommand()}};
} // namespace

cl::opt<std::string> OutputPath("o", cl::desc("Write the resulting source here ('-': stdout)"),
                                cl::value_desc("file"), cl::cat(sharedCategory()), Writers);
cl::opt<bool> InPlace("i", cl::desc("Rewrite the input file in place (atomically)"),
                      cl::cat(sharedCategory()), InPlaceWriters);
cl::opt<bool> Diff("diff", cl::desc("Print the change as a unified diff on stdout"),
                   cl::cat(sharedCategory()), Writers);
cl::opt<std::string> To("to",
                        cl::desc("Target architecture (sm_80, sm_90a, sm_100, ...); tune takes "
                                 "a comma-separated list"),
                        cl::value_desc("arch"), cl::cat(sharedCategory()), Targeted);
cl::opt<std::string> BuildPath("p", cl::desc("Build directory with compile_commands.json"),
                               cl::value_desc("build-dir"), cl::cat(sharedCategory()), Parsers);
cl::opt<std::string> CudaPath("cuda-path", cl::desc("CUDA toolkit root"),
                              cl::cat(sharedCategory()), Toolkit);
cl::opt<std::string> WorkerPath("worker", cl::desc("The forge-worker executable"),
                                cl::value_desc("path"), cl::cat(sharedCategory()), WorkerUsers);
cl::opt<std::string> JobDir("job-dir",
                            cl::desc("Keep the job directories here (default: a temporary "
                                     "directory, removed afterwards)"),
                            cl::value_desc("dir"), cl::cat(sharedCategory()), WorkerUsers);
cl::opt<uint64_t> Seed("seed",
                       cl::desc("Seed of the inputs (and of the tuner's strategy); default "
                                "20261129, 1 for tune"),
                       cl::cat(sharedCategory()), OnGpu);
cl::opt<unsigned> Reps("reps", cl::desc("Timed launches per round (10)"), cl::init(10),
                       cl::cat(sharedCategory()), OnGpu);
cl::opt<double> TimeoutS("timeout",
                         cl::desc("Seconds one candidate may take on the GPU before it is "
                                  "killed (30)"),
                         cl::init(30), cl::cat(sharedCategory()), OnGpu);
cl::opt<std::string> SandboxOpt(
    "sandbox",
    cl::desc("How the worker confines candidate code: 'on' (default: every layer the "
             "platform allows, the others reported), 'strict' (a missing layer is an "
             "error) or 'off' (none, for debugging); docs/sandbox.md"),
    cl::value_desc("on|strict|off"), cl::init("on"), cl::cat(sharedCategory()), OnGpu);

cl::opt<bool> AssumeNoAlias(
    "assume-no-alias",
    cl::desc("Promise that the kernel's pointer parameters never point into one allocation "
             "(for restrict, when no launch in the file shows it)"),
    cl::cat(sharedCategory()), RuleRunners);

cl::opt<std::string> LlmUrl("llm",
                            cl::desc("Model endpoint (OpenAI /v1/chat/completions or Anthropic "
                                     "/v1/messages); default $FORGE_LLM_URL when --model or "
                                     "$FORGE_LLM_MODEL is set. Without one, optimize uses the "
                                     "built-in expert rules and new the templates only"),
                            cl::value_desc("url"), cl::cat(sharedCategory()), ModelUsers);
cl::opt<std::string> ModelName("model", cl::desc("Model name (or $FORGE_LLM_MODEL)"),
                               cl::cat(sharedCategory()), ModelUsers);
cl::opt<double> LlmTimeout("llm-timeout", cl::desc("Seconds per model request (120)"),
                           cl::init(120), cl::cat(sharedCategory()), ModelUsers);
cl::opt<unsigned> LlmRetries("llm-retries",
                             cl::desc("Retries on 429, 5xx and dropped connections (3)"),
                             cl::init(3), cl::cat(sharedCategory()), ModelUsers);
cl::opt<double> LlmBackoff("llm-backoff", cl::desc("Seconds before the first retry, doubling (1)"),
                           cl::init(1), cl::cat(sharedCategory()), ModelUsers);

bool modelRequested() {
  return !LlmUrl.empty() || !ModelName.empty() || sys::Process::GetEnv("FORGE_LLM_MODEL");
}

Expected<agent::ModelConfig> modelOption() {
  auto C = agent::resolveModelConfig(LlmUrl, ModelName);
  if (!C)
    return C.takeError();
  C->TimeoutS = LlmTimeout;
  C->MaxRetries = LlmRetries;
  C->BackoffS = LlmBackoff;
  return C;
}

static void printSandbox(const measure::SandboxInfo &S) {
  if (S.Mode == "off")
    errs() << "forge-port: warning: the worker's sandbox was off: candidate code ran "
              "with your user, environment and network\n";
  for (const auto &[Layer, Why] : S.Refused)
    errs() << "forge-port: sandbox: " << Layer << ": " << Why << "\n";
  if (!S.Active.empty())
    errs() << "forge-port: sandbox: active: " << join(S.Active, ", ")
           << " (docs/sandbox.md)\n";
}

Error applySandboxOption(measure::SandboxMode &Mode) {
  measure::setSandboxNotice(printSandbox);
  auto M = measure::parseSandboxMode(SandboxOpt);
  if (!M)
    return makeUsageError("--sandbox: unknown mode '{0}' (expected on, strict or off)",
                          SandboxOpt.getValue());
  Mode = *M;
  if (Mode == measure::SandboxMode::Off)
    errs() << "forge-port: warning: --sandbox=off: candidate code runs with your full "
              "rights, its environment and the network (for debugging only)\n";
  return Error::success();
}

Expected<OutputChoice> outputChoice() {
  return OutputChoice::fromFlags(OutputPath, InPlace, Diff);
}

Expected<const arch::TargetInfo *> optionalTarget(StringRef Name) {
  if (Name.empty())
    return nullptr;
  auto T = arch::lookupTarget(Name);
  if (!T)
    return T.takeError();
  return &*T;
}

Expected<const arch::TargetInfo *> targetOption(bool Required) {
  if (To.empty() && Required)
    return makeUsageError("for the --to option: must be specified at least once");
  return optionalTarget(To);
}

Error checkKernelFile(StringRef File, ArrayRef<std::string> ExtraArgs) {
  return frontend::checkKernelInput(File, BuildPath, ExtraArgs);
}

} // namespace forge::tool
