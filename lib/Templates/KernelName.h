//===- Templates/KernelName.h - The generated kernel's name -----*- C++ -*-===//
///
/// \file
/// The name a template's generated kernel takes (the request's, or the
/// template's own when it has none), checked to be a plain identifier: it
/// is written into CUDA text, so anything else is refused. Private to
/// lib/Templates (map, gather, scatter, transpose).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_LIB_TEMPLATES_KERNELNAME_H
#define FORGE_LIB_TEMPLATES_KERNELNAME_H

#include "forge/Support/Error.h"
#include "forge/Templates/Template.h"
#include "llvm/ADT/StringExtras.h"
#include <string>

namespace forge::templates::detail {

/// R.Name, or Default when it is empty; an error when it is not an
/// identifier of at most 200 characters.
inline llvm::Expected<std::string> kernelName(const Request &R, llvm::StringRef Default) {
  llvm::StringRef Name = R.Name.empty() ? Default : llvm::StringRef(R.Name);
  bool Ok = !Name.empty() && Name.size() <= 200 && !llvm::isDigit(Name.front()) &&
            llvm::all_of(Name, [](char C) { return llvm::isAlnum(C) || C == '_'; });
  if (!Ok)
    return makeError("the kernel's name '{0}' is not a C identifier", Name);
  return Name.str();
}

} // namespace forge::templates::detail

#endif
