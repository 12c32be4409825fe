//===- Experience/Experience.cpp - What transformations paid off ----------===//
#include "forge/Experience/Experience.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Config.h"
#include "forge/Support/Error.h"
#include "forge/Support/Date.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/JsonReader.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace forge::experience {

//===----------------------------------------------------------------------===//
// Pattern keys
//===----------------------------------------------------------------------===//

namespace {
using namespace forge::analysis;

std::string join(const std::set<std::string> &Items, StringRef Sep) {
  std::string Out;
  for (const std::string &I : Items) {
    if (!Out.empty())
      Out += Sep;
    Out += I;
  }
  return Out;
}

/// One recognised computation, with the facts that change which rewrites
/// pay off and none that a tuner changes (chunk sizes) or that are names.
std::string patternItem(const KernelModel &M, const Pattern &P) {
  std::string Kind = patternKindName(P.Kind).str();
  switch (P.Kind) {
  case PatternKind::Reduction: {
    if (P.Reduction < 0 || size_t(P.Reduction) >= M.Reductions.size())
      return Kind;
    const Reduction &R = M.Reductions[P.Reduction];
    std::string S = Kind + "(" + (R.Kind == ReductionKind::Atomic ? "atomic" : "loop") + "," +
                    reductionOpName(R.Op).str();
    if (R.Kind == ReductionKind::Atomic)
      S += "," + reductionScopeName(R.Scope).str();
    return S + ")";
  }
  case PatternKind::Elementwise:
  case PatternKind::Chunk:
    return P.GridStride ? Kind + "(grid-stride)" : Kind;
  case PatternKind::MultiPassRow:
    return Kind + "(" + std::to_string(P.Passes) + ")";
  case PatternKind::MatrixProduct: {
    std::vector<std::string> Facts;
    if (!P.LoopOrder.empty())
      Facts.push_back(P.LoopOrder);
    if (P.Tiled)
      Facts.push_back("tiled");
    if (P.TransposedA)
      Facts.push_back("at");
    if (P.TransposedB)
      Facts.push_back("bt");
    return Facts.empty() ? Kind : Kind + "(" + llvm::join(Facts, ",") + ")";
  }
  case PatternKind::Stencil: {
    if (P.Footprint < 0 || size_t(P.Footprint) >= M.Footprints.size())
      return Kind;
    const Footprint &F = M.Footprints[P.Footprint];
    std::string Radius = F.Symbolic ? "r?" : "r" + std::to_string(F.Radius);
    return Kind + "(" + std::to_string(F.Dims.size()) + "d," + Radius + ")";
  }
  default:
    return Kind;
  }
}
} // namespace

std::string patternKey(const KernelModel &M) {
  std::set<std::string> Patterns, Classes, Steps;
  for (const Pattern &P : M.Patterns)
    Patterns.insert(patternItem(M, P));
  bool Shared = false;
  for (const Access &A : M.Accesses) {
    if (A.Space == MemorySpace::Shared)
      Shared = true;
    else
      Classes.insert(accessClassName(A.Warp.Class).str());
  }
  unsigned Depth = 0;
  for (const Loop &L : M.Loops) {
    Depth = std::max(Depth, L.Depth + 1);
    Steps.insert(stepKindName(L.StepK).str());
  }
  std::string Key = Patterns.empty() ? "none" : join(Patterns, "+");
  Key += "|access:" + (Classes.empty() ? std::string("none") : join(Classes, ","));
  if (Shared)
    Key += "|shared";
  Key += "|loops:" + (Steps.empty() ? std::string("none")
                                    : "d" + std::to_string(Depth) + ":" + join(Steps, ","));
  return Key;
}

