//===- forge-port/Experience.cpp - `forge-port experience` ----------------===//
///
/// \file
/// Reads and edits the experience library (docs/experience.md): `list` the
/// transformations tried per pattern and arch, `show` the entries of one
/// pattern, family or transformation, `prune` old or unwanted entries,
/// `export` it as JSON or CSV, and `key` prints a kernel's pattern key.
/// The logic is in lib/Experience; this file reads options and prints.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "SharedOptions.h"
#include "forge/Analysis/AnalyzeFile.h"
#include "forge/Experience/Experience.h"
#include "forge/Frontend/CudaInvocation.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace forge;
using namespace forge::tool;
using experience::Experience;

namespace {
cl::SubCommand &experienceCommand() {
  static cl::SubCommand S("experience", "list, show, prune or export the experience library");
  return S;
}
cl::OptionCategory ExperienceCategory("forge-port experience options");
cl::list<std::string> Words(cl::Positional,
                            cl::desc("list | show <pattern|transformation> | "
                                     "prune | export | key <file.cu>"),
                            cl::OneOrMore, cl::cat(ExperienceCategory),
                            cl::sub(experienceCommand()));
cl::opt<std::string> File("experience",
                          cl::desc("The experience file (default: $FORGE_EXPERIENCE, else "
                                   "$XDG_CACHE_HOME/forge/experience.json, else "
                                   "~/.cache/forge/experience.json)"),
                          cl::value_desc("file"), cl::cat(ExperienceCategory),
                          cl::sub(experienceCommand()));
cl::opt<std::string> OlderThan("older-than", cl::desc("prune: entries older than this"),
                               cl::value_desc("Nd"), cl::cat(ExperienceCategory),
                               cl::sub(experienceCommand()));
cl::opt<std::string> Transformation("transformation",
                                    cl::desc("prune: the entries of one "
                                             "transformation"),
                                    cl::value_desc("name"), cl::cat(ExperienceCategory),
                                    cl::sub(experienceCommand()));
cl::opt<std::string> Arch("arch", cl::desc("prune: the entries of one target"),
                          cl::value_desc("sm_XX"), cl::cat(ExperienceCategory),
                          cl::sub(experienceCommand()));
cl::opt<bool> DryRun("dry-run", cl::desc("prune: say what would go, change nothing"),
                     cl::cat(ExperienceCategory), cl::sub(experienceCommand()));
cl::opt<experience::ExportFormat>
    Format("format", cl::desc("export: the format"),
           cl::values(clEnumValN(experience::ExportFormat::Json, "json", "the file's own format"),
                      clEnumValN(experience::ExportFormat::Csv, "csv", "one row per entry")),
           cl::init(experience::ExportFormat::Json), cl::cat(ExperienceCategory),
           cl::sub(experienceCommand()));
cl::opt<std::string> Out("o", cl::desc("export: write here ('-': stdout, the default)"),
                         cl::value_desc("file"), cl::init("-"), cl::cat(ExperienceCategory),
                         cl::sub(experienceCommand()));
cl::opt<std::string> KernelName("kernel", cl::desc("key: the kernel (default: every kernel)"),
                                cl::cat(ExperienceCategory), cl::sub(experienceCommand()));

/// "30d" or "30" as days.
Expected<unsigned> parseDays(StringRef Text) {
  unsigned Days;
  StringRef Num = Text.ends_with("d") ? Text.drop_back() : Text;
  if (Num.getAsInteger(10, Days))
    return makeUsageError("--older-than: expected a number of days such as 30d, got '{0}'", Text);
  return Days;
}

Error checkArgs(StringRef Action, size_t Want) {
  if (Words.size() - 1 == Want)
    return Error::success();
  if (Want == 0)
    return makeUsageError("experience {0}: unexpected argument '{1}'", Action, Words[1]);
  return makeUsageError("experience {0}: expected {1} argument", Action, Want);
}

int runKey(const Invocation &Inv) {
  if (Error E = checkArgs("key", 1))
    return reportError(std::move(E));
  auto Opts = frontend::makeParseOptions(Words[1], "", nullptr, Inv.ExtraArgs);
  if (!Opts)
    return reportError(Opts.takeError());
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, "");
  frontend::ParseDiagnostics Diags(&errs());
  auto R = analysis::analyzeFile(TC, *Opts, Words[1], KernelName, {}, Diags);
  if (!R)
    return reportError(R.takeError());
  for (const analysis::KernelModel &M : R->Kernels)
    outs() << M.QualifiedName << "\t" << experience::patternKey(M) << "\t"
           << experience::patternFamily(M) << "\n";
  return R->ParseErrors ? ExitFailure : ExitOK;
}
} // namespace

int forge::tool::runExperience(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port experience: what transformations paid off, per kernel "
                         "pattern and target\n"))
    return ExitUsage;
  StringRef Action = Words[0];
  if (Action == "key")
    return runKey(Inv);
  if (!is_contained({"list", "show", "prune", "export"}, Action))
    return reportError(makeUsageError(
        "experience: unknown action '{0}'; expected list, show, prune, export or key", Action));
  std::string Path = File;
  if (Path.empty()) {
    auto P = experience::defaultPath();
    if (!P)
      return reportError(P.takeError());
    Path = *P;
  }
  auto Lib = Experience::load(Path);
  if (!Lib)
    return reportError(Lib.takeError());

  if (Action == "list") {
    if (Error E = checkArgs(Action, 0))
      return reportError(std::move(E));
    if (Lib->entries().empty())
      WithColor::note(errs(), "forge-port") << Path << ": no entries\n";
    else
      outs() << Experience::renderTable(Lib->summaries());
    return ExitOK;
  }
  if (Action == "show") {
    if (Error E = checkArgs(Action, 1))
      return reportError(std::move(E));
    auto Rows = Lib->select(Words[1]);
    if (Rows.empty())
      return reportError(makeError("{0}: no entries of a pattern, family or transformation "
                                   "'{1}'",
                                   Path, Words[1]));
    outs() << Experience::renderEntries(Rows);
    return ExitOK;
  }
  if (Action == "export") {
    if (Error E = checkArgs(Action, 0))
      return reportError(std::move(E));
    if (Error E = Lib->exportTo(Out, Format))
      return reportError(std::move(E));
    return ExitOK;
  }

  // prune
  if (Error E = checkArgs(Action, 0))
    return reportError(std::move(E));
  experience::PruneOptions PO;
  if (!OlderThan.empty()) {
    auto Days = parseDays(OlderThan);
    if (!Days)
      return reportError(Days.takeError());
    PO.OlderThanDays = *Days;
  }
  if (!Arch.empty()) {
    auto T = optionalTarget(Arch);
    if (!T)
      return reportError(T.takeError());
  }
  PO.Transformation = Transformation;
  PO.Arch = Arch;
  auto R = Lib->prune(PO, DryRun);
  if (!R)
    return reportError(R.takeError());
  outs() << (DryRun ? "would remove " : "removed ") << R->removed() << " of "
         << R->removed() + R->Kept << " entries (" << R->Expired << " expired, " << R->Matched
         << " matched, " << R->Duplicates << " duplicates); " << R->Kept
         << (DryRun ? " would remain" : " remain") << "\n";
  return ExitOK;
}
