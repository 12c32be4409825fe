//===- Port/PortSession.cpp - The port driver -----------------------------===//
#include "forge/Port/PortSession.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Patch/ReparseCheck.h"
#include "forge/Patch/UnifiedDiff.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace forge::port {

bool PortResult::failed() const {
  return any_of(Files, [](const FilePortResult &F) { return F.Failed; });
}

namespace {
void note(FilePortResult &R, std::string Text, bool AfterSummary = false) {
  R.Messages.push_back({SessionMessage::Kind::Note, std::move(Text), AfterSummary});
}
void error(FilePortResult &R, std::string Text, bool AfterSummary = false) {
  R.Messages.push_back({SessionMessage::Kind::Error, std::move(Text), AfterSummary});
  R.Failed = true;
}
} // namespace

Validation PortSession::validate(const FilePortResult &R, const frontend::ParseOptions &PO) {
  Validation V;
  auto Tools = build::findNvcc(O.CudaPath);
  if (!Tools) {
    V.Note = "not validated: " + toString(Tools.takeError());
    return V;
  }
  SmallString<128> Tmp;
  if (auto EC = sys::fs::createTemporaryFile("forge-port", "cu", Tmp)) {
    V.Note = "not validated: " + EC.message();
    return V;
  }
  if (Error E = writeFileAtomically(Tmp, R.Result)) {
    V.Note = "not validated: " + toString(std::move(E));
    return V;
  }
  // The copy is compiled where the user's file is, so its includes resolve.
  SmallString<256> Dir(R.File);
  sys::fs::make_absolute(Dir);
  sys::path::remove_filename(Dir);
  std::vector<build::CompileJob> Jobs;
  for (const arch::TargetInfo *T : {R.Target, R.Source}) {
    build::CompileJob J;
    J.Source = Tmp.str().str();
    J.Targets = {*T};
    J.Output = build::OutputKind::ResourceCheck;
    J.ResourceUsage = true;
    J.IncludeDirs.push_back(Dir.str().str());
    J.ExtraFlags = frontend::nvccFlagsFromClangArgs(PO.ExtraArgs);
    J.TimeoutSeconds = O.ValidateTimeoutS;
    Jobs.push_back(J);
    if (R.Target == R.Source)
      break; // one compile serves both
  }
  auto Results = (*Tools)->Driver->compileAll(Jobs, 2);
  sys::fs::remove(Tmp);
  V.Ran = true;
  for (auto &C : Results) {
    if (!C) {
      V.Note = "not validated: " + toString(C.takeError());
      V.Ran = false;
      V.Results.clear();
      return V;
    }
    // Diagnostics are about the user's file, not the temporary copy.
    for (build::CompilerDiagnostic &D : C->Diagnostics)
      if (D.File == Tmp.str())
        D.File = R.File;
    V.Results.push_back(std::move(*C));
  }
  V.TargetOK = V.Results[0].ok();
  return V;
}

