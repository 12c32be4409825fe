//===- Port/ResourceTable.cpp ---------------------------------------------===//
#include "forge/Port/ResourceTable.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace forge::port {

namespace {
std::optional<int64_t> threadsOf(const frontend::ValueText &Block) {
  if (Block.Value)
    return *Block.Value;
  if (Block.Dim3)
    return (*Block.Dim3)[0] * (*Block.Dim3)[1] * (*Block.Dim3)[2];
  return std::nullopt;
}

void addLaunch(FileLaunches &F, const std::string &Symbol, const frontend::ValueText &Block,
               const frontend::ValueText &Shmem, const frontend::Location &Loc) {
  if (Symbol.empty())
    return;
  KernelLaunches &K = F.BySymbol[Symbol];
  ++K.Sites;
  auto Threads = threadsOf(Block);
  if (!Threads)
    return;
  if (K.Shape) {
    if (*Threads != K.Shape->Threads && !is_contained(K.OtherThreads, *Threads))
      K.OtherThreads.push_back(*Threads);
    return;
  }
  LaunchShape S;
  S.Threads = *Threads;
  S.Loc = Loc;
  if (Shmem.Value)
    S.DynamicShared = *Shmem.Value;
  else if (!Shmem.Text.empty()) // written, and not a constant
    S.DynamicSharedKnown = false;
  K.Shape = S;
}
} // namespace

FileLaunches launchesOf(const frontend::FileIndex &Index) {
  FileLaunches F;
  for (const frontend::LaunchSiteInfo &L : Index.LaunchSites) {
    if (!L.Active)
      continue;
    // A launch in a host function template is evaluated per instantiation;
    // the pattern's own expressions are dependent.
    if (!L.InTemplate)
      addLaunch(F, L.KernelMangled, L.Block, L.SharedMem, L.Loc);
    for (const frontend::LaunchInstantiation &I : L.Instantiations)
      addLaunch(F, I.KernelMangled, I.Block, I.SharedMem, L.Loc);
  }
  for (const frontend::KernelInfo &K : Index.Kernels) {
    if (!K.Active || K.IsTemplate)
      continue;
    if (!K.Mangled.empty())
      F.PlainKernelSymbols.insert(K.Mangled);
    F.PlainKernelNames.insert(K.Name);
  }
  return F;
}

std::string ResourceRow::name() const {
  return Target->DemangledName.empty() ? Target->MangledName : Target->DemangledName;
}

std::pair<std::string, bool> demangledBaseName(StringRef Demangled) {
  std::string S = Demangled.str();
  static constexpr StringLiteral Anon = "(anonymous namespace)";
  for (size_t P; (P = S.find(Anon.data())) != std::string::npos;)
    S.erase(P, Anon.size());
  // The name ends at the parameter list; a return type (templates have
  // one) ends at a space outside the template arguments.
  int Depth = 0;
  size_t Start = 0, End = S.size();
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (C == '<')
      ++Depth;
    else if (C == '>')
      --Depth;
    else if (Depth == 0 && C == ' ')
      Start = I + 1;
    else if (Depth == 0 && C == '(') {
      End = I;
      break;
    }
  }
  StringRef Name = StringRef(S).slice(Start, End);
  bool Template = Name.ends_with(">");
  Name = Name.take_until([](char C) { return C == '<'; });
  if (size_t Colons = Name.rfind("::"); Colons != StringRef::npos)
    Name = Name.drop_front(Colons + 2);
  return {Name.str(), Template};
}

ResourceTable resourceTable(const std::vector<build::KernelResources> &Target,
                            const build::CompileResult *Source, const FileLaunches &L,
                            unsigned AssumedBlockThreads, bool All) {
  ResourceTable T;
  std::set<std::string> Seen;
  for (const build::KernelResources &K : Target) {
    if (!K.IsEntry || !Seen.insert(K.MangledName).second)
      continue;
    ResourceRow Row;
    Row.Target = &K;
    Row.Source = Source ? Source->findKernel(K.MangledName) : nullptr;
    auto It = L.BySymbol.find(K.MangledName);
    Row.Launched = It != L.BySymbol.end() && It->second.Sites;
    bool Plain = L.PlainKernelSymbols.count(K.MangledName);
    if (!Plain && !Row.Launched && !K.DemangledName.empty()) {
      auto [Base, IsTemplate] = demangledBaseName(K.DemangledName);
      Plain = !IsTemplate && L.PlainKernelNames.count(Base);
    }
    if (!All && !Row.Launched && !Plain) {
      ++T.NotListed;
      continue;
    }
    if (It != L.BySymbol.end() && It->second.Shape) {
      Row.Shape = *It->second.Shape;
      Row.FromLaunch = true;
      Row.OtherThreads = It->second.OtherThreads;
    } else {
      Row.Shape.Threads = AssumedBlockThreads;
    }
    T.Rows.push_back(std::move(Row));
  }
  return T;
}

} // namespace forge::port
