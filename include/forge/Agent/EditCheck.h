//===- Agent/EditCheck.h - What an edit adds, on the AST ------*- C++ -*-===//
///
/// \file
/// The security check of the validation pipeline (docs/security.md): an
/// edit is untrusted code that is compiled and run on the user's machine,
/// so the parse of each version of the source is reduced to a multiset of
/// facts that matter (new file-scope declarations, attributes, static
/// initialisers, asm, preprocessor directives, host calls outside an
/// allowlist, addresses of host functions, host globals, code the parse
/// cannot see) and an edit may add none of them. Facts are taken from the
/// main file only, at expansion locations, so a macro's expansion counts
/// where it is used (token pasting `sys##tem` is a call to system).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_EDITCHECK_H
#define FORGE_AGENT_EDITCHECK_H

#include "forge/Frontend/CudaParser.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CompilerInstance;
} // namespace clang

namespace forge::agent {

/// One thing a version of the source has that an edit may not add.
struct EditFact {
  /// Compared as a multiset between the versions ("call 'system'"): a fact
  /// the original already had is not the edit's.
  std::string Key;
  /// What it is, for the reason ("calls 'system' in host code (not in the
  /// allowlist)").
  std::string What;
  unsigned Line = 0;
  /// A new file-scope declaration or macro: allowed with --scope=file. All
  /// other facts are rejected in every scope, for every proposer.
  bool WidenedScopeAllows = false;
};

/// Collects the facts of one parse: attach() before the parse starts (it
/// adds preprocessor callbacks), collect() on the AST. The facts are those
/// of the main file.
class EditFactCollector {
public:
  EditFactCollector();
  ~EditFactCollector();
  void attach(clang::CompilerInstance &CI);
  void collect(clang::ASTContext &Ctx, const frontend::PreprocessorFacts &PF);
  std::vector<EditFact> take() { return std::move(Facts); }

private:
  class Callbacks;
  std::vector<EditFact> Facts;
};

/// The facts After has that Before lacks, each as "line N: what"; empty
/// when the edit adds nothing the check rejects. WidenedScope is
/// --scope=file.
std::vector<std::string> checkEdit(const std::vector<EditFact> &Before,
                                   const std::vector<EditFact> &After, bool WidenedScope);

/// The host headers a whole kernel file may include besides the device
/// headers an edit may (checkNewFile): <cuda_runtime.h>, <cstddef>,
/// <cstdint>, <cstring>, <climits>, <cfloat>, <cmath>, what the template
/// library's files include. Their host functions stay behind the
/// allowlist of host calls.
bool allowedNewFileInclude(llvm::StringRef Name);

/// The facts of a whole file a model wrote (`forge-port new --llm`) that
/// the check rejects, each as "line N: what": checkEdit against an empty
/// file in the widened scope (the file's kernels, helpers, host wrapper and
/// macros are its own), except for the includes allowedNewFileInclude
/// names. Every other fact (host calls outside the allowlist, asm in host
/// code, attributes, static initialisers, pragmas, hidden code, host
/// globals) is rejected as in an edit.
std::vector<std::string> checkNewFile(const std::vector<EditFact> &Facts);

} // namespace forge::agent

#endif
