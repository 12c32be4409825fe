//===- Tune/SpecFromCode.cpp - Tuning a program with no spec ---------------===//
#include "forge/Tune/SpecFromCode.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Measure/SpecDraft.h"
#include "forge/Support/Error.h"
#include "forge/Tune/TuneSession.h"
#include "forge/Tune/WriteBack.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <map>
#include <set>

using namespace llvm;

namespace forge::tune {
namespace {

struct Candidate {
  std::string Name;
  std::vector<int64_t> Values;
  int64_t Default = 0;
  std::string From; ///< what the code holds ("the constant launch::BX (line 32)")
};

/// Name with every identifier of Replace replaced by its value.
std::string substituted(StringRef Text, const std::map<std::string, int64_t> &Replace) {
  std::string Out;
  for (size_t I = 0; I < Text.size();) {
    if (isAlpha(Text[I]) || Text[I] == '_') {
      size_t J = I;
      while (J < Text.size() && (isAlnum(Text[J]) || Text[J] == '_'))
        ++J;
      StringRef Id = Text.slice(I, J);
      auto It = Replace.find(Id.str());
      Out += It == Replace.end() ? Id.str() : std::to_string(It->second);
      I = J;
      continue;
    }
    Out += Text[I++];
  }
  return Out;
}

Json withValues(const Json &J, const std::map<std::string, int64_t> &Replace) {
  if (J.is_string())
    return substituted(J.get<std::string>(), Replace);
  if (J.is_array()) {
    Json A = Json::array();
    for (const Json &E : J)
      A.push_back(withValues(E, Replace));
    return A;
  }
  return J;
}

std::vector<int64_t> withDefault(std::vector<int64_t> V, int64_t D) {
  if (llvm::find(V, D) == V.end())
    V.push_back(D);
  return V;
}

} // namespace

Expected<CodeSpec> programSpecFromCode(const frontend::Toolchain &TC,
                                       const frontend::ParseOptions &Parse, StringRef File,
                                       StringRef Kernel, frontend::ParseDiagnostics &Diags) {
  auto Draft = measure::draftSpecForFile(TC, Parse, File, Kernel, {}, Diags);
  if (!Draft)
    return Draft.takeError();
  Json J = Draft->Spec;
  const frontend::FileIndex &Index = Draft->Index;
  std::string Qualified = J["kernel"].get<std::string>();
  CodeSpec Out;

  // The draft's own geometry tunables (BLOCK, BX, ...) are for its harness;
  // the program launches as it likes. They become their values, and the
  // template parameters the draft tunes stay candidates.
  std::map<std::string, int64_t> Geometry;
  std::vector<Candidate> Cands;
  std::set<std::string> TemplateParams;
  for (const frontend::KernelInfo &K : Index.Kernels)
    if (K.QualifiedName == Qualified)
      for (const frontend::TemplateParamInfo &P : K.TemplateParams)
        TemplateParams.insert(P.Name);
  for (const Json &T : J["tunables"]) {
    std::string Name = T["name"].get<std::string>();
    int64_t D = T["default"].get<int64_t>();
    if (TemplateParams.count(Name))
      Cands.push_back({Name, T["values"].get<std::vector<int64_t>>(), D,
                       "the template parameter " + Name});
    else
      Geometry[Name] = D;
  }
  // What the code holds for the kernel's launches (forge-port list).
  // A constant's name without its function ("launch::BX" is BX).
  auto ShortName = [](StringRef Name) {
    return Name.contains("::") ? Name.rsplit("::").second : Name;
  };
  auto IsConstant = [](const frontend::TunableInfo &T) {
    return T.Origin == "macro" || T.Origin == "constexpr" ||
           (T.Origin == "launch" && !StringRef(T.Name).contains('@'));
  };
  std::map<std::string, unsigned> ShortNames;
  for (const frontend::TunableInfo &T : Index.Tunables)
    if (T.Kernel == Qualified && IsConstant(T))
      ++ShortNames[ShortName(T.Name).str()];
  std::map<std::string, std::vector<const frontend::TunableInfo *>> ByOrigin;
  bool SetsTemplateArg = false;
  for (const frontend::TunableInfo &T : Index.Tunables) {
    if (T.Kernel != Qualified || !T.Current)
      continue;
    StringRef Short = ShortName(T.Name);
    if (IsConstant(T)) {
      if (ShortNames[Short.str()] != 1 || TemplateParams.count(Short.str()) ||
          llvm::any_of(Cands, [&](const Candidate &C) { return C.Name == Short; })) {
        Out.Notes.push_back(formatv("'{0}' is not tuned: another tunable of the file has the "
                                    "name '{1}'",
                                    T.Name, Short)
                                .str());
        continue;
      }
      Cands.push_back({Short.str(), withDefault(T.Candidates, *T.Current), *T.Current,
                       formatv("the {0} {1} (line {2})", T.Origin == "macro" ? "macro" : "constant",
                               T.Name, T.Loc.Line)
                           .str()});
      // The draft's geometry tunable of the same name is this constant.
      Geometry.erase(Short.str());
      SetsTemplateArg |= T.Role == "template-arg";
      continue;
    }
    ByOrigin[T.Origin == "launch" ? "block" : T.Origin].push_back(&T);
  }
  // The launch's template arguments are constants the code names: those
  // are tuned, not the template parameters they set.
  if (SetsTemplateArg)
    Cands.erase(std::remove_if(Cands.begin(), Cands.end(),
                               [&](const Candidate &C) {
                                 if (!TemplateParams.count(C.Name))
                                   return false;
                                 Out.Notes.push_back(formatv("{0} is set at the launch by a "
                                                             "constant of the code, which is "
                                                             "tuned instead",
                                                             C.Name)
                                                         .str());
                                 return true;
                               }),
                Cands.end());
  // A block size written at the launches, every unroll count, the launch
  // bounds: one tunable each, when the code holds one value for it.
  static const std::pair<const char *, const char *> Kinds[] = {
      {"block", "BLOCK"}, {"unroll", "UNROLL"}, {"launch_bounds", "LAUNCH_BOUNDS"}};
  for (const auto &[Origin, Name] : Kinds) {
    auto It = ByOrigin.find(Origin);
    if (It == ByOrigin.end() || llvm::any_of(Cands, [&](const Candidate &C) {
          return C.Name == Name;
        }))
      continue;
    int64_t V = *It->second.front()->Current;
    if (llvm::any_of(It->second, [&](const frontend::TunableInfo *T) { return *T->Current != V; })) {
      Out.Notes.push_back(formatv("{0} is not tuned: the kernel's {1} values differ between "
                                  "places",
                                  Name, Origin)
                              .str());
      continue;
    }
    Cands.push_back({Name, withDefault(It->second.front()->Candidates, V), V,
                     formatv("the kernel's {0} ({1})", Origin, V).str()});
  }

  // Each candidate must be one the write-back can write.
  auto Build = [&](const std::vector<Candidate> &Keep) -> Expected<measure::LaunchSpec> {
    Json S = J;
    Json Tunables = Json::array();
    for (const Candidate &C : Keep)
      Tunables.push_back({{"name", C.Name}, {"values", C.Values}, {"default", C.Default}});
    S["tunables"] = Tunables;
    S["constraints"] = Json::array();
    S["grid"] = withValues(J["grid"], Geometry);
    S["block"] = withValues(J["block"], Geometry);
    if (J.contains("bytes"))
      S["bytes"] = withValues(J["bytes"], Geometry);
    for (Json &B : S["buffers"])
      B["count"] = withValues(B["count"], Geometry);
    Out.SpecJson = S;
    return measure::parseLaunchSpec(S, File.str() + " (drafted)");
  };
  auto All = Build(Cands);
  if (!All)
    return All.takeError();
  BindOptions BO = bindOptionsFor(*All);
  std::vector<Candidate> Kept;
  for (const Candidate &C : Cands) {
    auto B = bindTunables(Index, Qualified, {C.Name}, BO);
    if (!B) {
      std::string Why = toString(B.takeError());
      Out.Notes.push_back(formatv("{0} ({1}) is not tuned: {2}", C.Name, C.From,
                                  StringRef(Why).split('\n').first)
                              .str());
      continue;
    }
    Out.Notes.push_back(formatv("{0}: {1}, values {2}", C.Name, C.From,
                                join(map_range(C.Values, [](int64_t V) { return std::to_string(V); }),
                                     ", "))
                            .str());
    Kept.push_back(C);
  }
  if (Kept.empty())
    return makeUsageError("nothing in {0} tunes '{1}' that the write-back can write{2}{3}; write "
                          "a spec (forge-port spec) naming the tunables",
                          File, Qualified, Out.Notes.empty() ? "" : ": ",
                          join(Out.Notes, "; "));
  auto Spec = Build(Kept);
  if (!Spec)
    return Spec.takeError();
  Out.Spec = std::move(*Spec);
  return Out;
}

} // namespace forge::tune
