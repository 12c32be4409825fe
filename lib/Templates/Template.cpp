//===- Templates/Template.cpp - The templates' vocabulary and dispatch ----===//
#include "forge/Templates/Template.h"
#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "forge/Support/JsonReader.h"
#include "forge/Templates/Gemm.h"
#include "forge/Templates/Histogram.h"
#include "forge/Templates/Reduction.h"
#include "forge/Templates/RowSoftmax.h"
#include "forge/Templates/GatherScatter.h"
#include "forge/Templates/Map.h"
#include "forge/Templates/MergeSort.h"
#include "forge/Templates/RadixSort.h"
#include "forge/Templates/Scan.h"
#include "forge/Templates/Transpose.h"
#include "forge/Templates/Stencil.h"
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

Json requestToJson(const Request &R) {
  Json J = {{"kind", opKindName(R.Kind).str()},
            {"type", scalarInfo(R.Type).Dtype.str()},
            {"shape", R.Shape},
            {"batch", R.Batch},
            {"operator", R.Operator},
            {"inputs", R.Inputs},
            {"inclusive", R.Inclusive},
            {"descending", R.Descending},
            {"value_type", R.ValueType ? Json(scalarInfo(*R.ValueType).Dtype.str()) : Json()},
            {"algorithm", R.Algorithm},
            {"filter", R.Filter},
            {"separable", R.Separable},
            {"border", R.Border},
            {"bins", R.Bins},
            {"trans_a", R.TransA},
            {"trans_b", R.TransB},
            {"allow_lower_precision", R.AllowLowerPrecision},
            {"name", R.Name},
            {"sms", R.SMs},
            {"description", R.Description}};
  return J;
}

Expected<Request> requestFromJson(const Json &J, StringRef Origin) {
  JsonReader In(Origin.str());
  Request R;
  if (!In.expectObject(J, "$"))
    return In.takeError();
  static const char *Known[] = {"kind",   "type",       "shape",     "batch",     "operator",
                                "inputs", "inclusive",  "descending", "value_type", "algorithm",
                                "filter", "separable",  "border",    "bins",      "trans_a",
                                "trans_b", "allow_lower_precision", "name", "sms", "description"};
  for (const auto &[Key, V] : J.items())
    if (!is_contained(Known, StringRef(Key)))
      In.fail(JsonReader::member("$", Key), "unknown field");
  auto TypeField = [&](StringRef Key, Scalar &Out) {
    std::string T = In.string(J, "$", Key);
    if (T.empty())
      return;
    if (std::optional<Scalar> S = parseScalar(T))
      Out = *S;
    else
      In.fail(JsonReader::member("$", Key), "unknown element type '" + T + "'");
  };
  std::string Kind = In.string(J, "$", "kind", /*Required=*/true);
  if (std::optional<OpKind> K = parseOpKind(Kind))
    R.Kind = *K;
  else if (!Kind.empty())
    In.fail("$.kind", "unknown operation '" + Kind + "'");
  TypeField("type", R.Type);
  auto Ints = [&](StringRef Key, auto &Out) {
    const Json *A = In.array(J, "$", Key, /*Required=*/false);
    if (!A)
      return;
    Out.clear();
    for (size_t I = 0; I < A->size(); ++I) {
      if (!(*A)[I].is_number_integer()) {
        In.fail(JsonReader::element(JsonReader::member("$", Key), I), "expected an integer");
        return;
      }
      Out.push_back((*A)[I].get<int64_t>());
    }
  };
  Ints("shape", R.Shape);
  Ints("filter", R.Filter);
  R.Batch = In.integer(J, "$", "batch", false, R.Batch);
  R.Operator = In.string(J, "$", "operator", false, R.Operator);
  R.Inputs = (int)In.integer(J, "$", "inputs", false, R.Inputs);
  R.Inclusive = In.boolean(J, "$", "inclusive", false, R.Inclusive);
  R.Descending = In.boolean(J, "$", "descending", false, R.Descending);
  if (auto It = J.find("value_type"); It != J.end() && !It->is_null()) {
    Scalar V = Scalar::U32;
    TypeField("value_type", V);
    R.ValueType = V;
  }
  R.Algorithm = In.string(J, "$", "algorithm", false, R.Algorithm);
  R.Separable = In.boolean(J, "$", "separable", false, R.Separable);
  R.Border = In.string(J, "$", "border", false, R.Border);
  R.Bins = (int)In.integer(J, "$", "bins", false, R.Bins);
  R.TransA = In.boolean(J, "$", "trans_a", false, R.TransA);
  R.TransB = In.boolean(J, "$", "trans_b", false, R.TransB);
  R.AllowLowerPrecision =
      In.boolean(J, "$", "allow_lower_precision", false, R.AllowLowerPrecision);
  R.Name = In.string(J, "$", "name", false, R.Name);
  R.SMs = (int)In.integer(J, "$", "sms", false, R.SMs);
  R.Description = In.string(J, "$", "description", false, R.Description);
  if (!R.Name.empty() && !detail::isCIdentifier(R.Name))
    In.fail("$.name", "'" + R.Name + "' is not a C identifier");
  if (R.Border != "clamp" && R.Border != "zero")
    In.fail("$.border", "expected \"clamp\" or \"zero\", got \"" + R.Border + "\"");
  if (R.SMs < 1 || R.SMs > 4096)
    In.fail("$.sms", "expected 1..4096");
  if (R.Batch < 1)
    In.fail("$.batch", "expected a positive count");
  if (Error E = In.takeError())
    return std::move(E);
  return R;
}