std::string patternFamily(const KernelModel &M) {
  std::set<std::string> Kinds;
  bool LoopReduction = false;
  for (const Pattern &P : M.Patterns) {
    bool IsLoopReduction = P.Kind == PatternKind::Reduction && P.Reduction >= 0 &&
                           size_t(P.Reduction) < M.Reductions.size() &&
                           M.Reductions[P.Reduction].Kind == ReductionKind::LoopCarried;
    if (IsLoopReduction)
      LoopReduction = true;
    else
      Kinds.insert(patternKindName(P.Kind).str());
  }
  // A loop-carried reduction is part of the row loop, the product or the
  // stencil it sits in; alone, it is the computation.
  if (Kinds.empty() && LoopReduction)
    Kinds.insert("reduction");
  return Kinds.empty() ? "none" : join(Kinds, "+");
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

StringRef verdictName(Verdict V) {
  switch (V) {
  case Verdict::Kept:
    return "kept";
  case Verdict::Rejected:
    return "rejected";
  case Verdict::Slower:
    return "slower";
  case Verdict::NotFaster:
    return "not-faster";
  }
  return "rejected";
}

std::optional<Verdict> parseVerdict(StringRef Name) {
  for (Verdict V : {Verdict::Kept, Verdict::Rejected, Verdict::Slower, Verdict::NotFaster})
    if (Name == verdictName(V))
      return V;
  return std::nullopt;
}

bool Entry::operator==(const Entry &O) const {
  return Transformation == O.Transformation && Pattern == O.Pattern && Family == O.Family &&
         Arch == O.Arch && Gpu == O.Gpu && V == O.V && Stage == O.Stage && Gain == O.Gain &&
         Kernel == O.Kernel && File == O.File && Time == O.Time && ForgeVersion == O.ForgeVersion &&
         Extra == O.Extra;
}


std::optional<std::time_t> parseUtc(StringRef Text) {
  // Exactly YYYY-MM-DDTHH:MM:SSZ.
  if (Text.size() != 20 || Text[4] != '-' || Text[7] != '-' || Text[10] != 'T' || Text[13] != ':' ||
      Text[16] != ':' || Text[19] != 'Z')
    return std::nullopt;
  auto Num = [&](size_t At, size_t Len, int &Out) {
    return !Text.substr(At, Len).getAsInteger(10, Out) &&
           llvm::all_of(Text.substr(At, Len), isDigit);
  };
  std::tm T{};
  int Y, Mo, D, H, Mi, S;
  if (!Num(0, 4, Y) || !Num(5, 2, Mo) || !Num(8, 2, D) || !Num(11, 2, H) || !Num(14, 2, Mi) ||
      !Num(17, 2, S))
    return std::nullopt;
  if (Mo < 1 || Mo > 12 || D < 1 || D > 31 || H > 23 || Mi > 59 || S > 60)
    return std::nullopt;
  T.tm_year = Y - 1900;
  T.tm_mon = Mo - 1;
  T.tm_mday = D;
  T.tm_hour = H;
  T.tm_min = Mi;
  T.tm_sec = S;
  return timegm(&T);
}

namespace {
const char *const KnownKeys[] = {"transformation", "pattern",      "family", "arch",   "gpu",
                                 "verdict",        "stage",        "gain",   "kernel", "file",
                                 "time",           "forge_version"};

std::optional<Entry> readEntry(JsonReader &R, const Json &J, const std::string &Path) {
  if (!R.expectObject(J, Path))
    return std::nullopt;
  Entry E;
  E.Transformation = R.string(J, Path, "transformation", /*Required=*/true);
  E.Pattern = R.string(J, Path, "pattern", true);
  E.Family = R.string(J, Path, "family");
  E.Arch = R.string(J, Path, "arch", true);
  E.Gpu = R.string(J, Path, "gpu");
  std::string V = R.string(J, Path, "verdict", true);
  E.Stage = R.string(J, Path, "stage");
  E.Gain = R.number(J, Path, "gain");
  E.Kernel = R.string(J, Path, "kernel");
  E.File = R.string(J, Path, "file");
  E.Time = R.string(J, Path, "time");
  E.ForgeVersion = R.string(J, Path, "forge_version");
  if (!R.ok())
    return std::nullopt;
  if (E.Transformation.empty())
    R.fail(JsonReader::member(Path, "transformation"), "must not be empty");
  else if (E.Arch.empty())
    R.fail(JsonReader::member(Path, "arch"), "must not be empty");
  else if (auto PV = parseVerdict(V))
    E.V = *PV;
  else
    R.fail(JsonReader::member(Path, "verdict"),
           "'" + V + "' is not one of kept, rejected, slower, not-faster");
  if (R.ok() && !(E.Gain >= 0 && std::isfinite(E.Gain)))
    R.fail(JsonReader::member(Path, "gain"), "expected a speed-up of 0 or more");
  if (R.ok() && !E.Time.empty() && !parseUtc(E.Time))
    R.fail(JsonReader::member(Path, "time"),
           "'" + E.Time + "' is not a UTC time like 2026-12-01T10:20:30Z");
  if (!R.ok())
    return std::nullopt;
  for (auto It = J.begin(); It != J.end(); ++It)
    if (!llvm::is_contained(KnownKeys, It.key()))
      E.Extra[It.key()] = It.value();
  return E;
}
} // namespace

Json toJson(const Entry &E) {
  Json J = Json::object();
  J["transformation"] = E.Transformation;
  J["pattern"] = E.Pattern;
  J["family"] = E.Family;
  J["arch"] = E.Arch;
  J["gpu"] = E.Gpu;
  J["verdict"] = verdictName(E.V).str();
  if (!E.Stage.empty())
    J["stage"] = E.Stage;
  J["gain"] = E.Gain;
  J["kernel"] = E.Kernel;
  J["file"] = E.File;
  J["time"] = E.Time;
  J["forge_version"] = E.ForgeVersion;
  for (auto It = E.Extra.begin(); It != E.Extra.end(); ++It)
    J[It.key()] = It.value();
  return J;
}

//===----------------------------------------------------------------------===//
// Tallies
//===----------------------------------------------------------------------===//

namespace {
std::string gainText(double G) { return formatv("{0:f1}x", G).str(); }

/// "rejected (correctness)", "slower".
std::string failureName(const Entry &E) {
  std::string S = verdictName(E.V).str();
  if (E.V == Verdict::Rejected && !E.Stage.empty())
    S += " (" + E.Stage + ")";
  return S;
}
} // namespace

Tally tally(ArrayRef<const Entry *> Entries) {
  Tally T;
  double LogSum = 0;
  unsigned WithGain = 0;
  std::map<std::string, unsigned> Failures;
  for (const Entry *E : Entries) {
    ++T.Tried;
    if (E->helped()) {
      ++T.Kept;
      if (E->Gain > 0) {
        LogSum += std::log(E->Gain);
        ++WithGain;
      }
    } else {
      ++Failures[failureName(*E)];
    }
  }
  if (WithGain)
    T.MeanGain = std::exp(LogSum / WithGain);
  if (T.Tried)
    T.ExpectedGain = std::exp(LogSum / T.Tried);
  for (auto &[Name, N] : Failures)
    T.Failures.push_back({Name, N});
  // The most frequent failure first; names break ties.
  llvm::stable_sort(T.Failures, [](const auto &A, const auto &B) { return A.second > B.second; });
  return T;
}

std::string Tally::describe() const {
  if (Kept) {
    std::string S = formatv("kept {0} of {1}", Kept, Tried).str();
    if (MeanGain > 0)
      S += ", mean " + gainText(MeanGain);
    return S;
  }
  if (Failures.size() == 1) {
    // "rejected 2 of 2 (correctness)".
    StringRef Name = Failures[0].first;
    auto [Verdict, Stage] = Name.split(' ');
    std::string S = formatv("{0} {1} of {2}", Verdict, Failures[0].second, Tried).str();
    if (!Stage.empty())
      S += " " + Stage.str();
    return S;
  }
  std::string S = formatv("kept 0 of {0} (", Tried).str();
  for (size_t I = 0; I < Failures.size(); ++I)
    S += (I ? ", " : "") + std::to_string(Failures[I].second) + " " + Failures[I].first;
  return S + ")";
}

//===----------------------------------------------------------------------===//
// The store
//===----------------------------------------------------------------------===//

Expected<Experience> Experience::parse(StringRef Text, StringRef Origin) {
  Experience X;
  X.Path = Origin.str();
  if (Text.trim().empty())
    return std::move(X);
  auto J = parseJson(Text, Origin);
  if (!J)
    return J.takeError();
  JsonReader R(Origin.str());
  if (!R.expectObject(*J, "$"))
    return R.takeError();
  auto Version = J->find("version");
  if (Version == J->end())
    return makeError("{0}: $.version: missing; expected 1", Origin);
  if (!Version->is_number_integer() || Version->get<int64_t>() != 1)
    return makeError("{0}: $.version: {1} is not a version this forge-port reads (1)", Origin,
                     Version->dump(-1, ' ', false, Json::error_handler_t::replace));
  const Json *List = R.array(*J, "$", "entries", /*Required=*/true);
  if (!List)
    return R.takeError();
  for (size_t I = 0; I < List->size(); ++I) {
    auto E = readEntry(R, (*List)[I], JsonReader::element("$.entries", I));
    if (!E)
      return R.takeError();
    X.Entries.push_back(std::move(*E));
  }
  for (auto It = J->begin(); It != J->end(); ++It)
    if (It.key() != "version" && It.key() != "entries")
      X.Extra[It.key()] = It.value();
  return std::move(X);
}

Expected<Experience> Experience::load(StringRef Path) {
  if (!sys::fs::exists(Path)) {
    Experience X;
    X.Path = Path.str();
    return std::move(X);
  }
  if (sys::fs::is_directory(Path))
    return makeError("{0}: is a directory, not an experience file", Path);
  auto Text = readFile(Path);
  if (!Text)
    return Text.takeError();
  return parse(*Text, Path);
}

Json Experience::toJson() const {
  Json J = Json::object();
  J["version"] = 1;
  Json List = Json::array();
  for (const Entry &E : Entries)
    List.push_back(experience::toJson(E));
  J["entries"] = std::move(List);
  for (auto It = Extra.begin(); It != Extra.end(); ++It)
    J[It.key()] = It.value();
  return J;
}

namespace {
std::string dumpJson(const Json &J) {
  return J.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

/// Runs Update on what the file holds now, under the lock, and writes the
/// result back through a temporary file and a rename when Update says so.
Error updateLocked(StringRef Path, function_ref<Expected<bool>(Experience &)> Update,
                   Experience &Now) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  StringRef Dir = sys::path::parent_path(Abs);
  if (!Dir.empty())
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return makeError("{0}: cannot create the directory '{1}': {2}", Path, Dir, EC.message());
  auto Lock = FileLock::acquire((Twine(Abs) + ".lock").str());
  if (!Lock)
    return Lock.takeError();
  auto Current = Experience::load(Path);
  if (!Current)
    return Current.takeError();
  auto Write = Update(*Current);
  if (!Write)
    return Write.takeError();
  if (*Write)
    if (Error E = writeFileAtomically(Path, dumpJson(Current->toJson())))
      return E;
  Now = std::move(*Current);
  return Error::success();
}
} // namespace

Error Experience::record(ArrayRef<Entry> New) {
  std::string Time = nowUtc();
  return updateLocked(
      Path,
      [&](Experience &Cur) -> Expected<bool> {
        for (Entry E : New) {
          if (E.Transformation.empty() || E.Arch.empty())
            return makeError("{0}: an entry needs a transformation and an arch", Path);
          if (E.Time.empty())
            E.Time = Time;
          if (E.ForgeVersion.empty())
            E.ForgeVersion = FORGE_VERSION;
          Cur.Entries.push_back(std::move(E));
        }
        return true;
      },
      *this);
}

PruneResult pruneEntries(std::vector<Entry> &Entries, const PruneOptions &Opts) {
  PruneResult R;
  std::time_t Now = Opts.Now ? *Opts.Now : std::time(nullptr);
  bool AnyCriterion = Opts.OlderThanDays || !Opts.Transformation.empty() || !Opts.Arch.empty();
  std::vector<Entry> Out;
  for (Entry &E : Entries) {
    if (AnyCriterion) {
      bool Old = true;
      if (Opts.OlderThanDays) {
        auto T = parseUtc(E.Time);
        // An entry without a time is of no age: never expired.
        Old = T && double(Now - *T) > double(*Opts.OlderThanDays) * 86400.0;
      }
      bool Match = (Opts.Transformation.empty() || E.Transformation == Opts.Transformation) &&
                   (Opts.Arch.empty() || E.Arch == Opts.Arch);
      if (Old && Match) {
        if (Opts.OlderThanDays)
          ++R.Expired;
        else
          ++R.Matched;
        continue;
      }
    }
    if (llvm::is_contained(Out, E)) {
      ++R.Duplicates;
      continue;
    }
    Out.push_back(std::move(E));
  }
  Entries = std::move(Out);
  R.Kept = unsigned(Entries.size());
  return R;
}

Expected<PruneResult> Experience::prune(const PruneOptions &Opts, bool DryRun) {
  PruneResult Result;
  // Nothing to change: no lock file or directory is created for it.
  if (DryRun || !sys::fs::exists(Path)) {
    auto Current = load(Path);
    if (!Current)
      return Current.takeError();
    *this = std::move(*Current);
    std::vector<Entry> Copy = Entries;
    return pruneEntries(Copy, Opts);
  }
  if (Error E = updateLocked(
          Path,
          [&](Experience &Cur) -> Expected<bool> {
            std::vector<Entry> Copy = Cur.Entries;
            Result = pruneEntries(Copy, Opts);
            if (!Result.removed())
              return false;
            Cur.Entries = std::move(Copy);
            return true;
          },
          *this))
    return std::move(E);
  return Result;
}

namespace {
std::string number(double D) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.6g", D);
  return Buf;
}

std::string csvField(StringRef S) {
  if (S.find_first_of(",\"\n\r") == StringRef::npos)
    return S.str();
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"')
      Out += '"';
    Out += C;
  }
  return Out + "\"";
}
} // namespace

