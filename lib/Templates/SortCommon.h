//===- Templates/SortCommon.h - What the radix and merge sorts share -*- C++ -*-===//
///
/// \file
/// The two sort templates (RadixSort.cpp, MergeSort.cpp) take the same
/// requests, order keys the same way and give host wrappers of the same
/// signature, so that one GPU check (test/gpu/templates/check_sort.cu) and
/// one caller serve both:
///
///   size_t forge_<name>_scratch_bytes(long long n);
///   cudaError_t forge_<name>(K *keys, [V *values,] K *keys_tmp,
///                            [V *values_tmp,] void *scratch,
///                            size_t scratch_bytes, long long n,
///                            cudaStream_t stream = 0);
///
/// Both sort the keys' order-preserving unsigned bits (`<name>_to_bits`):
/// the sign bit of an int flipped; every bit of a negative float flipped,
/// the sign bit of a positive one. So -0.0 sorts before +0.0, NaNs with the
/// sign bit clear after +inf and NaNs with it set before -inf. Descending
/// sorts the complement of those bits, which keeps equal keys in their
/// input order (both sorts are stable). Header-only, private to
/// lib/Templates.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_LIB_TEMPLATES_SORTCOMMON_H
#define FORGE_LIB_TEMPLATES_SORTCOMMON_H

#include "TemplateUtil.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include <string>

