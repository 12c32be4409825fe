//===- Templates/Embed.h - A template inside another kernel ----*- C++ -*-===//
///
/// \file
/// The optimiser replaces a user's kernel by a template while keeping the
/// user's declaration (its name, parameters and launches): the template's
/// kernel becomes a __device__ function that the user's kernel body calls
/// with its own arguments. Every template does its whole operation in the
/// blocks of one launch (a ticket loop, a grid-stride loop), so it runs the
/// same from inside another kernel, as long as that kernel is launched with
/// the blocks the instantiation was written for.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_EMBED_H
#define FORGE_TEMPLATES_EMBED_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <string>

namespace forge::templates {

/// I's file without its host wrapper (the inline functions that launch the
/// kernel, and the comment above them) and without its #include lines (the
/// caller's file has what nvcc gives every .cu; a template of __half or
/// __nv_bfloat16 needs the caller to have their headers), its kernel
/// rewritten as
/// `__device__ __forceinline__ void <Kernel>_body(...)` (template
/// parameters kept, __launch_bounds__ dropped). Fails when the text does
/// not have that shape (no single __global__ definition of I.Kernel, or no
/// wrapper where it should be).
llvm::Expected<std::string> embeddableBody(const Instance &I);

} // namespace forge::templates

#endif