std::string Experience::render(ExportFormat F) const {
  if (F == ExportFormat::Json)
    return dumpJson(toJson());
  std::string Out =
      "transformation,pattern,family,arch,gpu,verdict,stage,gain,kernel,file,time,forge_version\n";
  for (const Entry &E : Entries) {
    std::vector<std::string> Fields = {
        E.Transformation, E.Pattern,      E.Family, E.Arch, E.Gpu,  verdictName(E.V).str(),
        E.Stage,          number(E.Gain), E.Kernel, E.File, E.Time, E.ForgeVersion};
    for (size_t I = 0; I < Fields.size(); ++I)
      Out += (I ? "," : "") + csvField(Fields[I]);
    Out += "\n";
  }
  return Out;
}

Error Experience::exportTo(StringRef Out, ExportFormat F) const {
  return writeFileAtomically(Out, render(F));
}

//===----------------------------------------------------------------------===//
// Ranking
//===----------------------------------------------------------------------===//

namespace {
/// The places to look for a transformation's record, most specific first.
struct Level {
  bool SamePattern; ///< the pattern, or only the family
  bool SameArch;    ///< the arch, or any
  double Weight;
};
constexpr Level Levels[] = {
    {true, true, 1.0}, {false, true, 0.5}, {true, false, 0.25}, {false, false, 0.125}};

bool matches(const Entry &E, const Level &L, StringRef Pattern, StringRef Family, StringRef Arch) {
  if (L.SameArch && E.Arch != Arch)
    return false;
  if (L.SamePattern)
    return !Pattern.empty() && E.Pattern == Pattern;
  return !Family.empty() && E.Family == Family;
}

std::vector<const Entry *> entriesOf(ArrayRef<Entry> All, StringRef T, const Level &L,
                                     StringRef Pattern, StringRef Family, StringRef Arch) {
  std::vector<const Entry *> Out;
  for (const Entry &E : All)
    if (E.Transformation == T && matches(E, L, Pattern, Family, Arch))
      Out.push_back(&E);
  return Out;
}
} // namespace

