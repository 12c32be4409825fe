//===- Build/ResourceUsage.cpp --------------------------------------------===//
#include "forge/Build/ResourceUsage.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"

using namespace llvm;

namespace forge::build {

std::string demangleName(StringRef Mangled) {
  return llvm::demangle(Mangled);
}

namespace {

/// Leading unsigned integer of S (after spaces), consuming it.
std::optional<uint64_t> takeNumber(StringRef &S) {
  S = S.ltrim();
  uint64_t V;
  if (S.consumeInteger(10, V))
    return std::nullopt;
  return V;
}

/// Strips "quotes" or 'quotes'.
StringRef unquote(StringRef S) {
  S = S.trim();
  if (S.size() >= 2 && (S.front() == '\'' || S.front() == '"') &&
      S.back() == S.front())
    return S.drop_front().drop_back();
  return S;
}

/// "Used 27 registers, used 1 barriers, 128 bytes cumulative stack size,
/// 4096 bytes smem, 376 bytes cmem[0]": each item is parsed on its own, so
/// items that ptxas adds or drops (textures, samplers, lmem) do no harm.
void parseUsed(StringRef Body, KernelResources &K) {
  K.HasUsage = true;
  SmallVector<StringRef, 8> Items;
  Body.split(Items, ',');
  for (StringRef Item : Items) {
    StringRef T = Item.trim();
    if (T.consume_front_insensitive("used ")) {
      std::optional<uint64_t> N = takeNumber(T);
      if (!N)
        continue;
      T = T.trim();
      if (T.starts_with("register"))
        K.Registers = *N;
      else if (T.starts_with("barrier"))
        K.Barriers = *N;
      continue;
    }
    std::optional<uint64_t> N = takeNumber(T);
    if (!N)
      continue;
    T = T.trim();
    if (!T.consume_front("bytes "))
      continue;
    T = T.trim();
    if (T == "smem") {
      K.SharedMemBytes = *N;
    } else if (T == "cumulative stack size") {
      K.CumulativeStackBytes = *N;
    } else if (T.consume_front("cmem[")) {
      unsigned Bank = 0;
      if (T.consumeInteger(10, Bank))
        continue;
      K.ConstantBanks[Bank] += *N;
      if (Bank == 0)
        K.ConstantMemBytes = K.ConstantBanks[0];
    }
  }
}

/// "128 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads".
bool parseProperties(StringRef Line, KernelResources &K) {
  SmallVector<StringRef, 4> Items;
  Line.split(Items, ',');
  bool Any = false;
  for (StringRef Item : Items) {
    StringRef T = Item.trim();
    std::optional<uint64_t> N = takeNumber(T);
    if (!N)
      continue;
    T = T.trim();
    if (T == "bytes stack frame")
      K.StackFrameBytes = *N, Any = true;
    else if (T == "bytes spill stores")
      K.SpillStoreBytes = *N, Any = true;
    else if (T == "bytes spill loads")
      K.SpillLoadBytes = *N, Any = true;
  }
  return Any;
}

} // namespace

std::vector<KernelResources> parseResourceUsage(StringRef Log,
                                                StringRef DefaultArch) {
  std::vector<KernelResources> Out;
  std::optional<size_t> Current;
  std::string Arch;
  auto startRecord = [&](StringRef Name, bool IsEntry) {
    KernelResources K;
    K.MangledName = Name.str();
    K.DemangledName = demangleName(Name);
    K.IsEntry = IsEntry;
    K.Arch = Arch.empty() ? DefaultArch.str() : Arch;
    Out.push_back(std::move(K));
    Current = Out.size() - 1;
  };

  SmallVector<StringRef, 64> Lines;
  Log.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.rtrim("\r");
    StringRef T = L.trim();
    if (T.empty())
      continue;
    if (!T.consume_front("ptxas info")) {
      // The properties line is the only indented one.
      if (Current && (L.front() == ' ' || L.front() == '\t'))
        parseProperties(T, Out[*Current]);
      continue;
    }
    T = T.ltrim();
    if (!T.consume_front(":"))
      continue;
    T = T.trim();
    // "Compiling entry function '_Z...' for 'sm_90'"
    if (T.consume_front("Compiling entry function ") ||
        T.consume_front("Compiling function ")) {
      bool IsEntry = L.contains("entry function");
      size_t For = T.rfind(" for ");
      StringRef Name = T;
      if (For != StringRef::npos) {
        Arch = unquote(T.drop_front(For + 5)).str();
        Name = T.take_front(For);
      }
      startRecord(unquote(Name), IsEntry);
      continue;
    }
    // "Function properties for _Z..."; it follows the Compiling line of the
    // same entry, and stands alone for separately compiled device functions.
    if (T.consume_front("Function properties for ")) {
      StringRef Name = unquote(T);
      if (!Current || Out[*Current].MangledName != Name ||
          Out[*Current].HasUsage)
        startRecord(Name, /*IsEntry=*/false);
      continue;
    }
    if (T.starts_with("Used ")) {
      if (Current)
        parseUsed(T, Out[*Current]);
      continue;
    }
    if (T.consume_front("Compile time =")) {
      if (Current) {
        double Ms = 0;
        StringRef Num = T.trim().split(' ').first;
        if (!Num.getAsDouble(Ms))
          Out[*Current].CompileMillis = Ms;
      }
      continue;
    }
    // "0 bytes gmem", "Function properties" of other shapes: module-level.
  }
  return Out;
}

} // namespace forge::build
