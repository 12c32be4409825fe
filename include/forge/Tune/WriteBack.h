//===- Tune/WriteBack.h - Write tuned values back into the source -*- C++ -*-===//
///
/// \file
/// The last step of `forge-port tune`: the values a tuning run chose are
/// written back where the source spells them, as a patch::PatchSet (the
/// caller shows the diff or applies it; nothing here writes a file).
///
/// Three steps:
///
///  1. bindTunables() maps each tunable name of the spec to the places in
///     the source that hold its value (a TunableBinding with its WriteSites):
///
///       - a non-type template parameter of the kernel ("TILE"): the template
///         argument at every launch site of the kernel in the file, or the
///         parameter's default where a launch does not write the argument;
///       - an object-like macro `#define NAME <integer>`: its definition;
///       - a constexpr / const integer variable NAME (qualified or not):
///         its initializer literal;
///       - a macro or constant defined as another name (a chain: `constexpr
///         int B = BLOCK_SIZE;`): the literal at the chain's end, in the
///         file or a header it includes with quotes (see bindTunables with
///         BindOptions);
///       - the block size of the launch ("BLOCK", "BLOCK_SIZE", "THREADS",
///         any case): the literal block argument of each launch (plain or
///         dim3(N) / dim3(N, 1, 1)), or the macro / constant that argument
///         names. Literals in the grid argument equal to the block size or
///         one less (`(n + 255) / 256`) follow the block; a grid computed
///         in an earlier statement is not seen and not changed;
///       - `#pragma unroll N` ("UNROLL", or the index's "k.unroll@LINE");
///       - `__launch_bounds__(N)` ("LAUNCH_BOUNDS", "MAX_THREADS", or the
///         index's "k.launch_bounds").
///
///     The names that `forge-port list` reports ("k::TILE", "kBlock",
///     "k.block@9", "k.unroll@5", "k.launch_bounds") bind as well. A name
///     matching nothing is an error that names it and lists what the file
///     offers.
///
///  2. writeBackEdits(): one set of values (one target) written in place.
///
///  3. dispatchEdits(): several targets (--to sm_80,sm_90,sm_100). Every
///     launch statement of the kernel becomes a run-time dispatch on the
///     device's compute capability, highest target first, the lowest as
///     the `else`; each branch has that target's template arguments,
///     block literal and macro / constant values substituted. A static
///     helper `forge_tuned_cc()` (cached per device, include-guarded) is
///     inserted after the last top-level #include before the first
///     rewritten launch (or at the top of the file). A comment labels each
///     target's values as measured (on which device) or predicted. A macro
///     that only launch statements read is left as it was; a constant that
///     only they read takes the lowest target's value and the fallback
///     (`else`) branch keeps naming it, so it does not become unused.
///
///     Tunables that device code reads (an unroll pragma, launch bounds, a
///     macro or constant used in a kernel body) cannot be chosen at run
///     time by host code; they get per-arch values through
///     `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= ...` guards with the
///     same thresholds as the run-time dispatch. That is only safe when the
///     value does not also reach host code outside the rewritten launch
///     statements (the host compile sees the lowest target's value) and
///     does not appear in a kernel's signature; otherwise dispatchEdits
///     fails and the error names the tunable, the use and why.
///
/// Offsets in a binding refer to the contents the ContentsProvider returned
/// at bind time; bind and write against the same contents.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TUNE_WRITEBACK_H
#define FORGE_TUNE_WRITEBACK_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Patch/PatchSet.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forge::tune {

