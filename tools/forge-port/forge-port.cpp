//===- forge-port.cpp - Kernel Forge command line -------------------------===//
///
/// \file
/// Thin dispatch: picks the subcommand (no subcommand means 'port'), splits
/// off the compiler arguments after '--', and hands over to one file per
/// subcommand. Only this layer turns errors into exit codes.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "forge/Config.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace forge::tool;

static const char Usage[] =
    R"(OVERVIEW: forge-port - port, tune and optimise CUDA kernels

USAGE:
  forge-port [port] <file.cu>... --to <arch> [options] [-- <compiler args>]
  forge-port list   <file.cu>... [--format=text|json] [--arch <arch>] [-p <build-dir>]
  forge-port analyze <file.cu> [--kernel <name>] [--format=text|json] [--block N[,Y[,Z]]]

PORT OPTIONS (see 'forge-port port --help'):
  --to <arch>  --from <arch>  -o <file> | -i | --diff  --checks=<globs>
  --format=text|json|sarif  --warnings-as-errors  --no-validate  -p <build-dir>

SUBCOMMANDS:
  port       report what breaks or must be retuned on another GPU target, with fixes
  list       list the kernels, launch sites and tunable parameters of files
  analyze    print the analysis model of kernels: forge-port analyze k.cu [--kernel NAME]
  spec       draft a launch spec (JSON) for one kernel: forge-port spec k.cu --kernel NAME
  measure    verify and time kernels on the local GPU: forge-port measure k.cu --spec s.json
  tune       sweep tunables on the GPU and write the best back: forge-port tune k.cu --spec s.json --to sm_90
  optimize   propose, validate and keep faster versions of a kernel: forge-port optimize k.cu --spec s.json --to sm_90
  new        a kernel from a description, from the template library: forge-port new "sum of 64M floats" -o sum.cu
  propose    show what the built-in expert rules would change: forge-port propose k.cu --kernel NAME
  experience list, show, prune or export what transformations paid off: forge-port experience list

Run 'forge-port <subcommand> --help' for the options of one subcommand.
)";

namespace {
using Runner = int (*)(const Invocation &);
}

static Runner lookupSubcommand(StringRef Name) {
  return StringSwitch<Runner>(Name)
      .Case("analyze", runAnalyze)
      .Case("list", runList)
      .Case("port", runPort)
      .Case("spec", runSpec)
      .Case("measure", runMeasure)
      .Case("tune", runTune)
      .Case("propose", runPropose)
      .Case("optimize", runOptimize)
      .Case("new", runNew)
      .Case("experience", runExperience)
      .Default(nullptr);
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  if (argc < 2) {
    errs() << Usage;
    return ExitUsage;
  }
  StringRef First = argv[1];
  if (First == "--help" || First == "-help" || First == "-h") {
    outs() << Usage;
    return ExitOK;
  }
  if (First == "--version") {
    outs() << "forge-port " << FORGE_VERSION << " (Clang " << FORGE_CLANG_VERSION_MAJOR
           << ")\n";
    return ExitOK;
  }

  std::string SubName = "port";
  int ArgStart = 1;
  if (lookupSubcommand(First)) {
    SubName = First.str();
    ArgStart = 2;
  } else if (!First.starts_with("-") && !First.contains('.') && !First.contains('/')) {
    WithColor::error(errs(), "forge-port")
        << "unknown subcommand '" << First
        << "'; known subcommands: list, analyze, port, spec, measure, tune, propose, optimize, new, experience\n";
    return ExitUsage;
  }

  Runner Run = lookupSubcommand(SubName);

  // LLVM's option parser picks the subcommand from argv[1].
  static std::string Sub;
  Sub = SubName;
  Invocation Inv;
  Inv.Argv0 = argv[0];
  Inv.Args.push_back("forge-port");
  Inv.Args.push_back(Sub.c_str());
  bool AfterDashDash = false;
  for (int I = ArgStart; I < argc; ++I) {
    if (!AfterDashDash && StringRef(argv[I]) == "--") {
      AfterDashDash = true;
      continue;
    }
    if (AfterDashDash)
      Inv.ExtraArgs.push_back(argv[I]);
    else
      Inv.Args.push_back(argv[I]);
  }
  return Run(Inv);
}