ArrayRef<TemplateInfo> templateCatalog() {
  static const TemplateInfo Catalog[] = {
      {"scan", OpKind::Scan,
       "single-pass prefix scan with a decoupled look-back (+, max, min; 4-byte elements)",
       instantiateScan, scanSamples},
      {"gemm", OpKind::Gemm,
       "tiled GEMM, optionally batched and transposed (f32, f64 on the FMA units; f32 on the "
       "TF32 tensor cores where the request allows lower precision; f16, bf16 on the tensor "
       "cores, summed in f32)",
       instantiateGemm, gemmSamples},
      {"stencil", OpKind::Stencil,
       "1D/2D/3D stencil or convolution, shared-memory tiles, separable 2D in one pass (f32, f64)",
       instantiateStencil, stencilSamples},
      {"reduction", OpKind::Reduce,
       "single-pass deterministic reduction, the last block combines (+, *, max, min, argmax, "
       "argmin; f16 to u64)",
       instantiateReduction, reductionSamples},
      {"histogram", OpKind::Histogram,
       "shared-memory privatised histogram of integer samples, global atomics above 12288 bins",
       instantiateHistogram, histogramSamples},
      {"row-softmax", OpKind::RowSoftmax,
       "softmax of every row: a warp per row, a block per row, or two passes (f32, f16, bf16)",
       instantiateRowSoftmax, rowSoftmaxSamples},
      {"map", OpKind::Map,
       "elementwise map of a C expression over 1-4 inputs, 16-byte vectors when aligned",
       instantiateMap, mapSamples},
      {"gather", OpKind::Gather, "out[i] = in[idx[i]] with 32-bit indices, any element type",
       instantiateGather, gatherSamples},
      {"scatter", OpKind::Scatter,
       "out[idx[i]] = in[i] with distinct 32-bit indices, any element type", instantiateScatter,
       scatterSamples},
      {"transpose", OpKind::Transpose,
       "tiled transpose through padded shared memory (2-, 4- and 8-byte elements)",
       instantiateTranspose, transposeSamples},
      {"radix-sort", OpKind::Sort,
       "stable onesweep LSD radix sort, 8-bit digits, decoupled look-back (u32, i32, f32 keys; "
       "4-byte values)",
       instantiateRadixSort, radixSortSamples},
      {"merge-sort", OpKind::Sort,
       "stable merge sort: tiles sorted in the block, merge-path passes (u32, i32, f32 keys; "
       "4-byte values)",
       instantiateMergeSort, mergeSortSamples},
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
