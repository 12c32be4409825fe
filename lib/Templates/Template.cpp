//===- Templates/Template.cpp - The templates' vocabulary and dispatch ----===//
#include "forge/Templates/Template.h"
#include "forge/Support/Error.h"
#include "forge/Templates/Scan.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace forge::templates {

const ScalarInfo &scalarInfo(Scalar S) {
  static const ScalarInfo Table[] = {
      {"__half", "f16", 2, true, true},          {"__nv_bfloat16", "bf16", 2, true, true},
      {"float", "f32", 4, true, true},           {"double", "f64", 8, true, true},
      {"signed char", "i8", 1, false, true},     {"unsigned char", "u8", 1, false, false},
      {"short", "i16", 2, false, true},          {"unsigned short", "u16", 2, false, false},
      {"int", "i32", 4, false, true},            {"unsigned int", "u32", 4, false, false},
      {"long long", "i64", 8, false, true},      {"unsigned long long", "u64", 8, false, false},
  };
  return Table[static_cast<int>(S)];
}

std::optional<Scalar> parseScalar(StringRef Name) {
  Name = Name.trim();
  for (int I = 0; I <= static_cast<int>(Scalar::U64); ++I) {
    const ScalarInfo &Info = scalarInfo(static_cast<Scalar>(I));
    if (Name == Info.Dtype || Name == Info.Cuda)
      return static_cast<Scalar>(I);
  }
  return StringSwitch<std::optional<Scalar>>(Name)
      .Cases("half", "__nv_half", Scalar::F16)
      .Case("unsigned", Scalar::U32)
      .Cases("int32_t", "std::int32_t", Scalar::I32)
      .Cases("uint32_t", "std::uint32_t", Scalar::U32)
      .Cases("int64_t", "std::int64_t", "long long int", Scalar::I64)
      .Cases("uint64_t", "std::uint64_t", "unsigned long long int", Scalar::U64)
      .Cases("int8_t", "char", Scalar::I8)
      .Case("uint8_t", Scalar::U8)
      .Case("int16_t", Scalar::I16)
      .Case("uint16_t", Scalar::U16)
      .Default(std::nullopt);
}

static const std::pair<StringRef, OpKind> OpNames[] = {
    {"map", OpKind::Map},
    {"reduce", OpKind::Reduce},
    {"scan", OpKind::Scan},
    {"sort", OpKind::Sort},
    {"gemm", OpKind::Gemm},
    {"stencil", OpKind::Stencil},
    {"transpose", OpKind::Transpose},
    {"gather", OpKind::Gather},
    {"scatter", OpKind::Scatter},
    {"histogram", OpKind::Histogram},
    {"row-softmax", OpKind::RowSoftmax},
};

StringRef opKindName(OpKind K) {
  for (const auto &[Name, Kind] : OpNames)
    if (Kind == K)
      return Name;
  return "?";
}

std::optional<OpKind> parseOpKind(StringRef Name) {
  for (const auto &[N, Kind] : OpNames)
    if (N == Name)
      return Kind;
  return std::nullopt;
}

std::string describe(const Request &R) {
  std::string Extents = join(map_range(R.Shape, [](int64_t E) { return std::to_string(E); }), " x ");
  StringRef T = scalarInfo(R.Type).Dtype;
  switch (R.Kind) {
  case OpKind::Map:
    return formatv("map '{0}' over {1} {2} ({3} input{4})", R.Operator, Extents, T, R.Inputs,
                   R.Inputs == 1 ? "" : "s");
  case OpKind::Reduce:
    return formatv("reduce ({0}) over {1} {2}", R.Operator, Extents, T);
  case OpKind::Scan:
    return formatv("{0} scan ({1}) of {2} {3}", R.Inclusive ? "inclusive" : "exclusive",
                   R.Operator, Extents, T);
  case OpKind::Sort:
    return formatv("{0}sort {1} {2} keys{3}{4}", R.Algorithm.empty() ? "" : R.Algorithm + " ",
                   Extents, T,
                   R.ValueType ? " with " + scalarInfo(*R.ValueType).Dtype.str() + " values" : "",
                   R.Descending ? ", descending" : "");
  case OpKind::Gemm: {
    std::string Dims = R.Shape.size() == 3 ? formatv("M={0} N={1} K={2}", R.Shape[0], R.Shape[1],
                                                     R.Shape[2])
                                                 .str()
                                           : Extents;
    return formatv("{0}GEMM {1} {2}{3}{4}",
                   R.Batch > 1 ? "batched (" + std::to_string(R.Batch) + ") " : "", T, Dims,
                   R.TransA ? ", A transposed" : "", R.TransB ? ", B transposed" : "");
  }
  case OpKind::Stencil: {
    std::string F = join(map_range(R.Filter, [](int E) { return std::to_string(E); }), "x");
    return formatv("{0}D {1}{2} stencil over {3} {4}, {5} borders", R.Shape.size(),
                   R.Separable ? "separable " : "", F, Extents, T, R.Border);
  }
  case OpKind::Transpose:
    return formatv("transpose of a {0} {1} matrix", Extents, T);
  case OpKind::Gather:
    return formatv("gather of {0} {1}", Extents, T);
  case OpKind::Scatter:
    return formatv("scatter of {0} {1}", Extents, T);
  case OpKind::Histogram:
    return formatv("histogram of {0} {1} samples into {2} bins", Extents, T, R.Bins);
  case OpKind::RowSoftmax:
    return formatv("row softmax of a {0} {1} matrix", Extents, T);
  }
  return "?";
}

ArrayRef<TemplateInfo> templateCatalog() {
  static const TemplateInfo Catalog[] = {
      {"scan", OpKind::Scan,
       "single-pass prefix scan with a decoupled look-back (+, max, min; 4-byte elements)",
       instantiateScan, scanSamples},
  };
  return Catalog;
}

Expected<Instance> instantiate(const Request &R) {
  std::string Refusals;
  for (const TemplateInfo &T : templateCatalog()) {
    if (T.Kind != R.Kind || (!R.Algorithm.empty() && !T.Name.contains(R.Algorithm)))
      continue;
    Expected<Instance> I = T.Instantiate(R);
    if (I)
      return I;
    Refusals += (Refusals.empty() ? "" : "; ") + toString(I.takeError());
  }
  if (!Refusals.empty())
    return makeError("{0}", Refusals);
  std::vector<std::string> Have;
  for (const TemplateInfo &T : templateCatalog())
    if (!is_contained(Have, opKindName(T.Kind).str()))
      Have.push_back(opKindName(T.Kind).str());
  if (!R.Algorithm.empty())
    return makeError("no '{0}' template computes a {1} (templates for: {2})", R.Algorithm,
                     opKindName(R.Kind), join(Have, ", "));
  return makeError("no template computes a {0} yet (templates for: {1})", opKindName(R.Kind),
                   join(Have, ", "));
}

} // namespace forge::templates