/// One place in a file that spells a tunable's value.
struct WriteSite {
  /// What is written there:
  ///   "template-arg"      a template argument at a launch site,
  ///   "template-default"  the default of the kernel's template parameter,
  ///   "launch-literal"    a literal block size at a launch site,
  ///   "grid-literal"      a literal in that launch's grid argument that
  ///                       repeats the block size (B or B - 1, as in
  ///                       `(n + 255) / 256`): written as value + Delta,
  ///   "macro"             the value of `#define Symbol <int>`,
  ///   "constexpr"         the initializer of a constant variable Symbol,
  ///   "unroll"            the count of `#pragma unroll`,
  ///   "launch_bounds"     the first argument of __launch_bounds__.
  std::string Kind;
  std::string File;      ///< as the index names it
  unsigned Offset = 0;   ///< byte offset of the value text in File
  unsigned Length = 0;   ///< length of the value text
  unsigned Line = 0, Column = 0;
  std::string Current;   ///< the text there now ("256", "16u", "kTile")
  /// Macro or variable name for "macro" / "constexpr" sites (unqualified,
  /// as uses spell it); empty otherwise.
  std::string Symbol;
  /// For sites at a launch: the index into FileIndex::LaunchSites.
  std::optional<size_t> Launch;
  /// Written as the tuned value plus Delta ("grid-literal" sites: 0 or -1).
  int64_t Delta = 0;
  /// "new-constant" sites (a constant or macro that other code uses too is
  /// left alone; the tuned launches get a constant of their own): the
  /// declaration inserted at Offset is Decl + the value + DeclEnd, and the
  /// uses at Renames (offset, length) in File become Symbol.
  std::string Decl, DeclEnd;
  std::vector<std::pair<unsigned, unsigned>> Renames;
  /// The file of Renames when it is not File (a constant of a header given
  /// a sibling while the launch, or the link of a chain that reads it, is
  /// in another file).
  std::string RenameFile;
  /// A grid literal that is the product of several tunables (1024 in
  /// `(n + 1023) / 1024` for BLOCK * ITEMS): the others, whose values
  /// multiply this binding's.
  std::vector<std::string> Times;
};

/// Where the value of one spec tunable lives in the source.
struct TunableBinding {
  std::string Name;   ///< the spec's tunable name
  /// template | macro | constexpr | launch | unroll | launch_bounds: the
  /// kind of the first site ("launch" when any site is a literal at a
  /// launch site).
  std::string Origin;
  std::string Kernel; ///< qualified name of the kernel tuned
  /// The template parameter, macro or variable the value belongs to
  /// (empty for literals at a launch, unroll counts and launch bounds).
  std::string Symbol;
  std::optional<int64_t> Current; ///< the value now, when all sites agree
  std::vector<WriteSite> Sites;   ///< never empty
};

/// What a launch spec says about where each tunable goes, and which launch
/// sites to write (see docs/tune.md, "Where the values are written").
struct BindOptions {
  /// Tunable name -> the kernel's template argument positions that the
  /// spec writes as exactly that name (template_args: ["BLOCK", "ITEMS"]).
  std::map<std::string, std::vector<unsigned>> TemplateArgs;
  /// Tunable name -> the grid / block dimensions (0 = x, 1 = y, 2 = z)
  /// that the spec writes as exactly that name (block: ["BX", "BY"]).
  std::map<std::string, std::vector<unsigned>> GridDims, BlockDims;
  /// Tunables that are the spec's whole shared-memory expression.
  std::vector<std::string> SharedMem;
  /// Grid dimension -> the tunables its spec expression reads
  /// (ceil_div(N, BLOCK * ITEMS): BLOCK, ITEMS); a grid literal equal to
  /// their product (or one less) follows them.
  std::map<unsigned, std::vector<std::string>> GridFactors;
  /// The spec's defaults: the values the launch sites it describes hold.
  std::map<std::string, int64_t> Defaults;
  /// `--launch FILE:LINE`: only the launch of the kernel at that line (the
  /// file as the index names it, or its file name; empty: any file).
  std::string LaunchFile;
  unsigned LaunchLine = 0;
  /// Directories of system and toolkit headers (-isystem, the CUDA
  /// toolkit's include/): a definition found in a header there is not
  /// written; the binding fails with a fix-it instead.
  std::vector<std::string> SystemDirs;
};

/// A launch of the kernel that the write-back leaves as it is.
struct SkippedLaunch {
  size_t Launch = 0; ///< index into FileIndex::LaunchSites
  std::string Why;
};

struct BindResult {
  std::vector<TunableBinding> Bindings;
  /// What the user should know: a shared constant given a launch of its
  /// own, a launch left alone and why.
  std::vector<std::string> Notes;
  std::vector<SkippedLaunch> Skipped;
  /// The headers the file includes with quotes (found beside the file that
  /// includes them, recursively): the project headers a site may be in.
  std::vector<std::string> ProjectHeaders;
};

