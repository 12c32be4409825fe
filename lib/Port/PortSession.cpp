//===- Port/PortSession.cpp - The port driver -----------------------------===//
#include "forge/Port/PortSession.h"
#include "forge/Port/ProjectFiles.h"
#include "forge/Build/NvccDriver.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Patch/ReparseCheck.h"
#include "forge/Patch/UnifiedDiff.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <atomic>
#include <future>
#include <mutex>
#include <thread>

using namespace llvm;

namespace forge::port {

unsigned BuildFileResult::openErrors(bool Writing) const {
  unsigned N = 0;
  for (const BuildFlagFinding &F : Findings)
    if (F.Level == BuildFlagLevel::Error && !(Writing && Fixed && !F.Replacement.empty()))
      ++N;
  return N;
}

StringRef sourceCompileName(SourceCompile S) {
  switch (S) {
  case SourceCompile::NotAsked:
    return "not-asked";
  case SourceCompile::SameArch:
    return "same-arch";
  case SourceCompile::HostOnly:
    return "host-only";
  case SourceCompile::Compared:
    return "compared";
  case SourceCompile::TargetFailed:
    return "target-failed";
  }
  return "not-asked";
}

bool PortResult::failed() const {
  return any_of(Files, [](const FilePortResult &F) { return F.Failed; }) ||
         any_of(BuildFiles, [&](const BuildFileResult &B) {
           return B.openErrors(Writing) || !B.WriteError.empty();
         });
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

/// One translation unit on its way through the stages of run().
struct PortSession::Unit {
  FilePortResult R;
  std::optional<frontend::ParseOptions> PO;
  /// Clang's errors on the input (those no pass explains).
  unsigned ParseErrorsBefore = 0;
  bool Analyzed = false; ///< the passes ran (no Failure)
  /// Clang's errors counted for the unit's own text CountedText (patched)
  /// with the patched project files CountedWith: the re-parse of the
  /// project check, reused when the patch is the same in the end.
  unsigned CountedErrors = 0;
  std::string CountedText;
  std::set<std::string> CountedWith;
  /// nvcc's verdict on the input as it is, started with the parse: the
  /// result when nothing is patched (most files of a real project).
  std::future<Validation> Early;
  /// A C/C++ unit nvcc compiles as host code (PassRunOptions::HostOnly).
  bool HostOnly = false;
  /// Why the source arch is (not) compiled beside the target.
  SourceCompile Source = SourceCompile::NotAsked;
  /// The source compile of the input is started once, by whichever is free
  /// first: the nvcc thread after the target compile, or finish() when the
  /// parse ends first. So at most two processes run per unit (2 cores).
  std::atomic<bool> SourceClaimed{false};
  bool claimSource() { return !SourceClaimed.exchange(true); }
};

/// Adds the source arch's compile (Archs {source}) to the target's verdict.
static void addSource(Validation &V, Validation Source) {
  if (!V.Ran)
    return;
  if (!Source.Ran) {
    V.Note = Source.Note;
    return;
  }
  V.Results.push_back(std::move(Source.Results.front()));
}

std::string PortSession::rootOf(const std::string &File) const {
  if (!O.ProjectRoot.empty())
    return absolutePath(O.ProjectRoot);
  return sys::path::parent_path(absolutePath(File)).str();
}

Validation PortSession::validate(const FilePortResult &R, const frontend::ParseOptions &PO,
                                 const std::map<std::string, std::string> &Includes,
                                 ArrayRef<const arch::TargetInfo *> Archs) {
  Validation V;
  auto Tools = build::findNvcc(O.CudaPath);
  if (!Tools) {
    V.Note = "not validated: " + toString(Tools.takeError());
    return V;
  }
  // nvcc compiles the result where it will be: in a scratch mirror of the
  // file system in which the result (and the project files it includes, as
  // patched) replace the originals, so its quoted includes resolve as they
  // will. -o FILE elsewhere: the result is at the -o path.
  std::string Home = absolutePath(R.File);
  if (O.Output.K == OutputChoice::Kind::File)
    Home = absolutePath(O.Output.Path);
  // As it is on disk, with no patched project file: in place (the mirror
  // links every entry of every directory above the file, 0.55 s for a file
  // under a /tmp of 1,000 entries).
  std::optional<OverlayTree> Tree;
  auto OnDisk = readFile(Home);
  bool InPlace = Home == absolutePath(R.File) && Includes.empty() && OnDisk && *OnDisk == R.Result;
  if (!OnDisk)
    consumeError(OnDisk.takeError());
  if (!InPlace) {
    std::map<std::string, std::string> Files = Includes;
    Files[Home] = R.Result;
    auto T = OverlayTree::make("/", Files);
    if (!T) {
      V.Note = "not validated: " + toString(T.takeError());
      return V;
    }
    Tree = std::move(*T);
  }
  std::string Source = Tree ? Tree->pathOf(Home) : Home;
  std::vector<build::CompileJob> Jobs;
  for (const arch::TargetInfo *T : Archs) {
    build::CompileJob J;
    J.Source = Source;
    J.Targets = {*T};
    J.Output = build::OutputKind::ResourceCheck;
    J.ResourceUsage = true;
    for (std::string &F : frontend::nvccFlagsFromClangArgs(PO.ExtraArgs)) {
      // -I directories read through the mirror, so patched headers are seen.
      StringRef Dir(F);
      if (Tree && Dir.consume_front("-I"))
        F = "-I" + Tree->mapDirectory(Dir);
      J.ExtraFlags.push_back(F);
    }
    // nvcc-only flags of the compile command (--extended-lambda, ...).
    J.ExtraFlags.insert(J.ExtraFlags.end(), PO.NvccArgs.begin(), PO.NvccArgs.end());
    J.TimeoutSeconds = O.ValidateTimeoutS;
    Jobs.push_back(J);
  }
  auto Results = (*Tools)->Driver->compileAll(Jobs, unsigned(Jobs.size()));
  V.Ran = true;
  for (auto &C : Results) {
    if (!C) {
      V.Note = "not validated: " + toString(C.takeError());
      V.Ran = false;
      V.Results.clear();
      return V;
    }
    // Diagnostics are about the user's files, not the mirror.
    for (build::CompilerDiagnostic &D : C->Diagnostics) {
      if (D.File == Source)
        D.File = R.File;
      else if (Tree && StringRef(D.File).starts_with(Tree->path() + "/"))
        D.File = StringRef(D.File).drop_front(Tree->path().size()).str();
    }
    V.Results.push_back(std::move(*C));
  }
  V.TargetOK = !V.Results.empty() && V.Results[0].ok();
  return V;
}

Error PortSession::analyze(Unit &U) {
  FilePortResult &R = U.R;
  const std::string &File = R.File;
  // The run's database; without one (none given, or it failed to load)
  // the lookup by directory says why.
  auto PO = O.Database
                ? frontend::makeParseOptions(File, O.Database.get(), O.Source, O.ExtraArgs)
                : frontend::makeParseOptions(File, O.BuildDir, O.Source, O.ExtraArgs);
  if (!PO) {
    Error E = PO.takeError();
    if (E.isA<UsageError>())
      return E;
    R.Failure = toString(std::move(E));
    R.Failed = true;
    return Error::success();
  }
  U.PO = *PO;
  R.Source = &PO->target();
  // The compile command as the database gives it (the run's one load).
  std::vector<std::string> Command;
  if (O.Database) {
    if (auto Args = O.Database->argumentsOf(File))
      Command = std::move(*Args);
    else
      consumeError(Args.takeError()); // makeParseOptions found the entry
  }
  // A compile command that builds arch-specific code of another compute
  // capability (sm_90a when porting to sm_100): what to build instead.
  if (!Command.empty())
    if (auto Note = compileFlagNote(Command, *O.Target))
      note(R, *Note);
  // nvcc compiles a .cpp or a .c with the host compiler alone unless told
  // '-x cu': there is no device side to parse, and every arch compiles the
  // same.
  U.HostOnly = frontend::isHostUnit(File, Command, O.ExtraArgs);
  // ... and parsed as its host compiler sees it: C++ (C for a .c), not
  // CUDA's host side (the CUDA wrapper headers took half of such a unit's
  // parse).
  PO->HostCompiler = U.PO->HostCompiler = U.HostOnly;
  // The source arch is compiled only where something names it (--from, or
  // the arch in the file's flags): the default sm_80 is a guess, and a
  // second nvcc run beside the parse costs a core of two.
  if (R.Source == O.Target)
    U.Source = SourceCompile::SameArch;
  else if (U.HostOnly)
    U.Source = SourceCompile::HostOnly;
  else if (PO->Target)
    U.Source = SourceCompile::Compared;
  auto Original = readFile(File);
  if (!Original) {
    R.Failure = toString(Original.takeError());
    R.Failed = true;
    return Error::success();
  }
  if (Error E = frontend::checkCudaInput(File)) {
    R.Failure = toString(std::move(E));
    R.Failed = true;
    return Error::success();
  }
  R.Original = *Original;
  R.Result = *Original;
  // nvcc runs beside the parse: when the port changes nothing in the file
  // or the project files it includes, its verdict is the result's.
  if (O.Validate) {
    FilePortResult Input;
    Input.File = R.File;
    Input.Result = R.Original;
    Input.Target = R.Target;
    Input.Source = R.Source;
    U.Early = std::async(std::launch::async,
                         [this, &U, Input = std::move(Input), PO = *PO]() mutable {
                           Validation V = validate(Input, PO, {}, {Input.Target});
                           if (U.Source == SourceCompile::Compared && U.claimSource())
                             addSource(V, validate(Input, PO, {}, {Input.Source}));
                           return V;
                         });
  }

  // The diagnostics go to the file's own text, printed with its result.
  raw_string_ostream DiagOS(R.DiagText);
  PortDiagnostics Diag(O.DiagOS ? &DiagOS : nullptr, O.WarningsAsErrors);
  frontend::ParseDiagnostics ParseDiags(O.ParseDiagOS ? &DiagOS : nullptr);
  PassRunOptions Run;
  // The launches' block sizes are for the resource table, which needs nvcc.
  std::optional<frontend::KernelIndexBuilder> Index;
  if (O.Validate) {
    Index.emplace(File);
    Run.Index = &*Index;
  }
  Run.Files = &R.Dependencies; // the depfile, and which files include what
  Run.HostOnly = U.HostOnly;
  Run.Target = O.Target;
  Run.Source = R.Source;
  Run.Passes = O.Passes;
  Run.Parse = *PO;
  if (Error E = runPortPasses(*O.Toolchain, Run, File, Diag, ParseDiags)) {
    R.Failure = toString(std::move(E));
    R.Failed = true;
    return Error::success();
  }
  if (Index)
    R.Launches = launchesOf(Index->finish(O.Target->Name));
  R.Findings = Diag.findings();
  R.Errors = Diag.errors();
  R.Warnings = Diag.warnings();
  R.ParseErrors = ParseDiags.errorMessages();
  U.ParseErrorsBefore = ParseDiags.errors();
  U.Analyzed = true;
  return Error::success();
}

/// A file as a diff names it: relative to the current directory when it is
/// below it (so `patch -p1` applies the diff there), else as given.
static std::string diffLabel(StringRef File) {
  std::string Abs = absolutePath(File), Here = absolutePath(".");
  if (!sys::path::is_absolute(File))
    return File.str();
  return isUnder(Abs, Here) ? relativePath(Abs, Here) : Abs.substr(1);
}

/// Whether the output can carry fixes in files other than the input.
static bool carriesProjectFiles(const OutputChoice &Out) {
  return Out.K == OutputChoice::Kind::InPlace || Out.K == OutputChoice::Kind::Diff ||
         Out.K == OutputChoice::Kind::Tree || Out.K == OutputChoice::Kind::None;
}

/// A finding in a project file, as every translation unit that reports it
/// sees it: where, which pass and what it says.
static std::string sharedKey(const Finding &F) {
  return absolutePath(F.Loc.File) + ":" + std::to_string(F.Span.Offset) + ":" + F.Pass + ":" +
         F.Message;
}

/// The fix a finding offers, as text ("" when it offers none).
static std::string fixSignature(const Finding &F) {
  if (!F.Fixed)
    return "";
  std::string S;
  for (const FixIt &X : F.FixIts)
    S += absolutePath(X.File) + ":" + std::to_string(X.Range.Offset) + "+" +
         std::to_string(X.Range.Length) + "=" + X.Replacement + "\n";
  return S;
}

void PortSession::assignFixes(std::vector<Unit> &Units, PortResult &Out) {
  std::map<std::string, patch::PatchSet> Project; // applied, by file
  std::map<std::string, std::vector<std::string>> From;
  // A finding in a shared file is fixed only when every file that reports it
  // offers the same fix: a helper's full warp mask is safe only if no
  // including file calls it from divergent code, say.
  std::map<std::string, std::map<std::string, std::string>> Offers; // key -> fix -> file
  for (const Unit &U : Units)
    for (const Finding &F : U.R.Findings)
      if (absolutePath(F.Loc.File) != absolutePath(U.R.File))
        Offers[sharedKey(F)].emplace(fixSignature(F), U.R.File);
  for (Unit &U : Units) {
    if (!U.Analyzed)
      continue;
    FilePortResult &R = U.R;
    std::string Main = absolutePath(R.File);
    std::string Root = rootOf(R.File);
    std::set<std::string> Told; // one note per file and reason
    auto Refuse = [&](const std::string &F, std::string Why) {
      if (Told.insert(F + "\n" + Why).second)
        note(R, "fix-its in '" + F + "' are not applied: " + Why);
    };
    std::set<std::string> Mine;
    for (Finding &F : R.Findings) {
      if (!F.Fixed)
        continue;
      if (auto It = Offers.find(sharedKey(F)); It != Offers.end() && It->second.size() > 1) {
        // The key holds at least two fixes: one of them is not this one.
        std::string Signature = fixSignature(F);
        auto Other =
            find_if(It->second, [&](const auto &KV) { return KV.first != Signature; });
        note(R, "a fix of " + F.Pass + " at " + absolutePath(F.Loc.File) + ":" +
                    std::to_string(F.Loc.Line) + " is not applied: '" + Other->second +
                    "', which includes it too, " +
                    (Other->first.empty() ? "offers no fix there" : "offers another fix"));
        F.Fixed = false;
        continue;
      }
      // A finding's fix-its are applied together or not at all (those in
      // the unit's own file are ownPatch's).
      patch::PatchSet Others;
      bool OK = true;
      for (const FixIt &X : F.FixIts) {
        std::string File = absolutePath(X.File);
        clang::tooling::Replacement Rep =
            patch::makeReplacement(File, X.Range.Offset, X.Range.Length, X.Replacement);
        if (File != Main) {
          if (!isUnder(File, Root) ||
              (O.Toolchain->hasCuda() && isUnder(File, absolutePath(O.Toolchain->CudaPath)))) {
            Refuse(X.File, "it is not a project file (not under '" + Root + "')");
            OK = false;
          } else if (!carriesProjectFiles(O.Output)) {
            Refuse(X.File, "-o FILE writes only the input's result (-i, --diff or -o DIR "
                           "write project files too)");
            OK = false;
          }
        }
        if (OK && File != Main)
          consumeError(Others.add(Rep, F.Pass));
      }
      if (OK && !Others.empty()) {
        // Identical edits of another file's fix are the same fix (a shared
        // header seen through two files); a different overlapping one is a
        // conflict, and this file's fix gives way.
        patch::PatchSet Trial;
        for (const std::string &PF : Others.files())
          if (auto It = Project.find(PF); It != Project.end())
            consumeError(Trial.add(It->second));
        if (Error E = Trial.add(Others)) {
          note(R, "a fix of " + F.Pass + " at " + absolutePath(F.Loc.File) + ":" +
                      std::to_string(F.Loc.Line) + " is not applied: it conflicts with "
                      "another file's fix in the same project file (" +
                      toString(std::move(E)) + ")");
          OK = false;
        }
      }
      if (!OK) {
        F.Fixed = false;
        continue;
      }
      for (const std::string &PF : Others.files()) {
        for (const patch::Edit &E : Others.editsFor(PF))
          consumeError(Project[PF].add(E.Replacement, E.originText()));
        Mine.insert(PF);
      }
    }
    for (const std::string &PF : Mine) {
      R.ProjectFixFiles.push_back(PF);
      From[PF].push_back(R.File);
    }
  }
  for (auto &[File, Set] : Project) {
    ProjectFileResult P;
    P.File = File;
    P.From = From[File];
    P.Edits = unsigned(Set.editsFor(File).size());
    auto Text = readFile(File);
    if (!Text) {
      P.Rejected = toString(Text.takeError());
    } else {
      P.Original = *Text;
      auto New = Set.applyTo(File, P.Original);
      if (!New)
        P.Rejected = toString(New.takeError());
      else
        P.Result = *New;
    }
    Out.ProjectFiles.push_back(std::move(P));
  }
}

std::map<std::string, std::string> PortSession::patchedIncludes(const Unit &U,
                                                                const PortResult &Out) const {
  std::map<std::string, std::string> Files;
  for (const ProjectFileResult &P : Out.ProjectFiles)
    if (P.Rejected.empty() && U.R.Dependencies.count(P.File))
      Files[P.File] = P.Result;
  return Files;
}

/// The edits in the unit's own file of the findings that are fixed.
static patch::PatchSet ownPatch(const FilePortResult &R) {
  patch::PatchSet Patches;
  std::string Main = absolutePath(R.File);
  for (const Finding &F : R.Findings)
    if (F.Fixed)
      for (const FixIt &X : F.FixIts)
        if (absolutePath(X.File) == Main)
          consumeError(Patches.add(
              patch::makeReplacement(Main, X.Range.Offset, X.Range.Length, X.Replacement),
              F.Pass));
  return Patches;
}

void PortSession::verifyProjectFixes(std::vector<Unit> &Units, PortResult &Out) {
  if (Out.ProjectFiles.empty())
    return;
  // Each unit that includes a patched project file is parsed again, patched
  // itself, with the patched texts (a texture's fix spans the two): more
  // errors than before, and the project files it includes are left as they
  // are, for every unit (the findings with fixes there lose them all).
  bool Dropped = true;
  for (unsigned Round = 0; Dropped && Round < 8; ++Round) {
    Dropped = false;
    for (Unit &U : Units) {
      if (!U.Analyzed)
        continue;
      auto Includes = patchedIncludes(U, Out);
      if (Includes.empty())
        continue;
      frontend::ParseOptions PO = *U.PO;
      PO.Target = O.Target;
      patch::PatchSet Own = ownPatch(U.R);
      auto Text = Own.empty() ? Expected<std::string>(U.R.Original)
                              : Own.applyTo(absolutePath(U.R.File), U.R.Original);
      if (!Text) {
        consumeError(Text.takeError()); // finish() reports it
        continue;
      }
      auto N = countParseErrors(*O.Toolchain, PO, U.R.File, *Text, O.Passes, Includes,
                                nullptr, U.HostOnly);
      if (N && *N <= U.ParseErrorsBefore) {
        U.CountedErrors = *N;
        U.CountedText = *Text;
        U.CountedWith.clear();
        for (const auto &KV : Includes)
          U.CountedWith.insert(KV.first);
        continue;
      }
      std::string Why =
          N ? formatv("with them {0} has {1} parse error(s) instead of {2}", U.R.File, *N,
                      U.ParseErrorsBefore)
                  .str()
            : toString(N.takeError());
      for (ProjectFileResult &P : Out.ProjectFiles)
        if (P.Rejected.empty() && Includes.count(P.File)) {
          P.Rejected = Why;
          Dropped = true;
        }
    }
  }
  // The findings whose fixes were in a rejected file are not fixed.
  for (Unit &U : Units)
    for (Finding &F : U.R.Findings) {
      if (!F.Fixed)
        continue;
      for (const FixIt &X : F.FixIts)
        for (const ProjectFileResult &P : Out.ProjectFiles)
          if (!P.Rejected.empty() && absolutePath(X.File) == P.File)
            F.Fixed = false;
    }
}

void PortSession::finish(Unit &U, const PortResult &Out) {
  FilePortResult &R = U.R;
  const std::string &File = R.File;
  auto Includes = patchedIncludes(U, Out);
  // A finding whose fixes a rejected project file held lost its fixes in
  // this file too: the file's own patch is rebuilt from what is applied.
  patch::PatchSet Patches = ownPatch(R);
  std::string Main = absolutePath(File);
  for (const std::string &PF : R.ProjectFixFiles)
    if (Includes.count(PF))
      note(R, "fixes in '" + PF + "' are applied for the project (" +
                  (O.Output.K == OutputChoice::Kind::InPlace ? "rewritten in place"
                   : O.Output.K == OutputChoice::Kind::Tree  ? "written to the tree"
                   : O.Output.K == OutputChoice::Kind::Diff  ? "in the diff"
                                                             : "not written") +
                  ")");
  unsigned After = U.ParseErrorsBefore;
  if (!Patches.empty() || !Includes.empty()) {
    auto New = Patches.empty() ? Expected<std::string>(R.Original)
                               : Patches.applyTo(Main, R.Original);
    if (!New) {
      error(R, toString(New.takeError()));
      return;
    }
    // The original's count is known from the run; the patched text is
    // parsed again (host and target) with the project files it includes as
    // patched, unless the project check just did.
    std::set<std::string> Keys;
    for (const auto &KV : Includes)
      Keys.insert(KV.first);
    if (!Includes.empty() && *New == U.CountedText && Keys == U.CountedWith) {
      After = U.CountedErrors;
    } else {
      frontend::ParseOptions Reparse = *U.PO;
      Reparse.Target = O.Target;
      auto N = countParseErrors(*O.Toolchain, Reparse, File, *New, O.Passes, Includes, nullptr,
                                U.HostOnly);
      if (!N) {
        error(R, toString(N.takeError()) + "; nothing was written");
        return;
      }
      After = *N;
    }
    if (After > U.ParseErrorsBefore) {
      // Which errors are new: those the input did not have, the first few.
      std::vector<std::string> Now;
      frontend::ParseOptions Reparse = *U.PO;
      Reparse.Target = O.Target;
      consumeError(countParseErrors(*O.Toolchain, Reparse, File, *New, O.Passes, Includes, &Now,
                                    U.HostOnly)
                       .takeError());
      std::string Listed;
      unsigned Shown = 0;
      for (const std::string &M : Now)
        if (!is_contained(R.ParseErrors, M) && Shown++ < 3)
          Listed += "\n  " + M;
      error(R, formatv("the patch of '{0}' adds parse errors ({1} before, {2} after); "
                       "nothing was written{3}{4}",
                       File, U.ParseErrorsBefore, After, Listed.empty() ? "" : "; new:",
                       Listed)
                   .str());
      return;
    }
    if (!Patches.empty()) {
      R.Result = *New;
      R.Patched = true;
    }
  }

  bool Writes = O.Output.writes();
  // -o FILE in another directory: quoted includes that only resolve beside
  // the input name the input's neighbours from the output's directory.
  if (O.Output.K == OutputChoice::Kind::File) {
    std::string OutPath = absolutePath(O.Output.Path);
    for (const std::string &Moved : rebaseQuotedIncludes(
             R.Result, sys::path::parent_path(Main), sys::path::parent_path(OutPath)))
      note(R, "the quoted include " + Moved + " so that the result builds where it is "
                                              "written");
  }
  auto Applied = [&](const Finding &F) {
    if (!F.Fixed || F.FixIts.empty())
      return false;
    std::string FFile = absolutePath(F.FixIts.front().File);
    return FFile == Main ? R.Patched : Includes.count(FFile) > 0;
  };
  R.Fixed = unsigned(count_if(R.Findings, Applied));
  // Errors of the passes that the user's files or the written result still
  // have: a fixed one is gone from a written result.
  unsigned OpenErrors = unsigned(count_if(R.Findings, [&](const Finding &F) {
    return F.Level == Severity::Error && !(Writes && Applied(F));
  }));
  // Clang's errors (those no pass explains): in the input, and in the result
  // that nvcc checks (the patch removes some, never adds one).
  unsigned Before = U.ParseErrorsBefore;
  R.RemainingParseErrors = Writes ? After : Before;

  // nvcc checks the result even when Clang could not parse all of it: it,
  // not Clang, says whether the file builds.
  if (O.Validate) {
    // -o FILE is checked where it is written (validate's home).
    bool AsIs = R.Result == R.Original && Includes.empty() &&
                O.Output.K != OutputChoice::Kind::File;
    bool Compare = U.Source == SourceCompile::Compared;
    if (AsIs && U.Early.valid()) {
      // The parse ended before the nvcc thread reached the source compile:
      // it runs here, beside the target's.
      std::optional<Validation> Source;
      if (Compare && U.claimSource())
        Source = validate(R, *U.PO, Includes, {R.Source});
      R.Check = U.Early.get();
      if (Source)
        addSource(R.Check, std::move(*Source));
    } else {
      if (U.Early.valid())
        U.Early.wait();
      std::vector<const arch::TargetInfo *> Archs = {O.Target};
      if (Compare)
        Archs.push_back(R.Source);
      R.Check = validate(R, *U.PO, Includes, Archs);
    }
    R.Check.Source = U.Source;
    // The target compile fails: whether the same text builds for the source
    // arch tells a failure of the target from one the file had before.
    if (R.Check.Ran && !R.Check.TargetOK && R.Check.Results.size() == 1 &&
        U.Source == SourceCompile::NotAsked) {
      addSource(R.Check, validate(R, *U.PO, Includes, {R.Source}));
      if (R.Check.Results.size() > 1)
        R.Check.Source = SourceCompile::TargetFailed;
    }
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
      if (R.Check.Results.size() > 1)
        note(R, R.Check.sourceOK()
                    ? "nvcc compiles it for " + std::string(R.Source->Name) +
                          ", the source arch: the failure is the target's"
                    : "nvcc does not compile it for " + std::string(R.Source->Name) +
                          ", the source arch, either: the failure is not the target's "
                          "(CUDA 13, a header or a flag)");
    } else if (!R.Check.Ran) {
      note(R, R.Check.Note);
    }
  }
  bool NvccCompiles = R.Check.Ran && R.Check.TargetOK;
  // After counts Clang's distinct errors (ParseDiagnostics::errors()), not
  // regions: one launch spelt `k << < g, b >> > (...)` is two.
  if (After)
    note(R, std::to_string(After) +
                " error(s) in code Clang could not parse; findings there may be incomplete" +
                (NvccCompiles ? " (nvcc compiles it)"
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
  // written, and only atomically; -o DIR writes the tree at the end.
  if (O.Output.K == OutputChoice::Kind::Tree)
    ;
  else if (Error E = O.Output.write(File, R.Result, R.Patched))
    error(R, toString(std::move(E)), /*AfterSummary=*/true);
  else if (!O.DepfilePath.empty())
    if (Error E = writeFileAtomically(
            O.DepfilePath, renderDepfile(O.DepfileTarget.empty() ? O.Output.Path
                                                                 : O.DepfileTarget,
                                         std::vector<std::string>(
                                                           R.Dependencies.begin(),
                                                           R.Dependencies.end()))))
      error(R, toString(std::move(E)), /*AfterSummary=*/true);
  if (O.Output.K == OutputChoice::Kind::Diff && R.Patched) {
    std::string Label = diffLabel(File);
    R.DiffText = patch::unifiedDiff(R.Original, R.Result, "a/" + Label, "b/" + Label);
  }
}

/// Whether Path has no write permission for anyone. The permission bits,
/// not access(2): root may write anything, yet a file made read-only is
/// meant to stay as it is.
static bool readOnly(const sys::fs::file_status &St) {
  return (St.permissions() & sys::fs::all_write) == 0;
}

/// The directory a file is written in: File's parent as given, "." for a
/// bare name.
static std::string dirOf(StringRef File) {
  SmallString<256> Dir(File);
  sys::path::remove_filename(Dir);
  if (Dir.empty())
    Dir = ".";
  return Dir.str().str();
}

namespace {
/// Why no file can be created in a directory; empty: one can.
struct DirRefusal {
  std::string Why;
  /// The permission bits alone refuse it: --force writes into it.
  bool ForceHelps = false;
  explicit operator bool() const { return !Why.empty(); }
  /// " (--force writes into it)" where --force would.
  std::string hint() const { return ForceHelps ? " (--force writes into it)" : ""; }
};
} // namespace

/// Whether a file can be created in Dir: the atomic write makes a temporary
/// file there and renames it. As for a file (readOnly), the permission bits
/// decide, so that a directory made read-only stays as it is even for root
/// (unless Force); access(2) besides, for a directory of another user.
static DirRefusal dirRefusal(StringRef Dir, bool Force) {
  DirRefusal R;
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Dir, St)) {
    R.Why = EC == std::errc::no_such_file_or_directory
                ? formatv("the directory '{0}' does not exist", Dir).str()
                : formatv("the directory '{0}' cannot be read: {1}", Dir, EC.message()).str();
    return R;
  }
  if (St.type() != sys::fs::file_type::directory_file) {
    R.Why = formatv("'{0}' is not a directory", Dir).str();
    return R;
  }
  if (readOnly(St) && !Force) {
    R.Why = formatv("the directory '{0}' is read-only", Dir).str();
    R.ForceHelps = true;
    return R;
  }
  if (std::error_code EC = sys::fs::access(Dir, sys::fs::AccessMode::Write))
    R.Why = formatv("the directory '{0}' is not writable: {1}", Dir, EC.message()).str();
  return R;
}

Error checkOverwrite(StringRef Out, bool Force) {
  sys::fs::file_status St;
  if (!sys::fs::status(Out, St) && St.type() != sys::fs::file_type::directory_file &&
      readOnly(St) && !Force)
    return makeError("'{0}' is read-only; it is not overwritten (--force overwrites it)", Out);
  return Error::success();
}

Error checkOutputFile(StringRef Out, StringRef Flag, bool Force, StringRef What) {
  if (Out == "-") // stdout (writeFileAtomically)
    return Error::success();
  std::string Dir = dirOf(Out);
  DirRefusal D = dirRefusal(Dir, Force);
  if (D && !D.ForceHelps) // missing, not a directory, not writable
    return makeError("cannot write {0}'{1}': {2}; nothing was ported", What, Out, D.Why);
  sys::fs::file_status St;
  if (!sys::fs::status(Out, St) && St.type() == sys::fs::file_type::directory_file)
    return makeError("cannot write {0}'{1}': it is a directory; {2} names the file", What, Out,
                     Flag);
  if (Error E = checkOverwrite(Out, Force))
    return E;
  if (D)
    return makeError("cannot write {0}'{1}': {2}{3}; nothing was ported", What, Out, D.Why,
                     D.hint());
  return Error::success();
}

/// A file that -i rewrites: refused when it or its directory (where the
/// temporary file of the atomic write goes) has no write permission; Then
/// ends the message. A file that does not exist is not refused here: its
/// read says why.
static Error checkRewrite(StringRef File, bool Force, StringRef Then) {
  sys::fs::file_status St;
  if (sys::fs::status(File, St) || St.type() != sys::fs::file_type::regular_file)
    return Error::success();
  if (readOnly(St) && !Force)
    return makeError("'{0}' is read-only; -i does not rewrite it (--force rewrites it); {1}",
                     File, Then);
  if (DirRefusal D = dirRefusal(dirOf(File), Force))
    return makeError("cannot rewrite '{0}' in place: {1}, and -i writes a temporary file "
                     "beside it{2}; {3}",
                     File, D.Why, D.hint(), Then);
  return Error::success();
}

/// The deepest of Path and its parents that exists ("/" at worst).
static std::string nearestExisting(StringRef Path) {
  std::string P = absolutePath(Path);
  while (!sys::fs::exists(P)) {
    StringRef Parent = sys::path::parent_path(P);
    if (Parent.empty() || Parent == P)
      break;
    P = Parent.str();
  }
  return P;
}

void PortSession::scanBuildFiles(PortResult &Out) {
  if (!O.ScanBuildFiles || O.ProjectRoot.empty())
    return;
  bool Apply = carriesProjectFiles(O.Output) && O.Output.K != OutputChoice::Kind::None;
  for (const std::string &File : buildFilesUnder(absolutePath(O.ProjectRoot))) {
    auto Text = readFile(File);
    if (!Text) {
      consumeError(Text.takeError());
      continue;
    }
    BuildFileResult B;
    B.File = File;
    B.Original = *Text;
    for (BuildFlagFinding &F : port::scanBuildFile(File, *Text, *O.Target))
      if (F.Level != BuildFlagLevel::Ok)
        B.Findings.push_back(std::move(F));
    if (B.Findings.empty())
      continue;
    B.Result = B.Original;
    if (Apply) // from the end, so earlier offsets stay valid
      for (auto It = B.Findings.rbegin(); It != B.Findings.rend(); ++It)
        if (!It->Replacement.empty() && It->Offset + It->Length <= B.Result.size()) {
          B.Result.replace(It->Offset, It->Length, It->Replacement);
          ++B.Fixed;
        }
    if (B.Fixed && O.Output.K == OutputChoice::Kind::Diff) {
      std::string Label = diffLabel(File);
      B.DiffText = patch::unifiedDiff(B.Original, B.Result, "a/" + Label, "b/" + Label);
    }
    // -i rewrites them with the project files (writeProjectFiles), -o DIR
    // writes them to the tree; both after the run's checks.
    Out.BuildFiles.push_back(std::move(B));
  }
}

void PortSession::writeProjectFiles(PortResult &Out) {
  for (ProjectFileResult &P : Out.ProjectFiles) {
    if (!P.Rejected.empty())
      continue;
    if (O.Output.K == OutputChoice::Kind::Diff) {
      std::string Label = diffLabel(P.File);
      P.DiffText = patch::unifiedDiff(P.Original, P.Result, "a/" + Label, "b/" + Label);
      continue;
    }
    if (O.Output.K != OutputChoice::Kind::InPlace)
      continue;
    // Read-only files and directories were refused before anything was
    // written (checkRewrite in run()).
    if (Error E = writeFileAtomically(P.File, P.Result))
      P.WriteError = toString(std::move(E));
    else
      P.Written = true;
  }
  if (O.Output.K == OutputChoice::Kind::InPlace)
    for (BuildFileResult &B : Out.BuildFiles) {
      if (!B.Fixed)
        continue;
      if (Error E = writeFileAtomically(B.File, B.Result))
        B.WriteError = toString(std::move(E));
      else
        B.Written = true;
    }
}

/// Where -o DIR puts File (absolute, under Root): the same path under Dest.
static std::string treePath(StringRef Dest, StringRef Root, StringRef File) {
  SmallString<256> P(Dest);
  sys::path::append(P, relativePath(File, Root));
  return P.str().str();
}

Error PortSession::checkTree(const std::set<std::string> &Sources) const {
  // A DIR that does not exist is created, with its missing parents
  // (mkdir -p): the deepest existing directory on the way must be
  // writable. So must every existing directory of the tree that will hold
  // a file; and a file there that it replaces must not be read-only, as
  // for -o FILE (checkOverwrite).
  std::string Dest = absolutePath(O.Output.Path);
  std::set<std::string> Dirs = {Dest}, Files;
  if (!O.Files.empty()) {
    std::string Root = rootOf(O.Files.front());
    for (const std::string &F : Sources)
      if (isUnder(F, Root) && !isUnder(F, Dest)) {
        std::string To = treePath(Dest, Root, F);
        Dirs.insert(sys::path::parent_path(To).str());
        Files.insert(To);
      }
  }
  std::set<std::string> Checked;
  for (const std::string &Dir : Dirs) {
    std::string Existing = nearestExisting(Dir);
    if (!Checked.insert(Existing).second)
      continue;
    if (DirRefusal D = dirRefusal(Existing, O.Force))
      return makeError("cannot write the tree to '{0}': {1}{2}; nothing was ported", Dest,
                       D.Why, D.hint());
  }
  for (const std::string &F : Files)
    if (Error E = checkOverwrite(F, O.Force))
      return E;
  return Error::success();
}

void PortSession::writeTree(std::vector<Unit> &Units, PortResult &Out) {
  std::string Dest = absolutePath(O.Output.Path);
  std::map<std::string, std::string> Texts; // destination -> text
  std::set<std::string> Copies;             // originals copied as they are
  std::string Root = rootOf(Units.empty() ? "." : Units.front().R.File);
  auto Target = [&](const std::string &F) { return treePath(Dest, Root, F); };
  for (const Unit &U : Units) {
    if (!U.R.Completed)
      continue;
    std::string Main = absolutePath(U.R.File);
    if (!isUnder(Main, Root))
      continue; // refused before any work (checkOutputs)
    Texts[Target(Main)] = U.R.Result;
    for (const std::string &D : U.R.Dependencies)
      if (D != Main && isUnder(D, Root))
        Copies.insert(D);
  }
  for (ProjectFileResult &P : Out.ProjectFiles)
    if (P.Rejected.empty()) {
      Texts[Target(P.File)] = P.Result;
      Copies.erase(P.File);
    }
  // The rest of the project's sources, headers and build files, so that the
  // tree builds by itself (a main.cpp no pass touched, a configure script).
  for (const std::string &F : projectSourcesUnder(Root))
    if (!isUnder(F, Dest))
      Copies.insert(F);
  for (BuildFileResult &B : Out.BuildFiles)
    if (B.Fixed && isUnder(B.File, Root)) {
      Texts[Target(B.File)] = B.Result;
      Copies.erase(B.File);
    }
  auto Write = [&](const std::string &To, StringRef Text) -> Error {
    if (auto EC = sys::fs::create_directories(sys::path::parent_path(To)))
      return makeError("cannot create '{0}': {1}", sys::path::parent_path(To), EC.message());
    return writeFileAtomically(To, Text);
  };
  for (const auto &[To, Text] : Texts)
    if (Error E = Write(To, Text)) {
      std::string Why = toString(std::move(E));
      for (ProjectFileResult &P : Out.ProjectFiles)
        if (Target(P.File) == To)
          P.WriteError = Why;
      for (Unit &U : Units)
        if (U.R.Completed && Target(absolutePath(U.R.File)) == To)
          error(U.R, Why, /*AfterSummary=*/true);
    }
  for (const std::string &C : Copies) {
    if (Texts.count(Target(C)))
      continue;
    auto Text = readFile(C);
    if (!Text) {
      consumeError(Text.takeError());
      continue;
    }
    if (Error E = Write(Target(C), *Text))
      consumeError(std::move(E));
    else
      ++Out.CopiedToTree;
  }
  for (ProjectFileResult &P : Out.ProjectFiles)
    if (P.Rejected.empty() && P.WriteError.empty())
      P.Written = true;
  for (BuildFileResult &B : Out.BuildFiles)
    if (B.Fixed)
      B.Written = true;
}

Error PortSession::checkOutputs() const {
  // Every file the run writes is checked here, before any parse or nvcc
  // run: its directory exists and may be written (the permission bits, as
  // for a file), and a read-only file is not overwritten unless --force.
  // The project files that receive fixes are known only after the parse;
  // run() checks them before anything is written.
  if (O.Output.K == OutputChoice::Kind::File) {
    if (Error E = checkOutputFile(O.Output.Path, "-o", O.Force))
      return E;
    if (!O.DepfilePath.empty())
      if (Error E = checkOutputFile(O.DepfilePath, "--depfile", O.Force))
        return E;
  }
  if (O.Output.K == OutputChoice::Kind::Tree) {
    std::string Dest = absolutePath(O.Output.Path);
    sys::fs::file_status St;
    if (!sys::fs::status(Dest, St) && St.type() != sys::fs::file_type::directory_file)
      return makeError("cannot write the tree to '{0}': it is not a directory", Dest);
    for (const std::string &File : O.Files) {
      std::string Root = rootOf(File), Abs = absolutePath(File);
      if (!isUnder(Abs, Root))
        return makeUsageError("'{0}' is not under the project root '{1}'; -o DIR mirrors "
                              "the tree under the root",
                              File, Root);
      if (isUnder(Dest, Root) && isUnder(Abs, Dest))
        return makeUsageError("'{0}' is inside the output tree '{1}'", File, Dest);
    }
    // What writeTree writes: the ported units and the project's sources,
    // headers and build files. Other headers the units include are known
    // after the parse (run() checks them then).
    std::set<std::string> Sources;
    for (const std::string &F : O.Files)
      Sources.insert(absolutePath(F));
    if (!O.Files.empty())
      for (std::string &F : projectSourcesUnder(rootOf(O.Files.front())))
        Sources.insert(std::move(F));
    if (Error E = checkTree(Sources))
      return E;
  }
  if (O.Output.K == OutputChoice::Kind::InPlace)
    for (const std::string &File : O.Files)
      if (Error E = checkRewrite(File, O.Force, "nothing was ported"))
        return E;
  return Error::success();
}

/// Runs Work(I) for I in [0, N) on Jobs threads; Done(I) is called in
/// index order, each as soon as Work has ended for it and every one before.
static void inParallel(size_t N, unsigned Jobs, function_ref<void(size_t)> Work,
                       function_ref<void(size_t)> Done) {
  std::mutex M;
  std::vector<bool> Ended(N, false);
  size_t NextDone = 0;
  std::atomic<size_t> Next{0};
  auto Worker = [&] {
    for (size_t I; (I = Next++) < N;) {
      Work(I);
      std::lock_guard<std::mutex> L(M);
      Ended[I] = true;
      while (NextDone < N && Ended[NextDone])
        Done(NextDone++);
    }
  };
  unsigned Threads = unsigned(std::min<size_t>(std::max(1u, Jobs), N));
  if (Threads <= 1) {
    Worker();
    return;
  }
  std::vector<std::thread> Pool;
  for (unsigned T = 0; T < Threads; ++T)
    Pool.emplace_back(Worker);
  for (std::thread &T : Pool)
    T.join();
}

Expected<PortResult> PortSession::run(std::function<void(const FilePortResult &)> OnFile) {
  if (!O.Target || !O.Toolchain)
    return makeError("PortSession: the target and the toolchain are required");
  if ((O.Output.K == OutputChoice::Kind::File || O.Output.K == OutputChoice::Kind::Stdout) &&
      O.Files.size() > 1)
    return makeUsageError("-o FILE takes one input file; use -o DIR, -i or --diff for several");
  if (!O.DepfilePath.empty() && O.Output.K != OutputChoice::Kind::File)
    return makeUsageError("--depfile lists what -o FILE depends on; give -o FILE");
  if (Error E = checkOutputs())
    return std::move(E);
  // The build files' fixes are known before the parse: -i checks them with
  // the inputs, before any work.
  PortResult Out;
  scanBuildFiles(Out);
  if (O.Output.K == OutputChoice::Kind::InPlace)
    for (const BuildFileResult &B : Out.BuildFiles)
      if (B.Fixed)
        if (Error E = checkRewrite(B.File, O.Force, "nothing was ported"))
          return std::move(E);
  if (!O.BuildDir.empty() && !O.Database) {
    auto DB = frontend::CompileDatabase::load(O.BuildDir);
    if (DB)
      O.Database = std::move(*DB);
    else
      consumeError(DB.takeError()); // each file's parse options say why
  }
  std::vector<Unit> Units(O.Files.size());
  for (size_t I = 0; I < Units.size(); ++I) {
    Units[I].R.File = O.Files[I];
    Units[I].R.Target = O.Target;
  }
  // The passes over every file, then which fixes are applied (in file order:
  // a project file's fix belongs to the first file that makes it), then each
  // file's patch, nvcc and the write, its result passed on in file order.
  std::mutex ErrorLock;
  Error Usage = Error::success();
  inParallel(
      Units.size(), O.Jobs,
      [&](size_t I) {
        if (Error E = analyze(Units[I])) {
          std::lock_guard<std::mutex> L(ErrorLock);
          Usage = joinErrors(std::move(Usage), std::move(E));
        }
      },
      [](size_t) {});
  if (Usage) {
    for (Unit &U : Units) // nvcc's early runs refer to their unit
      if (U.Early.valid())
        U.Early.wait();
    return std::move(Usage);
  }
  assignFixes(Units, Out);
  verifyProjectFixes(Units, Out);
  // -i: the project files that receive fixes are known now. One that
  // cannot be rewritten stops the run before anything is written (the
  // inputs are written as each is finished), so that no file is left
  // patched against a header that is not.
  // -o DIR: so are the headers the units include, which writeTree copies
  // or patches into the tree.
  if (O.Output.K == OutputChoice::Kind::InPlace || O.Output.K == OutputChoice::Kind::Tree) {
    Error Refused = Error::success();
    if (O.Output.K == OutputChoice::Kind::Tree) {
      std::set<std::string> Sources;
      for (const Unit &U : Units)
        for (const std::string &D : U.R.Dependencies)
          Sources.insert(absolutePath(D));
      for (const ProjectFileResult &P : Out.ProjectFiles)
        Sources.insert(absolutePath(P.File));
      Refused = checkTree(Sources);
    }
    for (const ProjectFileResult &P : Out.ProjectFiles) {
      if (!P.Rejected.empty() || O.Output.K != OutputChoice::Kind::InPlace)
        continue;
      std::string From;
      for (const std::string &F : P.From)
        From += (From.empty() ? "'" : ", '") + F + "'";
      if (Error E = checkRewrite(P.File, O.Force,
                                 "it holds fixes of " + From + "; nothing was written"))
        Refused = joinErrors(std::move(Refused), std::move(E));
    }
    if (Refused) {
      for (Unit &U : Units) // nvcc's early runs refer to their unit
        if (U.Early.valid())
          U.Early.wait();
      return std::move(Refused);
    }
  }
  raw_ostream *DiagOS = O.DiagOS ? O.DiagOS : O.ParseDiagOS;
  inParallel(
      Units.size(), O.Jobs,
      [&](size_t I) {
        if (Units[I].Analyzed)
          finish(Units[I], Out);
      },
      [&](size_t I) {
        if (DiagOS) {
          *DiagOS << Units[I].R.DiagText;
          DiagOS->flush();
        }
        if (OnFile && O.Output.K != OutputChoice::Kind::Tree)
          OnFile(Units[I].R);
      });
  Out.Writing = O.Output.writes();
  if (O.Output.K == OutputChoice::Kind::Tree)
    writeTree(Units, Out);
  writeProjectFiles(Out);
  for (const ProjectFileResult &P : Out.ProjectFiles)
    if (!P.WriteError.empty())
      for (Unit &U : Units)
        if (is_contained(U.R.ProjectFixFiles, P.File))
          error(U.R, P.WriteError, /*AfterSummary=*/true);
  for (Unit &U : Units) {
    if (OnFile && O.Output.K == OutputChoice::Kind::Tree)
      OnFile(U.R); // after the tree is written: its errors are the file's
    Out.Files.push_back(std::move(U.R));
  }
  return Out;
}

} // namespace forge::port
