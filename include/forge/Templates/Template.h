//===- Templates/Template.h - What a kernel template is asked for and gives -*- C++ -*-===//
///
/// \file
/// The common vocabulary of lib/Templates (docs/templates.md):
///
/// - a Request names an operation (a reduction, a sort, a GEMM, ...), its
///   element type, its extents and its parameters. `forge-port new` gets one
///   from a description ("sum of 64M floats", Description.h); the optimiser
///   gets one from the analysis model of a kernel it recognises.
/// - instantiate() picks the template that computes it and returns an
///   Instance: one self-contained, commented .cu text (the kernel, and a host
///   wrapper that launches it) and the launch spec of that kernel
///   (docs/spec-format.md), with the template's tunables and constraints.
///
/// Every template does its whole operation in ONE launch of one kernel
/// (phases that need each other's results are chained by tickets, as in the
/// scan), so that the spec times the operation and `measure`, `tune` and
/// `optimize` treat it like any kernel. Templates call no cuBLAS, CUB or
/// Thrust: the suite compares against those.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_TEMPLATE_H
#define FORGE_TEMPLATES_TEMPLATE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "forge/Support/Json.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace forge::templates {

/// The element types templates are instantiated for (the spec's dtypes).
enum class Scalar { F16, BF16, F32, F64, I8, U8, I16, U16, I32, U32, I64, U64 };

struct ScalarInfo {
  llvm::StringRef Cuda;  ///< "float", "__half", "unsigned int", ...
  llvm::StringRef Dtype; ///< the spec's name: "f32", "f16", "u32", ...
  unsigned Bytes;
  bool Floating;
  bool Signed;
};
const ScalarInfo &scalarInfo(Scalar S);
/// The spec dtype ("f32") or the CUDA spelling ("float", "unsigned int").
std::optional<Scalar> parseScalar(llvm::StringRef Name);

/// The operations templates compute.
enum class OpKind {
  Map,        ///< out[i] = f(in0[i], in1[i], ...), elementwise
  Reduce,     ///< one value (or one (value, index) pair) from n
  Scan,       ///< prefix scan, inclusive or exclusive
  Sort,       ///< keys, or keys with values
  Gemm,       ///< C = alpha * op(A) * op(B) + beta * C, optionally batched
  Stencil,    ///< 1D/2D/3D stencil or convolution with a fixed filter
  Transpose,  ///< out[c][r] = in[r][c]
  Gather,     ///< out[i] = in[idx[i]]
  Scatter,    ///< out[idx[i]] = in[i]
  Histogram,  ///< bins[bin(in[i])] += 1
  RowSoftmax, ///< softmax of every row of a rows x cols matrix
};
llvm::StringRef opKindName(OpKind K); ///< "map", "reduce", ..., "row-softmax"
std::optional<OpKind> parseOpKind(llvm::StringRef Name);

/// What to compute. Fields that do not apply to the kind are left at their
/// defaults; checkRequest() says which combinations a template refuses.
struct Request {
  OpKind Kind = OpKind::Map;
  /// The element type (the keys' for a sort; A, B and C's for a GEMM; the
  /// samples' for a histogram).
  Scalar Type = Scalar::F32;
  /// Extents, outermost first:
  /// - map, reduce, scan, sort, gather, scatter, histogram: {n};
  /// - transpose and row softmax: {rows, cols};
  /// - stencil: {n}, {height, width} or {depth, height, width};
  /// - GEMM: {M, N, K} (C is M x N, A is M x K, B is K x N).
  std::vector<int64_t> Shape;
  /// GEMM: independent products, each strided by its matrix's size.
  int64_t Batch = 1;
  /// Reduce and scan: "+", "*", "max", "min" (and "argmax", "argmin" for a
  /// reduction: the value and its first index). Map: a C expression over
  /// the inputs a, b, c, d ("a + b", "2.5f * a + b", "sqrtf(a)").
  std::string Operator = "+";
  /// Map: how many inputs the expression reads (1..4).
  int Inputs = 1;
  bool Inclusive = true;   ///< scan
  bool Descending = false; ///< sort
  /// Sort: the values' type when keys carry values (key-value pairs).
  std::optional<Scalar> ValueType;
  /// Sort: "radix", "merge", or empty for the template's choice.
  std::string Algorithm;
  /// Stencil: the filter's extent per axis, outermost first ({5, 5}); a 1D
  /// stencil of radius r is {2r + 1}. Separable: a row then a column pass.
  std::vector<int> Filter;
  bool Separable = false;
  /// Stencil: how points outside the input read: "clamp" (the nearest
  /// edge) or "zero".
  std::string Border = "clamp";
  int Bins = 256;            ///< histogram: bins over [0, Bins) of integer samples
  bool TransA = false, TransB = false; ///< GEMM: op(A) = A^T, op(B) = B^T
  /// Lower precision allowed (tf32 or f16 tensor cores for an f32 GEMM).
  bool AllowLowerPrecision = false;
  /// The kernel's name; the host wrapper is forge_<Name>. Empty: the
  /// template's own ("scan", "reduce", ...).
  std::string Name;
  /// The SMs of the GPU the spec's defaults are for (a grid of resident
  /// waves is a multiple of it); the host wrapper asks the device instead.
  int SMs = 132;
  /// The text this came from, for notes and the report.
  std::string Description;
};

/// One line: "reduce (max) over 67108864 f32".
std::string describe(const Request &R);

/// The request as JSON (`forge-port new --dry-run --format=json`,
/// `--request FILE`): {"kind": "reduce", "type": "f32", "shape": [...],
/// ...}, every field written.
Json requestToJson(const Request &R);
/// Reads what requestToJson writes; fields may be left out (they keep the
/// defaults), unknown fields and wrong types are errors naming the field
/// ("r.json: $.shape[1]: expected an integer").
llvm::Expected<Request> requestFromJson(const Json &J, llvm::StringRef Origin);

/// An instantiated template.
struct Instance {
  std::string Template; ///< "reduction", "radix-sort", ...
  std::string Kernel;   ///< the kernel the spec launches
  std::string Wrapper;  ///< the host function in Source that launches it
  /// The whole .cu text: a comment saying what it computes and how,
  /// the kernel, and the host wrapper. It includes what it needs.
  std::string Source;
  /// The launch spec of Kernel (docs/spec-format.md) at the request's sizes.
  Json Spec;
  /// The choices made and what limits them, one sentence each.
  std::vector<std::string> Notes;
};

/// One template of the library.
struct TemplateInfo {
  llvm::StringRef Name; ///< "reduction", "radix-sort", ...
  OpKind Kind;          ///< what it computes
  llvm::StringRef Summary; ///< one line for messages and docs
  /// Instantiates it; the error says what it does not support.
  llvm::Expected<Instance> (*Instantiate)(const Request &R);
  /// Requests it must support, each with a distinct Name: several element
  /// types, operators and odd sizes (the compile test and the GPU check
  /// instantiate every one).
  std::vector<Request> (*Samples)();
};

/// Every template, in the order instantiate() tries them.
llvm::ArrayRef<TemplateInfo> templateCatalog();

/// The template that computes R, instantiated: the first of the catalog
/// for R.Kind (the one named by R.Algorithm, when set) that accepts R. The
/// error says what is not supported ("the radix sort takes 4-byte keys,
/// not f64"), or which operations have templates.
llvm::Expected<Instance> instantiate(const Request &R);

} // namespace forge::templates

#endif
