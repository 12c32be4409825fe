//===- Analysis/Coefficients.h - Block-uniform coefficient reads -*- C++ -*-===//
///
/// \file
/// The coefficient reads of a kernel: loads through a pointer parameter
/// whose index is the same for every thread of a block (a broadcast) and
/// moves only with the variables of loops with compile-time bounds, so
/// that it takes a finite set of values known at compile time: the filter
/// of a convolution (`filt[(i + R) * K + (j + R)]` under loops over i and
/// j), the weights of a FIR filter, the taps of a separable pass. The index
/// is Origin (block-uniform: parameters, blockIdx, template parameters)
/// plus one of Offsets; a stencil rule may load those elements once per
/// thread or per block and read them from there.
///
/// A buffer qualifies only as a whole: every access to it is such a read,
/// and the kernel writes it nowhere. Declined says why a buffer read at a
/// broadcast index does not.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_COEFFICIENTS_H
#define FORGE_ANALYSIS_COEFFICIENTS_H

#include "forge/Analysis/IndexForm.h"
#include <cstdint>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class ValueDecl;
} // namespace clang

namespace forge::analysis {

class KernelModel;

struct CoefficientRead {
  std::string Buffer;
  /// The parameter; null after the AST is gone.
  const clang::ValueDecl *Base = nullptr;
  int ParamIndex = -1;
  std::string ElementType;
  uint64_t ElementBytes = 0;
  /// The reads (indices into KernelModel::Accesses).
  std::vector<unsigned> Accesses;
  /// The block-uniform part of every read's index (zero for a filter that
  /// starts at the buffer's start).
  IndexForm Origin;
  /// The distinct values the rest of the index takes, in increasing order.
  std::vector<int64_t> Offsets;
  /// The loops whose variables the indices take (KernelModel::Loops).
  std::vector<unsigned> Loops;

  int64_t lo() const { return Offsets.front(); }
  int64_t hi() const { return Offsets.back(); }
  /// The elements from the first to the last offset.
  int64_t span() const { return hi() - lo() + 1; }
};

struct CoefficientReads {
  std::vector<CoefficientRead> Buffers;
  /// Per buffer read at a broadcast index that does not qualify: why.
  std::vector<std::string> Declined;
  /// A write of the kernel that may run before a coefficient read in the
  /// same thread (before it in the source, or in a loop around both);
  /// empty when every write follows every coefficient read.
  std::string WriteBeforeRead;
};

/// The most offsets one buffer may take (the loops' iterations are
/// enumerated).
constexpr int64_t MaxCoefficientOffsets = 4096;

/// With the AST (Ctx), a store runs before a read when its whole
/// expression ends before the read (`v[i] = c[0] * u[i]` stores after
/// reading c[0]); without it, when it starts before the read.
CoefficientReads coefficientReads(const KernelModel &M, clang::ASTContext *Ctx = nullptr);

} // namespace forge::analysis

#endif
