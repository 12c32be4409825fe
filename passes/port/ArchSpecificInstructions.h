//===- ArchSpecificInstructions.h - arch-specific-instructions -*- C++ -*-===//
///
/// \file
/// Some PTX instructions assemble only on some targets: wgmma only for
/// sm_90a, tcgen05 only for the arch- and family-specific targets of family
/// 10x, setmaxnreg only for arch- or family-specific targets (sm_90a and
/// later), TMA (cp.async.bulk) and thread-block clusters only for sm_90 and
/// later, cp.async only for sm_80 and later. The device side is parsed for
/// the target, so code guarded out for it is not in the AST: every inline
/// asm statement, __cluster_dims__ kernel or this_cluster() call that is
/// left, and that the target lacks the feature for, is an error. There is no
/// fix-it: the remedy (a guard or another target) is the author's choice.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_ARCHSPECIFICINSTRUCTIONS_H
#define FORGE_PASSES_PORT_ARCHSPECIFICINSTRUCTIONS_H

#include "../PortPass.h"

namespace forge::passes {

class ArchSpecificInstructions : public PortPass {
public:
  llvm::StringRef name() const override { return "arch-specific-instructions"; }
  bool wantsSide(frontend::Side S) const override { return S == frontend::Side::Device; }
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;
  void finish(PassContext &C) override;
};

} // namespace forge::passes

#endif
