//===- Port/PortPass.h - A porting pass ------------------------*- C++ -*-===//
///
/// \file
/// One porting rule of DESIGN.md is one PortPass: it registers AST matchers
/// (and, if it needs them, preprocessor callbacks), and reports findings
/// through a PortDiagnostics, attaching fix-its only when the fix is safe.
/// A pass never writes a file; its fix-its become a PatchSet.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PORT_PORTPASS_H
#define FORGE_PORT_PORTPASS_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Frontend/CudaInvocation.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
class Preprocessor;
} // namespace clang

namespace forge::port {

class PortDiagnostics;

/// An error Clang reported while parsing, kept so that passes can recognise
/// code that no longer compiles with CUDA 13 (a removed field, say).
struct ParseError {
  unsigned ID;
  clang::SourceLocation Loc;
  /// As Clang printed it; C's wording of an error that C++ words otherwise
  /// (a call to an undeclared function, too few arguments) in C++'s
  /// (PortRunner.cpp), so that a pass reads one wording.
  std::string Message;
};

/// What a pass sees of the run.
struct PassContext {
  const arch::TargetInfo &Target;
  const arch::TargetInfo &Source;
  frontend::Side S;
  clang::ASTContext &Ctx;
  clang::CompilerInstance &CI;
  PortDiagnostics &Diag;
  const std::vector<ParseError> &ParseErrors;
};

/// Like a clang-tidy check, a pass is the callback of the matchers it
/// registers: `Finder.addMatcher(M, this)`.
class PortPass : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  ~PortPass() override;
  void setContext(PassContext *C) { Context = C; }
  void run(const clang::ast_matchers::MatchFinder::MatchResult &R) final { check(R, *Context); }
  /// The kebab-case name: class, test directory, docs page and diagnostic tag.
  virtual llvm::StringRef name() const = 0;
  /// Which sides of the parse the pass inspects (device, host or both).
  virtual bool wantsSide(frontend::Side S) const { return true; }
  /// Preprocessor callbacks, registered before parsing starts.
  virtual void registerPPCallbacks(clang::Preprocessor &PP, PassContext &C) {}
  virtual void registerMatchers(clang::ast_matchers::MatchFinder &Finder) {}
  virtual void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) {}
  /// After matching: passes that look at the whole file (parse errors, say).
  virtual void finish(PassContext &C) {}
  /// True for a Clang error (its message as printed) that this pass always
  /// reports itself, as its own finding with a fix or a reason: Clang's
  /// error is then neither printed nor counted (a removed CUDA API that Clang
  /// sees as an undeclared name, say), so it is not counted twice. C's
  /// wording comes as C++'s (ParseError::Message).
  virtual bool explainsParseError(llvm::StringRef Message) const { return false; }

private:
  PassContext *Context = nullptr;
};

/// A row of the pass table (passes/PassRegistry.cpp): the drivers are given
/// the rows a --checks list selects, so lib/Port needs no pass itself.
struct PassInfo {
  const char *Name;
  const char *Summary;
  std::unique_ptr<PortPass> (*Create)();
};

} // namespace forge::port

#endif