namespace forge::templates::detail {

/// The common refusals of a sort template named Template ("the radix sort")
/// that answers to Algorithm ("radix"): another kind or algorithm, a shape
/// that is not {n}, n above MaxN, keys or values that are not 4 bytes.
inline llvm::Error checkSortRequest(const Request &R, llvm::StringRef Template,
                                    llvm::StringRef Algorithm, int64_t MaxN) {
  if (R.Kind != OpKind::Sort)
    return makeError("{0} computes a sort, not a {1}", Template, opKindName(R.Kind));
  if (!R.Algorithm.empty() && R.Algorithm != Algorithm)
    return makeError("{0} is not the '{1}' sort that was asked for", Template, R.Algorithm);
  if (llvm::Error E = checkShape(R, 1, "a sort"))
    return E;
  const ScalarInfo &K = scalarInfo(R.Type);
  if (K.Bytes != 4)
    return makeError("{0} takes 4-byte keys (u32, i32, f32), not {1}", Template, K.Dtype);
  if (R.ValueType && scalarInfo(*R.ValueType).Bytes != 4)
    return makeError("{0} takes 4-byte values (u32, i32, f32), not {1}", Template,
                     scalarInfo(*R.ValueType).Dtype);
  if (R.Shape[0] > MaxN)
    return makeError("{0} sorts at most {1} keys in one launch, not {2}", Template, MaxN,
                     R.Shape[0]);
  return llvm::Error::success();
}

/// `<Name>_to_bits` and `<Name>_from_bits`: a key's order-preserving
/// unsigned bits (complemented when descending) and back.
inline std::string sortBitFunctions(const Request &R, llvm::StringRef Name) {
  const ScalarInfo &K = scalarInfo(R.Type);
  std::string To, From, Why;
  if (K.Floating) {
    To = "(k & 0x80000000u) ? ~k : (k | 0x80000000u)";
    From = "(b & 0x80000000u) ? (b & 0x7fffffffu) : ~b";
    Why = "floats: every bit of a negative flipped, the sign bit of a positive (-0.0 sorts "
          "before +0.0; NaNs with the sign bit clear after +inf, with it set before -inf)";
  } else if (K.Signed) {
    To = "k ^ 0x80000000u";
    From = "b ^ 0x80000000u";
    Why = "ints: the sign bit flipped";
  } else {
    To = "k";
    From = "b";
    Why = "unsigned keys are their own bits";
  }
  if (R.Descending) {
    To = "~(" + To + ")";
    From = replaceAll(From, "b", "(~b)");
    Why += "; descending: the complement, so equal keys keep their order";
  }
  return llvm::formatv("// A key's bits as an unsigned whose order is the sort's, and back: {0}.\n"
                       "__device__ __forceinline__ unsigned int {1}_to_bits(unsigned int k) {{\n"
                       "  return {2};\n}\n"
                       "__device__ __forceinline__ unsigned int {1}_from_bits(unsigned int b) {{\n"
                       "  return {3};\n}\n",
                       Why, Name, To, From)
      .str();
}

/// The kernel's (and the wrapper's) array parameters: keys, [values,]
/// keys_tmp, [values_tmp].
inline std::string sortArrayParams(const Request &R) {
  std::string K = scalarInfo(R.Type).Cuda.str();
  if (!R.ValueType)
    return K + " *keys, " + K + " *keys_tmp";
  std::string V = scalarInfo(*R.ValueType).Cuda.str();
  return K + " *keys, " + V + " *values, " + K + " *keys_tmp, " + V + " *values_tmp";
}

inline std::string sortArrayArgs(const Request &R) {
  return R.ValueType ? "keys, values, keys_tmp, values_tmp" : "keys, keys_tmp";
}

/// The spec's arrays: keys (and values, 0, 1, 2, ... so that a reordering
/// of equal keys shows) in and out, and their ping-pong buffers.
inline Json sortBuffers(const Request &R) {
  const ScalarInfo &K = scalarInfo(R.Type);
  Json Keys = K.Floating   ? inoutBuffer("keys", R.Type, "N", -1000, 1000)
              : K.Signed   ? inoutBuffer("keys", R.Type, "N", -2147483648.0, 2147483647.0)
                           : inoutBuffer("keys", R.Type, "N", 0, 4294967295.0);
  Json B = Json::array({Keys});
  if (R.ValueType) {
    Json Values = inoutBuffer("values", *R.ValueType, "N");
    Values["init"] = {{"kind", "iota"}};
    B.push_back(Values);
  }
  B.push_back(scratchBuffer("keys_tmp", R.Type, "N"));
  if (R.ValueType)
    B.push_back(scratchBuffer("values_tmp", *R.ValueType, "N"));
  return B;
}

inline Json sortArgNames(const Request &R) {
  return R.ValueType ? Json::array({"keys", "values", "keys_tmp", "values_tmp"})
                     : Json::array({"keys", "keys_tmp"});
}

/// A piece of a sort template's text with its value-only lines (@V) kept
/// when the sort has values and its common placeholders filled: the
/// wrapper's @DEVICE_QUERY, @PARAMS and @ARGS (the arrays), @MAX (MaxKeys),
/// @B and @I (the default block and items), @WAVES (the default blocks
/// per SM) and, last, @N (the name).
inline std::string fillSortText(llvm::StringRef Text, const Request &R, llvm::StringRef Name,
                                int64_t MaxKeys, int Block, int Items, int Waves) {
  std::string S = keepMarkedLines(Text, "@V", R.ValueType.has_value());
  S = replaceAll(S, "@DEVICE_QUERY", deviceQueryLines(""));
  S = replaceAll(S, "@WAVES", std::to_string(Waves));
  S = replaceAll(S, "@PARAMS", sortArrayParams(R));
  S = replaceAll(S, "@ARGS", sortArrayArgs(R));
  S = replaceAll(S, "@MAX", std::to_string(MaxKeys));
  S = replaceAll(S, "@B", std::to_string(Block));
  S = replaceAll(S, "@I", std::to_string(Items));
  return replaceAll(S, "@N", Name);
}

/// A sample request of a sort template.
inline Request sortSample(llvm::StringRef Name, llvm::StringRef Algorithm, Scalar Key,
                          int64_t N, bool Descending = false,
                          std::optional<Scalar> Value = std::nullopt) {
  Request R;
  R.Kind = OpKind::Sort;
  R.Name = Name.str();
  R.Algorithm = Algorithm.str();
  R.Type = Key;
  R.Shape = {N};
  R.Descending = Descending;
  R.ValueType = Value;
  return R;
}

} // namespace forge::templates::detail

#endif
