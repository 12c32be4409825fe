//===- HardwareConstants.h - hardware-constants ----------------*- C++ -*-===//
///
/// \file
/// Grid sizes built from a literal SM count (108 on A100, 132 on H100/H200,
/// 148 on B200), and literal L2 or shared-memory sizes of one GPU, are wrong
/// on the next one. The pass flags them and says which device attribute to
/// query. There is no fix-it: the query needs a device index and a
/// statement before the use.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_HARDWARECONSTANTS_H
#define FORGE_PASSES_PORT_HARDWARECONSTANTS_H

#include "../PortPass.h"
#include "llvm/ADT/DenseSet.h"

namespace forge::passes {

class HardwareConstants : public PortPass {
public:
  llvm::StringRef name() const override { return "hardware-constants"; }
  bool wantsSide(frontend::Side S) const override { return S == frontend::Side::Host; }
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;

private:
  void checkGrid(const clang::Expr *Grid, PassContext &C, int Depth);
  llvm::DenseSet<unsigned> Reported;
};

} // namespace forge::passes

#endif
