//===- TextureReferences.h - texture-references ----------------*- C++ -*-===//
///
/// \file
/// Texture and surface references (`texture<T, dim, mode> tex;`,
/// `cudaBindTexture`, `tex1Dfetch(tex, i)`, ...), removed in CUDA 12. The
/// frontend's prelude declares them again (annotated
/// "forge-removed-in-cuda12") when the toolkit lacks them, so the file
/// parses and this pass sees the uses. Each texture reference is an error;
/// where every use is one the pass knows, a fix-it turns it into a texture
/// object:
///
/// - the declaration becomes `cudaTextureObject_t NAME = 0;`;
/// - every kernel and `__device__` function that reads NAME (directly or
///   through a helper) takes `cudaTextureObject_t NAME` as a new last
///   parameter, and every call and launch of it passes NAME;
/// - `tex1Dfetch(NAME, i)` becomes `tex1Dfetch<T>(NAME, i)` (also tex1D,
///   tex2D, tex3D, ...);
/// - the binds create the object (static helpers inserted once per file,
///   before the first texture declaration), carrying the filter mode,
///   address modes and normalized flag the code set on the reference (those
///   assignments are removed); `cudaUnbindTexture` destroys it.
///
/// Where a parameter cannot carry the object (a kernel not launched in the
/// file, or whose address is taken, ...), it goes into a `static
/// __constant__ cudaTextureObject_t NAME_dev` written after each bind, and
/// the fetches read that. A bind or fetch in a macro's body is rewritten in
/// the #define when every texture going through it is rewritten the same.
///
/// All or nothing per texture: any use that cannot be rewritten (a bind with
/// an offset, a setting changed between binds, ...) leaves the texture as it
/// is, with a note at that use saying why. Surface references are reported
/// without a fix. docs/passes/texture-references.md has the details.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_TEXTUREREFERENCES_H
#define FORGE_PASSES_PORT_TEXTUREREFERENCES_H

#include "../PortPass.h"

namespace forge::passes {

class TextureReferences : public PortPass {
public:
  llvm::StringRef name() const override { return "texture-references"; }
  /// The host side's AST has every function body; one side reports.
  bool wantsSide(frontend::Side S) const override { return S == frontend::Side::Host; }
  void finish(PassContext &C) override;
};

} // namespace forge::passes

#endif
