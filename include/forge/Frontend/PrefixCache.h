//===- Frontend/PrefixCache.h - Precompiled CUDA prefix ---------*- C++ -*-===//
///
/// \file
/// Every parse of a CUDA file starts with the same headers: Clang's CUDA
/// runtime wrapper (cuda_runtime.h and the C++ library below it) and the
/// nvcc-compatibility prelude, forced in with -include. They are most of a
/// parse's time (0.43 s of a side's 0.47 s for a ten-line kernel, Clang 22,
/// CUDA 13.0). The first parse with a given command line writes them to a
/// precompiled header in the user's cache; later parses with the same
/// command line load it instead (0.09 s), as clangd reuses a preamble.
///
/// The key is the whole compiler invocation but the main file, Clang's
/// version and the prelude's text; a manifest beside each header lists the
/// files it was built from with their sizes and times, and a header whose
/// files changed is rebuilt. A prefix that does not compile cleanly is not
/// precompiled: the parse reads the headers as before. Only the forced
/// includes Forge adds are precompiled, never a user's own.
///
/// Where: $FORGE_PCH_DIR, else $XDG_CACHE_HOME/forge/pch, else
/// ~/.cache/forge/pch. FORGE_PCH=0 turns it off.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_PREFIXCACHE_H
#define FORGE_FRONTEND_PREFIXCACHE_H

#include <string>

namespace clang {
class CompilerInstance;
} // namespace clang

namespace forge::frontend {

/// The directory precompiled prefixes go to; "" when turned off or when no
/// cache directory is known.
std::string prefixCacheDir();

/// Called before the main file is read: replaces the leading forced
/// includes of CI's invocation (the CUDA wrapper, the prelude) with their
/// precompiled header, building it first when the cache has none that is
/// current. Returns false, leaving CI as it was, when it cannot.
bool usePrecompiledPrefix(clang::CompilerInstance &CI);

} // namespace forge::frontend

#endif
