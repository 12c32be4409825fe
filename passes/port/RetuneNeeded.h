//===- RetuneNeeded.h - retune-needed --------------------------*- C++ -*-===//
///
/// \file
/// Launch bounds, block sizes and shared-memory amounts chosen for the
/// source arch (--from) that cut occupancy or exceed limits on the target
/// (DESIGN.md porting rule 7). Without a GPU of the target this is a
/// prediction from the Arch database, and the messages say so; registers
/// are not known before nvcc runs, so they are left to the resource table
/// that `port` prints after validation.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_RETUNENEEDED_H
#define FORGE_PASSES_PORT_RETUNENEEDED_H

#include "../PortPass.h"
#include "forge/Frontend/KernelFacts.h"
#include <memory>

namespace forge::passes {

class RetuneNeeded : public PortPass {
public:
  llvm::StringRef name() const override { return "retune-needed"; }
  bool wantsSide(frontend::Side S) const override { return S == frontend::Side::Host; }
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;
  void onStartOfTranslationUnit() override { Values.reset(); }
  void onEndOfTranslationUnit() override { Values.reset(); }

private:
  /// The host values of this parse, kept across its launches (one
  /// mutation analysis per host function, not one per launch).
  std::unique_ptr<frontend::HostValues> Values;
};

} // namespace forge::passes

#endif
