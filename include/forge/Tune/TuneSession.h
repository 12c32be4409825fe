//===- Tune/TuneSession.h - `forge-port tune` without the CLI --*- C++ -*-===//
///
/// \file
/// The tune driver in two steps, so that a caller can show the sweep's
/// summary before anything is written:
///
///  1. tune(): the sweep (Tuner.h), with source-only tunables (an unroll
///     count, a macro in the kernel body) compiled from a copy of the file
///     per configuration;
///  2. writeBack(): the best values written into the source (in place for
///     one target, a compute-capability dispatch for several), checked to
///     launch what the spec launches for those values, compiled for every
///     target, checked on the GPU against the original (which gives the
///     speed-up), and only then written where the options say.
///
/// run() does both. Rendering is in Report/TuneReport.h.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TUNE_TUNESESSION_H
#define FORGE_TUNE_TUNESESSION_H

#include "forge/Frontend/KernelIndex.h"
#include "forge/Frontend/Toolchain.h"
#include "forge/Support/Output.h"
#include "forge/Tune/Tuner.h"
#include "forge/Tune/WriteBack.h"
#include <future>
#include <mutex>

namespace forge::tune {

/// "40" (configurations), "90s", "5m" (seconds) as a Budget; empty: none.
/// Anything else is a usage error.
llvm::Expected<Budget> parseBudget(llvm::StringRef Text);

struct TuneSessionOptions {
  /// The sweep: File is Sweep.Source; Sweep.Spec, Targets, GPU, strategy,
  /// budget, seed, database, replay, batches, job options and interrupt
  /// flag as Tuner.h says. Sweep.JobRoot empty: a temporary directory.
  /// Sweep.Driver, Toolkit and NvccFlags are filled in from CudaPath and
  /// ExtraArgs when unset.
  TuneOptions Sweep;
  OutputChoice Output;
  /// The user's Clang arguments (for the index the write-back edits, and
  /// translated for nvcc).
  std::vector<std::string> ExtraArgs;
  std::string CudaPath;
  const frontend::Toolchain *Toolchain = nullptr; ///< required
  /// Things worth telling the user as the run goes: what the run does
  /// ("UNROLL changes the source, not the launch: ..."), and, with Caveat
  /// set, a limit of what was checked.
  std::function<void(llvm::StringRef Text, bool Caveat)> OnNote;
  /// `--launch FILE:LINE`: write only that launch of the kernel (line 0:
  /// every launch that holds the spec's defaults).
  std::string LaunchFile;
  unsigned LaunchLine = 0;
  /// A cluster (`--executor slurm`, docs/cluster.md): a GPU for each of
  /// Sweep.Targets, reached through its own executor. Each target is swept
  /// on its GPU, all of them at once, and the tuned source is checked on
  /// each; the local GPU is not used. Empty: the local GPU (Sweep.GpuTarget).
  struct ClusterGpu {
    const arch::TargetInfo *Target = nullptr;
    std::string GpuName;
    measure::Executor *Exec = nullptr;
  };
  std::vector<ClusterGpu> Cluster;
  /// `--compile-partition`: the compiles that miss the cache run there (not
  /// owned; null: here). Its nodes must see the job directories, so
  /// ScratchParent then names a shared directory for the temporary one.
  build::CompileRunner *CompileRunner = nullptr;
  std::string ScratchParent;
};

/// Where the spec puts each tunable (template arguments, grid / block
/// dimensions, shared memory written as exactly its name) and its
/// defaults, for bindTunables().
BindOptions bindOptionsFor(const measure::LaunchSpec &Spec);

/// The tuned source, as written (or printed) and as a unified diff.
struct TunedSource {
  std::string Contents;
  std::string Diff;
  std::string Path; ///< a copy in the job directory
  /// Project headers the write-back changes (a chain of constants that
  /// ends there): path and new contents; -i writes them in place too.
  std::vector<std::pair<std::string, std::string>> Headers;
};

class TuneSession {
public:
  explicit TuneSession(TuneSessionOptions O);
  ~TuneSession();

