//===- Templates/TemplateUtil.h - Shared pieces of template instances -*- C++ -*-===//
///
/// \file
/// What every template's instantiate function uses: text substitution, the
/// launch spec's parts (buffers, scalars, tunables) and the file's opening
/// comment. Private to lib/Templates.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_LIB_TEMPLATES_TEMPLATEUTIL_H
#define FORGE_LIB_TEMPLATES_TEMPLATEUTIL_H

#include "forge/Templates/Template.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>

namespace forge::templates::detail {

/// S with every Key replaced by Value.
std::string replaceAll(std::string S, llvm::StringRef Key, llvm::StringRef Value);

/// The spec's buffers. Inputs are filled with uniform values between Lo
/// and Hi (for integer types both ends included, [0, 100] by default: the
/// worker draws integers inclusively); outputs are compared with the
/// reference within Tolerance (0: the dtype's default).
Json inBuffer(llvm::StringRef Name, Scalar T, llvm::StringRef Count, double Lo = -1,
                            double Hi = 1);
Json outBuffer(llvm::StringRef Name, Scalar T, llvm::StringRef Count,
                             double RelL2 = 0);
Json inoutBuffer(llvm::StringRef Name, Scalar T, llvm::StringRef Count,
                               double Lo = -1, double Hi = 1, double RelL2 = 0);
/// A buffer the kernel may scribble on (scratch): never compared.
Json scratchBuffer(llvm::StringRef Name, Scalar T, llvm::StringRef Count);
/// A by-value argument whose value is an expression over sizes and
/// tunables ("N") or a number.
Json scalarArg(llvm::StringRef Name, Scalar T, Json Value);
Json tunable(llvm::StringRef Name, llvm::ArrayRef<int64_t> Values, int64_t Default);

/// The opening comment of a generated file: what it computes (the
/// request's description and describe()), the template, and How, one
/// paragraph each, wrapped at 78 columns.
std::string fileComment(const Request &R, llvm::StringRef Template,
                        llvm::ArrayRef<std::string> How);

/// Whether S is a C identifier of at most 200 characters (a kernel's name
/// is written into CUDA text).
bool isCIdentifier(llvm::StringRef S);

/// The generated kernel's name: R.Name, or Default (the template's own)
/// when it is empty; an error when it is not a C identifier.
llvm::Expected<std::string> kernelName(const Request &R, llvm::StringRef Default);

/// Text whose lines that begin with Marker are kept, without the marker,
/// when Keep (a line that is Marker alone, trailing blanks aside, becomes an
/// empty line) and dropped otherwise. Other lines stay as they are.
std::string keepMarkedLines(llvm::StringRef Text, llvm::StringRef Marker, bool Keep);

/// A host wrapper's device query, as CUDA lines indented two spaces (no
/// final newline): `device` and `sms`, the current device and its SM
/// count, and with OccupancyOf (a kernel and its block size, "k<256, 8>,
/// 256") `per_sm`, that kernel's resident blocks per SM; the wrapper
/// returns the first failing call's error. With ErrDeclared the wrapper has
/// declared `cudaError_t err` before these lines.
std::string deviceQueryLines(llvm::StringRef OccupancyOf = "", bool ErrDeclared = false);

/// An instance of Template whose kernel is Kernel and whose host wrapper
/// is forge_<Kernel>; the caller fills in the rest.
Instance startInstance(llvm::StringRef Template, llvm::StringRef Kernel);

/// The common refusals: a shape of the wrong rank, a non-positive extent.
llvm::Error checkShape(const Request &R, size_t Rank, llvm::StringRef What);

} // namespace forge::templates::detail

#endif