std::vector<std::string> Experience::rank(ArrayRef<std::string> Candidates, StringRef Pattern,
                                          StringRef Family, StringRef Arch) const {
  struct Scored {
    size_t Index;
    int Tier; ///< 0 helped, 1 unknown, 2 never helped
    double Score;
  };
  std::vector<Scored> S;
  for (size_t I = 0; I < Candidates.size(); ++I) {
    Scored C{I, 1, 0};
    for (const Level &L : Levels) {
      auto Es = entriesOf(Entries, Candidates[I], L, Pattern, Family, Arch);
      if (Es.empty())
        continue;
      Tally T = tally(Es);
      if (T.Kept) {
        C.Tier = 0;
        // Higher first: the weighted log of the expected gain.
        C.Score = -L.Weight * std::log(std::max(T.ExpectedGain, 1e-9));
      } else {
        C.Tier = 2;
        // The less evidence against it, the earlier.
        C.Score = L.Weight * T.Tried;
      }
      break;
    }
    S.push_back(C);
  }
  llvm::stable_sort(S, [](const Scored &A, const Scored &B) {
    if (A.Tier != B.Tier)
      return A.Tier < B.Tier;
    return A.Score < B.Score;
  });
  std::vector<std::string> Out;
  for (const Scored &C : S)
    Out.push_back(Candidates[C.Index]);
  return Out;
}