  /// Checks the options, finds nvcc, makes the job root and the source
  /// copies of source-only tunables; tune() and writeBack() call it when
  /// the caller has not.
  llvm::Error prepare();
  /// The sweep. An interrupted run's result has Interrupted set: the
  /// database keeps what was measured, and nothing should be written back.
  llvm::Expected<TuneResult> tune();
  /// The best values of R written back, checked and written out; fills
  /// R's measured targets' speed-up and noise. Fails, writing nothing, when
  /// the launch does not derive its geometry from the tuned values, the
  /// tuned source does not compile for a target, or it fails its check
  /// against the original on the GPU.
  llvm::Expected<TunedSource> writeBack(TuneResult &R);
  /// Both; an interrupted sweep is returned without a write-back.
  llvm::Expected<std::pair<TuneResult, std::optional<TunedSource>>> run();

private:
  llvm::Expected<frontend::FileIndex> index(llvm::StringRef Path,
                                            const arch::TargetInfo &Target,
                                            llvm::ArrayRef<std::string> Args) const;
  /// Sweep's options for one cluster GPU: its target, executor and job
  /// root.
  TuneOptions sweepOn(const TuneSessionOptions::ClusterGpu &G) const;
  llvm::Expected<TuneResult> tuneOnCluster();
  /// The final check's record in the database: Prior, when this tuned
  /// text already passed it; Record, the entry to write once it passes now.
  struct CheckPlan {
    DbKey Key;
    std::optional<DbCheck> Prior;
    std::optional<DbCheck> Record;
  };
  llvm::Expected<CheckPlan> recordedCheck(const TuneResult &R, llvm::StringRef Tuned) const;
  llvm::Error usePriorCheck(TuneResult &R, const DbCheck &Prior) const;
  /// The write-back cache (CompileCache::defaultDirectory()/writeback):
  /// an earlier write-back's text, diff and notes under writeBackKey.
  llvm::Expected<std::string> writeBackKey(const TuneResult &R) const;
  std::optional<TunedSource> cachedWriteBack(llvm::StringRef Key,
                                             std::vector<std::string> &Notes) const;
  void storeWriteBack(llvm::StringRef Key, const TunedSource &W,
                      llvm::ArrayRef<std::string> Notes) const;
  llvm::Error recordCheck(const DbKey &Key, DbCheck C, TuneResult &R) const;
  std::string checkIdentity(const TuneResult &R, llvm::StringRef Tuned) const;
  /// The target measured on this machine's GPU, if one was.
  TargetResult *measuredHere(TuneResult &R) const;
  /// Notes (launch dimensions it could not check) go to Notes: it runs on
  /// a thread of its own, beside compileAndVerify.
  llvm::Error checkLaunchGeometry(const TuneResult &R, llvm::StringRef TunedPath,
                                  const std::vector<frontend::LaunchSiteInfo> &Skipped,
                                  std::vector<std::string> &Notes) const;
  bool gpuCheckCompiles(const TuneResult &R, const arch::TargetInfo *T) const;
  /// The tuned source compiled for the targets the GPU check does not build
  /// it for, then checked on the GPU (verifyTuned).
  llvm::Error compileAndVerify(TuneResult &R, llvm::StringRef TunedPath) const;

  TuneSessionOptions O;
  std::unique_ptr<build::Nvcc> Tools;
  ScratchDir Scratch;
  bool Prepared = false;
  /// The source's index, parsed beside the sweep (TuneOptions::OnMeasureStart).
  std::once_flag IndexStarted;
  std::future<llvm::Expected<frontend::FileIndex>> PendingIndex;
  /// Why the values cannot be written back, found before the sweep
  /// measures anything when the output writes (-o, -i, --diff).
  std::optional<std::string> BindFailure;
  std::once_flag BindNoted;
};

} // namespace forge::tune

#endif
