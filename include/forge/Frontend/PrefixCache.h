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
/// The key is the whole compiler invocation but the main file and the
/// user's -I and -iquote directories, Clang's version and the prelude's
/// text: the units of a project, each with its own directory on the include
/// path, share one header (cuda-samples: one build for 280 units instead of
/// one per directory; a kernel-only unit's validated port went from 1.2 s to
/// 0.4 s against nvcc's 0.7 s). A user directory that holds a file of the
/// same name as one the header was built from (found first: a
/// cuda_runtime.h of its own) gets a header keyed by the whole command line,
/// and a header built where a user directory took part is never shared. A
/// manifest beside each header lists the files it was built from with their
/// sizes and times, and a header whose files changed is rebuilt. A prefix that does not compile cleanly is not
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