Expected<FilePortResult> PortSession::portFile(const std::string &File) {
  FilePortResult R;
  R.File = File;
  R.Target = O.Target;
  auto PO = frontend::makeParseOptions(File, O.BuildDir, O.Source, O.ExtraArgs);
  if (!PO) {
    Error E = PO.takeError();
    if (E.isA<UsageError>())
      return std::move(E);
    R.Failure = toString(std::move(E));
    R.Failed = true;
    return R;
  }
  R.Source = &PO->target();
  auto Original = readFile(File);
  if (!Original) {
    R.Failure = toString(Original.takeError());
    R.Failed = true;
    return R;
  }
  if (Error E = frontend::checkCudaInput(File)) {
    R.Failure = toString(std::move(E));
    R.Failed = true;
    return R;
  }
  R.Original = *Original;
  R.Result = *Original;

  PortDiagnostics Diag(O.DiagOS, O.WarningsAsErrors);
  frontend::ParseDiagnostics ParseDiags(O.ParseDiagOS);
  PassRunOptions Run;
  // The launches' block sizes are for the resource table, which needs nvcc.
  std::optional<frontend::KernelIndexBuilder> Index;
  if (O.Validate) {
    Index.emplace(File);
    Run.Index = &*Index;
  }
  if (!O.DepfilePath.empty())
    Run.Files = &R.Dependencies;
  Run.Target = O.Target;
  Run.Source = R.Source;
  Run.Passes = O.Passes;
  Run.Parse = *PO;
  if (Error E = runPortPasses(*O.Toolchain, Run, File, Diag, ParseDiags)) {
    R.Failure = toString(std::move(E));
    R.Failed = true;
    return R;
  }
  if (Index)
    R.Launches = launchesOf(Index->finish(O.Target->Name));
  R.Findings = Diag.findings();
  R.Errors = Diag.errors();
  R.Warnings = Diag.warnings();
  R.ParseErrors = ParseDiags.errorMessages();
  R.RemainingParseErrors = ParseDiags.errors();

  // Fixes apply to the file being ported; a fix-it in a project header is
  // shown but not applied (the header is shared by other files).
  patch::PatchSet Patches;
  std::string MainKey = patch::PatchSet::normalizePath(File);
  for (const std::string &F : Diag.patches().files()) {
    if (F != MainKey) {
      note(R, "fix-its in '" + F + "' are not applied; port that file itself");
      continue;
    }
    for (const patch::Edit &E : Diag.patches().editsFor(F))
      if (Error Err = Patches.add(E.Replacement, E.originText()))
        consumeError(std::move(Err)); // already conflict-free in Diag
  }
  if (!Patches.empty()) {
    auto New = Patches.applyTo(File, R.Original);
    if (!New) {
      error(R, toString(New.takeError()));
      return R;
    }
    // The original's count is known from the run; only the patched text is
    // parsed again (host and target).
    frontend::ParseOptions Reparse = *PO;
    Reparse.Target = O.Target;
    unsigned AfterCount = 0;
    auto Count = [&](StringRef F, StringRef Contents) -> Expected<unsigned> {
      if (Contents == R.Original)
        return ParseDiags.errors();
      auto N = countParseErrors(*O.Toolchain, Reparse, F, Contents, O.Passes);
      if (N)
        AfterCount = *N;
      return N;
    };
    patch::ContentsProvider Provide = [&](StringRef) -> Expected<std::string> {
      return R.Original;
    };
    if (Error E = patch::verifyNoNewErrors(Patches, Provide, Count)) {
      error(R, toString(std::move(E)) + "; nothing was written");
      return R;
    }
    R.Result = *New;
    R.Patched = true;
    R.RemainingParseErrors = AfterCount;
  }

  bool Writes = O.Output.writes();
  auto InMain = [&](const Finding &F) {
    return F.Fixed && patch::PatchSet::normalizePath(F.Loc.File) == MainKey;
  };
  R.Fixed = unsigned(count_if(R.Findings, InMain));
  // Errors of the passes that the user's file or the written result still
  // has: a fixed one is gone from a written result.
  unsigned OpenErrors = unsigned(count_if(R.Findings, [&](const Finding &F) {
    return F.Level == Severity::Error && !(Writes && R.Patched && InMain(F));
  }));
  // Clang's errors (those no pass explains): in the input, and in the result
  // that nvcc checks (the patch removes some, never adds one).
  unsigned Before = ParseDiags.errors();
  unsigned After = R.Patched ? R.RemainingParseErrors : Before;
  R.RemainingParseErrors = Writes ? After : Before;

  // nvcc checks the result even when Clang could not parse all of it: it,
  // not Clang, says whether the file builds.
  if (O.Validate) {
    R.Check = validate(R, *PO);
    if (R.Check.Ran && !R.Check.TargetOK) {
      for (const build::CompilerDiagnostic &D : R.Check.Results[0].Diagnostics)
        if (D.isError()) {
          R.Messages.push_back({SessionMessage::Kind::CompilerDiagnostic, D.format(), false});
          ++R.NvccErrors;
        }
      if (!R.NvccErrors) { // nvcc failed without a diagnostic: its own words
        R.NvccErrors = 1;
        StringRef Log = StringRef(R.Check.Results[0].Log).trim();
        if (!Log.empty())
          R.Messages.push_back(
              {SessionMessage::Kind::CompilerDiagnostic, Log.take_back(2000).str(), false});
      }
      error(R, File + ": nvcc does not compile the " + (R.Patched ? "patched " : "") +
                   "file for " + O.Target->Name);
    } else if (!R.Check.Ran) {
      note(R, R.Check.Note);
    }
  }
  bool NvccCompiles = R.Check.Ran && R.Check.TargetOK;
  if (After)
    note(R, "Clang could not parse " + std::to_string(After) +
                " region(s); findings there may be incomplete" +
                (NvccCompiles ? " (nvcc compiles them)"
                 : R.Check.Ran ? ""
                               : " (not validated: each counts as an error)"));
  // Errors nvcc confirmed are Clang's alone do not count; those a patch
  // removes count when the patch is not written (the user's file has them).
  R.ClangOnlyParseErrors = NvccCompiles ? After : 0;
  R.ParseErrorsCounted = (Writes ? 0 : Before - After) + (After - R.ClangOnlyParseErrors);
  if (OpenErrors || R.ParseErrorsCounted)
    R.Failed = true;

  R.Completed = true;
  // Only a result that does not have more errors than the input is
  // written, and only atomically.
  if (Error E = O.Output.write(File, R.Result, R.Patched))
    error(R, toString(std::move(E)), /*AfterSummary=*/true);
  else if (!O.DepfilePath.empty())
    if (Error E = writeFileAtomically(
            O.DepfilePath, renderDepfile(O.DepfileTarget.empty() ? O.Output.Path
                                                                 : O.DepfileTarget,
                                         std::vector<std::string>(
                                                           R.Dependencies.begin(),
                                                           R.Dependencies.end()))))
      error(R, toString(std::move(E)), /*AfterSummary=*/true);
  if (O.Output.K == OutputChoice::Kind::Diff && R.Patched)
    R.DiffText = patch::unifiedDiff(R.Original, R.Result, "a/" + File, "b/" + File);
  return R;
}