std::vector<std::string> Experience::promptLines(StringRef Pattern, StringRef Family,
                                                 StringRef Arch, size_t Max) const {
  std::vector<std::string> Lines;
  std::set<std::string> Said;
  size_t Budget = Max;
  for (const Level &L : Levels) {
    if (!Budget)
      break;
    // The transformations with entries at this level, not said before.
    std::vector<std::string> Names;
    for (const Entry &E : Entries)
      if (matches(E, L, Pattern, Family, Arch) && !Said.count(E.Transformation) &&
          !llvm::is_contained(Names, E.Transformation))
        Names.push_back(E.Transformation);
    if (Names.empty())
      continue;
    std::vector<std::string> Ranked = rank(Names, L.SamePattern ? Pattern : "",
                                           L.SamePattern ? "" : Family, L.SameArch ? Arch : "");
    // rank() with an empty arch finds nothing at the arch levels and falls
    // to the any-arch ones; with one of pattern or family empty it looks
    // only at the other: both give exactly this level's entries.
    std::string Where = L.SamePattern ? ("this pattern (" + Pattern + ")").str()
                                      : ("kernels of the same family (" + Family + ")").str();
    std::string Items;
    std::set<std::string> Archs;
    for (const std::string &T : Ranked) {
      if (!Budget)
        break;
      --Budget;
      Said.insert(T);
      auto Es = entriesOf(Entries, T, L, Pattern, Family, Arch);
      for (const Entry *E : Es)
        Archs.insert(E->Arch);
      Items += (Items.empty() ? "" : "; ") + T + " " + tally(Es).describe();
    }
    std::string On = L.SameArch ? Arch.str() : "other targets (" + join(Archs, ", ") + ")";
    Lines.push_back("on " + Where + " and " + On + ": " + Items);
  }
  return Lines;
}

