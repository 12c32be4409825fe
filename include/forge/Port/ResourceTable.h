//===- Port/ResourceTable.h - Resources per launched kernel ----*- C++ -*-===//
///
/// \file
/// The rows of the resource table a port prints: one per kernel that nvcc
/// compiled for the target, with the block size and dynamic shared memory
/// its occupancy is predicted for. The block comes from the file's launch
/// sites (the kernel index: literals, constants, macros, an unmodified
/// `dim3 block(16, 16)`, template arguments per instantiation); only where
/// none is a compile-time constant is a block size assumed. By default the
/// table lists the kernels the file launches and its non-template kernels;
/// template instantiations that nothing in the file launches and library
/// kernels are counted, and listed only when all rows are asked for.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PORT_RESOURCETABLE_H
#define FORGE_PORT_RESOURCETABLE_H

#include "forge/Build/CompileResult.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Port/PortRunner.h"
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace forge::port {

/// What the file's launch sites say about one kernel symbol.
struct KernelLaunches {
  unsigned Sites = 0; ///< launches that reach it (one per host-template instantiation)
  /// The first of them whose block size is a compile-time constant.
  std::optional<LaunchShape> Shape;
  /// The other constant block sizes it is launched with, in order.
  std::vector<int64_t> OtherThreads;
};

/// The launches of a file by the symbol of the kernel launched (as ptxas
/// names it), and the kernels it defines that are not templates.
struct FileLaunches {
  std::map<std::string, KernelLaunches> BySymbol;
  std::set<std::string> PlainKernelSymbols;
  /// Their unqualified names: a symbol Clang spells otherwise than nvcc
  /// (an anonymous namespace) is still recognised by its demangled name.
  std::set<std::string> PlainKernelNames;
};

/// The launches of an index's launch sites; a site inside a host function
/// template counts once per instantiation, with its block evaluated there.
FileLaunches launchesOf(const frontend::FileIndex &Index);

struct ResourceRow {
  const build::KernelResources *Target = nullptr;
  const build::KernelResources *Source = nullptr; ///< null: not compiled for the source
  LaunchShape Shape;
  bool FromLaunch = false; ///< false: the block size is assumed
  bool Launched = false;   ///< a launch in the file reaches it
  std::vector<int64_t> OtherThreads;
  /// The name to print: demangled, else the symbol.
  std::string name() const;
};

struct ResourceTable {
  std::vector<ResourceRow> Rows;
  /// Entries nvcc reports that are not listed (All was false).
  unsigned NotListed = 0;
};

/// One row per entry function of Target (once each), in nvcc's order.
/// Source: the same file compiled for the source arch, if it was.
/// All: every entry, not only those launched and the plain kernels.
ResourceTable resourceTable(const std::vector<build::KernelResources> &Target,
                            const build::CompileResult *Source, const FileLaunches &L,
                            unsigned AssumedBlockThreads, bool All);

/// The unqualified function name of a demangled symbol, and whether it is
/// a template specialisation: "void ns::k<float, 4>(float*)" is
/// {"k", true}; "(anonymous namespace)::k(float*)" is {"k", false}.
std::pair<std::string, bool> demangledBaseName(llvm::StringRef Demangled);

} // namespace forge::port

#endif