/// bindTunables() with the spec's hints: a tunable that no template
/// parameter, macro or constant of the file is named after binds where the
/// spec puts it (a template argument, a grid / block dimension, the shared
/// memory), following the launch's argument back through `dim3`
/// constructors, constants, macros, enumerators and locals initialised
/// from a literal. A definition whose value is another name (`constexpr
/// int B = BLOCK_SIZE;`, `#define BLOCK BLOCK_SIZE`, `const int B =
/// CFG::kBlock;`, `enum { B = OTHER }`) is followed, through the file and
/// the headers it includes with quotes, to the definition holding the
/// literal, which is written (a note names a header that changes). A link
/// that other code reads too stays as it is: the launches get a constant of
/// their own beside it, and the link before it names that (a note says
/// so). A chain that ends in a header of Options.SystemDirs fails with a
/// fix-it that gives the last link in the user's files its value.
/// Launch sites whose values differ from the spec's
/// defaults are left alone (a note each); with LaunchLine set, only that
/// launch is written. A binding that is impossible fails with the edit
/// that would make it possible ("fix-it: replace ...").
llvm::Expected<BindResult>
bindTunables(const frontend::FileIndex &Index, llvm::StringRef Kernel,
             llvm::ArrayRef<std::string> Names, const BindOptions &Options,
             const patch::ContentsProvider &Contents = patch::diskContents());

/// Binds each name of \p Names for kernel \p Kernel (its qualified or plain
/// name). \p Contents gives file text (the index has only locations).
/// Fails when the kernel is unknown, when a name binds to nothing (the
/// message names every such name and lists what the file offers), or when
/// a site cannot be written (a launch written through a macro, a template
/// argument that is a parameter of the enclosing host template, ...).
llvm::Expected<std::vector<TunableBinding>>
bindTunables(const frontend::FileIndex &Index, llvm::StringRef Kernel,
             llvm::ArrayRef<std::string> Names,
             const patch::ContentsProvider &Contents = patch::diskContents());

/// The origin tag of the edits made here.
inline constexpr const char *WriteBackOrigin = "forge-port tune";

/// Single-target write-back: every site of every binding gets the value
/// \p Values holds for the binding's name (an integer literal keeps its
/// u/l suffix). Fails when a binding has no value, a value names no
/// binding, a site no longer holds the text it was bound to, or a block
/// size exceeds the kernel's literal __launch_bounds__ that is not tuned
/// alongside.
llvm::Expected<patch::PatchSet>
writeBackEdits(const frontend::FileIndex &Index,
               llvm::ArrayRef<TunableBinding> Bindings,
               const std::map<std::string, int64_t> &Values,
               const patch::ContentsProvider &Contents = patch::diskContents());

/// The values chosen for one target.
/// Writes a configuration's values of Names (tunables the harness cannot
/// set: an unroll count, a macro) into a copy of Text (the contents of
/// Index.File) under Dir, named after the file with the values appended,
/// and returns its path. Fails up front when a name binds to nothing.
using SourceVariantFn =
    std::function<llvm::Expected<std::string>(const std::map<std::string, int64_t> &)>;
llvm::Expected<SourceVariantFn> sourceVariants(frontend::FileIndex Index,
                                               llvm::StringRef Kernel,
                                               llvm::ArrayRef<std::string> Names,
                                               std::string Text, std::string Dir);

struct TargetValues {
  const arch::TargetInfo *Target = nullptr;
  std::map<std::string, int64_t> Values; ///< spec name -> value
  bool Measured = false;                 ///< false: predicted by the model
  std::string Device;                    ///< "NVIDIA H200" when measured
};

/// The label of a target's values in comments:
/// "sm_90 measured on NVIDIA H200 (BLOCK=256, TILE=16)".
std::string targetLabel(const TargetValues &T);

/// Multi-target write-back for \p Kernel (see the file comment). Targets
/// may come in any order; two with the same compute capability are an
/// error. With one target this is writeBackEdits. Fails, naming the
/// tunable or launch and the reason, when:
///   - a launch of the kernel is not a chevron launch statement of its own
///     (`k<<<...>>>(...);`), or is a device-side launch;
///   - a template argument is only written as a default (no launch writes
///     it), so it cannot differ per branch;
///   - a macro / constant is used in host code outside the launch
///     statements, in a kernel signature or in a host/device function, or
///     is defined in another file while device code uses it;
///   - a target lacks a value for a binding.
llvm::Expected<patch::PatchSet>
dispatchEdits(const frontend::FileIndex &Index, llvm::StringRef Kernel,
              llvm::ArrayRef<TunableBinding> Bindings,
              const std::vector<TargetValues> &PerTarget,
              const patch::ContentsProvider &Contents = patch::diskContents());

/// The name of the helper dispatchEdits inserts.
inline constexpr const char *DispatchHelperName = "forge_tuned_cc";

} // namespace forge::tune

#endif