/// Whether Path has no write permission for anyone. The permission bits,
/// not access(2): root may write anything, yet a file made read-only is
/// meant to stay as it is.
static bool readOnly(const sys::fs::file_status &St) {
  return (St.permissions() & sys::fs::all_write) == 0;
}

Error PortSession::checkOutputs() const {
  if (O.Output.K == OutputChoice::Kind::File) {
    StringRef Out = O.Output.Path;
    SmallString<256> Dir(Out);
    sys::path::remove_filename(Dir);
    if (Dir.empty())
      Dir = ".";
    if (!sys::fs::is_directory(Dir))
      return makeError("cannot write '{0}': the directory '{1}' does not exist; nothing was "
                       "ported",
                       Out, Dir);
    sys::fs::file_status St;
    if (!sys::fs::status(Out, St)) {
      if (St.type() == sys::fs::file_type::directory_file)
        return makeError("cannot write '{0}': it is a directory; -o names the output file",
                         Out);
      if (readOnly(St) && !O.Force)
        return makeError("'{0}' is read-only; it is not overwritten (--force overwrites it)",
                         Out);
    }
  }
  if (O.Output.K == OutputChoice::Kind::InPlace)
    for (const std::string &File : O.Files) {
      sys::fs::file_status St;
      if (!sys::fs::status(File, St) && St.type() == sys::fs::file_type::regular_file &&
          readOnly(St) && !O.Force)
        return makeError("'{0}' is read-only; -i does not rewrite it (--force rewrites it); "
                         "nothing was ported",
                         File);
    }
  return Error::success();
}

Expected<PortResult> PortSession::run(std::function<void(const FilePortResult &)> OnFile) {
  if (!O.Target || !O.Toolchain)
    return makeError("PortSession: the target and the toolchain are required");
  if ((O.Output.K == OutputChoice::Kind::File || O.Output.K == OutputChoice::Kind::Stdout) &&
      O.Files.size() > 1)
    return makeUsageError("-o takes one input file; use -i or --diff for several");
  if (!O.DepfilePath.empty() && O.Output.K != OutputChoice::Kind::File)
    return makeUsageError("--depfile lists what -o FILE depends on; give -o FILE");
  if (Error E = checkOutputs())
    return std::move(E);
  PortResult Out;
  for (const std::string &File : O.Files) {
    auto R = portFile(File);
    if (!R)
      return R.takeError();
    if (OnFile)
      OnFile(*R);
    Out.Files.push_back(std::move(*R));
  }
  return Out;
}

} // namespace forge::port
