//===- AtomicApply.cpp - Write a PatchSet to disk -------------------------===//

#include "forge/Patch/AtomicApply.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"

using namespace llvm;

namespace forge::patch {

namespace {
struct PendingWrite {
  std::string Path;
  std::string Original;
  std::string New;
  /// False for "-o": the target is not the input, so there is nothing of
  /// the user's to restore.
  bool InPlace = true;
};
} // namespace

Error applyToFiles(const PatchSet &Patches, const ApplyOptions &Opts,
                   std::vector<std::string> *Written) {
  ContentsProvider Contents = Opts.Contents ? Opts.Contents : diskContents();
  FileWriter Writer = Opts.Writer ? Opts.Writer : FileWriter(writeFileAtomically);
  std::vector<std::string> Files = Patches.files();

  // Phase 1: compute every new text; nothing is written if any step fails.
  std::vector<PendingWrite> Pending;
  if (!Opts.OutputPath.empty()) {
    if (Files.size() > 1)
      return makeError("cannot write edits to {0} files into one output '{1}'",
                       Files.size(), Opts.OutputPath);
    std::string Input = Opts.InputPath;
    if (Input.empty()) {
      if (Files.empty())
        return makeError("no input file to write to '{0}'", Opts.OutputPath);
      Input = Files.front();
    } else if (!Files.empty() &&
               PatchSet::normalizePath(Input) != Files.front()) {
      return makeError("the edits are for '{0}', not for the input '{1}'",
                       Files.front(), Input);
    }
    Expected<std::string> Old = Contents(Input);
    if (!Old)
      return Old.takeError();
    Expected<std::string> New = Patches.applyTo(Input, *Old);
    if (!New)
      return New.takeError();
    Pending.push_back({Opts.OutputPath, std::move(*Old), std::move(*New),
                       /*InPlace=*/false});
  } else {
    for (const std::string &File : Files) {
      Expected<std::string> Old = Contents(File);
      if (!Old)
        return Old.takeError();
      Expected<std::string> New = Patches.applyTo(File, *Old);
      if (!New)
        return New.takeError();
      if (*New == *Old)
        continue; // Leave the file (and its timestamp) alone.
      Pending.push_back({File, std::move(*Old), std::move(*New)});
    }
  }

  // Phase 2: write; on failure, put back what was already replaced.
  std::vector<const PendingWrite *> Done;
  for (const PendingWrite &W : Pending) {
    if (Error Err = Writer(W.Path, W.New)) {
      std::string Msg = toString(std::move(Err));
      std::string Unrestored;
      unsigned Restored = 0;
      for (const PendingWrite *Prev : Done) {
        if (!Prev->InPlace)
          continue;
        if (Error RErr = Writer(Prev->Path, Prev->Original))
          Unrestored += "; could not restore '" + Prev->Path +
                        "': " + toString(std::move(RErr));
        else
          ++Restored;
      }
      if (Done.empty())
        return makeError("{0}; no file was changed", Msg);
      return makeError("{0}; restored {1} of {2} file(s) already written{3}",
                       Msg, Restored, Done.size(), Unrestored);
    }
    Done.push_back(&W);
  }
  if (Written)
    for (const PendingWrite *W : Done)
      Written->push_back(W->Path);
  return Error::success();
}

} // namespace forge::patch
