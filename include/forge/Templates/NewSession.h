//===- Templates/NewSession.h - The `forge-port new` driver ----*- C++ -*-===//
///
/// \file
/// From a description ("sum of 64M floats") or a request file to a kernel
/// file and its launch spec (docs/new.md): parse the description offline
/// (Description.h), instantiate the template that computes it
/// (Template.h), and write both files atomically, never over an existing
/// file unless asked. Tuning and optimising the result are the tune and
/// optimize drivers' work: the tool runs them on the files written here.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_NEWSESSION_H
#define FORGE_TEMPLATES_NEWSESSION_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::templates {

struct NewSessionOptions {
  /// The description, or empty when RequestPath gives the request.
  std::string Description;
  /// A request as JSON (requestToJson's format) instead of a description.
  std::string RequestPath;
  /// The kernel's name (a C identifier); empty: the template's own.
  std::string Name;
  /// The SMs of the target's reference GPU (the spec's default grid).
  int SMs = 132;
  /// Where the kernel and its spec go; SpecOut empty: OutPath with .json.
  /// Both empty: nothing is written (a dry run).
  std::string OutPath, SpecOut;
  /// Overwrite existing files.
  bool Force = false;
};

struct NewResult {
  Request Req;
  /// What the description parser chose where the text did not say.
  std::vector<std::string> ParseNotes;
  Instance Inst;
  std::string OutPath, SpecOut; ///< what was written (empty on a dry run)
};

/// Parses, instantiates and writes. Errors: a description that is not
/// understood (with what was and examples), a request no template computes,
/// an existing output without Force, a failed write (nothing half-written).
llvm::Expected<NewResult> runNew(const NewSessionOptions &O);

/// OutPath with .json: the spec's default path.
std::string specPathFor(llvm::StringRef OutPath);

/// An error ("'x.cu' exists; pass --force to overwrite it") when Path
/// exists and Force is not set.
llvm::Error refuseExisting(llvm::StringRef Path, bool Force);

/// Every template's samples, each as Dir/<name>.cu, <name>.json (its spec)
/// and <name>.request.json: for checking the templates on a GPU
/// (test/gpu/templates/check.py) or with another toolkit. Dir is created;
/// existing files are overwritten only with Force. Returns the names.
llvm::Expected<std::vector<std::string>> writeAllSamples(llvm::StringRef Dir, int SMs,
                                                         bool Force);

/// After `forge-port tune` on a file `new` wrote: the tune report's
/// speed-up over the original when it is below 1 beyond its noise (the
/// written values measured slower than the template's defaults); none
/// otherwise.
llvm::Expected<std::optional<double>> slowerThanDefaults(llvm::StringRef TuneReport);

/// Sets the defaults of SpecPath's tunables to the values the tune report
/// chose (its first target's), so that the spec describes the launch the
/// tuned file holds; written atomically.
llvm::Error adoptTunedDefaults(llvm::StringRef TuneReport, llvm::StringRef SpecPath);

} // namespace forge::templates

#endif