//===----------------------------------------------------------------------===//
// Listing
//===----------------------------------------------------------------------===//

std::vector<Summary> Experience::summaries() const {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const Entry *>> Groups;
  for (const Entry &E : Entries)
    Groups[{E.Pattern, E.Transformation, E.Arch}].push_back(&E);
  std::vector<Summary> Out;
  for (auto &[Key, Es] : Groups)
    Out.push_back({std::get<1>(Key), std::get<0>(Key), std::get<2>(Key), tally(Es)});
  return Out;
}

std::vector<const Entry *> Experience::select(StringRef What) const {
  std::vector<const Entry *> Out;
  for (const Entry &E : Entries)
    if (E.Transformation == What || E.Pattern == What || E.Family == What)
      Out.push_back(&E);
  return Out;
}

namespace {
std::string table(const std::vector<std::vector<std::string>> &Rows) {
  std::vector<size_t> Width;
  for (const auto &R : Rows)
    for (size_t I = 0; I < R.size(); ++I) {
      if (Width.size() <= I)
        Width.push_back(0);
      Width[I] = std::max(Width[I], R[I].size());
    }
  std::string Out;
  for (const auto &R : Rows) {
    std::string Line;
    for (size_t I = 0; I < R.size(); ++I) {
      Line += R[I];
      if (I + 1 < R.size())
        Line += std::string(Width[I] - R[I].size() + 2, ' ');
    }
    Out += StringRef(Line).rtrim().str() + "\n";
  }
  return Out;
}
} // namespace

std::string Experience::renderTable(ArrayRef<Summary> Rows) {
  std::vector<std::vector<std::string>> T = {{"TRANSFORMATION", "ARCH", "KEPT", "MEAN", "PATTERN"}};
  for (const Summary &S : Rows)
    T.push_back({S.Transformation, S.Arch, formatv("{0}/{1}", S.T.Kept, S.T.Tried).str(),
                 S.T.MeanGain > 0 ? gainText(S.T.MeanGain) : "-", S.Pattern});
  return table(T);
}

std::string Experience::renderEntries(ArrayRef<const Entry *> Rows) {
  std::vector<std::vector<std::string>> T = {
      {"TIME", "TRANSFORMATION", "ARCH", "VERDICT", "GAIN", "KERNEL", "PATTERN"}};
  for (const Entry *E : Rows) {
    std::string Kernel = E->Kernel;
    if (!E->File.empty())
      Kernel += " (" + E->File + ")";
    T.push_back({E->Time.empty() ? "-" : E->Time, E->Transformation,
                 E->Arch + (E->Gpu.empty() ? "" : " (" + E->Gpu + ")"), failureName(*E),
                 E->Gain > 0 ? gainText(E->Gain) : "-", Kernel.empty() ? "-" : Kernel, E->Pattern});
  }
  return table(T);
}

Expected<std::string> defaultPath() {
  if (auto P = sys::Process::GetEnv("FORGE_EXPERIENCE"); P && !P->empty()) {
    if (*P == "off")
      return makeError("the experience library is turned off (FORGE_EXPERIENCE=off); pass "
                       "--experience FILE");
    return *P;
  }
  std::string Root = userCacheDir();
  if (Root.empty())
    return makeError("no experience file: set FORGE_EXPERIENCE, XDG_CACHE_HOME or HOME, or "
                     "pass --experience FILE");
  SmallString<256> Out(Root);
  sys::path::append(Out, "experience.json");
  return std::string(Out);
}

} // namespace forge::experience
