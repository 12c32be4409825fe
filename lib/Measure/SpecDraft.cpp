//===- Measure/SpecDraft.cpp ----------------------------------------------===//
#include "forge/Measure/SpecDraft.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <map>

using namespace llvm;

namespace forge::measure {

std::string dtypeOfCType(StringRef Type) {
  Type = Type.trim();
  for (StringRef Q : {"const ", "volatile "})
    while (Type.consume_front(Q))
      Type = Type.trim();
  Type.consume_back("const");
  Type = Type.trim();
  return StringSwitch<std::string>(Type)
      .Cases({"float", "float2", "float4"}, "f32")
      .Cases({"double", "double2"}, "f64")
      .Cases({"__half", "half", "__half2"}, "f16")
      .Cases({"__nv_bfloat16", "nv_bfloat16", "__nv_bfloat162"}, "bf16")
      .Cases({"int", "int32_t", "int2", "int4"}, "i32")
      .Cases({"unsigned int", "unsigned", "uint32_t", "uint2", "uint4"}, "u32")
      .Cases({"long long", "long", "int64_t", "long long int"}, "i64")
      .Cases({"unsigned long long", "unsigned long", "uint64_t", "size_t"}, "u64")
      .Cases({"char", "signed char", "int8_t"}, "i8")
      .Cases({"unsigned char", "uint8_t"}, "u8")
      .Default("");
}

/// Elements per C++ value for the vector types (float4 is 4 f32).
static int lanesOf(StringRef Type) {
  Type = Type.trim();
  if (Type.ends_with("4"))
    return 4;
  if (Type.ends_with("2") && !Type.ends_with("bfloat162") && Type != "__half2")
    return 2;
  return 1;
}

static std::string pointee(StringRef PtrType) {
  StringRef T = PtrType.trim();
  T.consume_back("__restrict");
  T = T.trim();
  T.consume_back("const");
  T = T.trim();
  T.consume_back("*");
  T = T.trim();
  for (StringRef Q : {"const ", "volatile "})
    while (T.consume_front(Q))
      T = T.trim();
  T.consume_back("const");
  return T.trim().str();
}

static bool looksLikeSize(StringRef Name) {
  std::string L = Name.lower();
  return L == "n" || L == "size" || L == "count" || L == "len" || L == "length" ||
         StringRef(L).starts_with("num") || StringRef(L).ends_with("size") ||
         StringRef(L).ends_with("count");
}

Expected<Json> draftLaunchSpec(const frontend::FileIndex &Index, StringRef Kernel,
                               const DraftOptions &Opts) {
  std::vector<const frontend::KernelInfo *> Matches;
  for (const frontend::KernelInfo &K : Index.Kernels)
    if (K.Active && (K.Name == Kernel || K.QualifiedName == Kernel))
      Matches.push_back(&K);
  if (Matches.size() != 1) {
    std::vector<std::string> Names;
    for (const frontend::KernelInfo &K : Index.Kernels)
      if (K.Active)
        Names.push_back(K.QualifiedName);
    if (Matches.empty())
      return makeUsageError("no kernel named '{0}' in {1}; kernels: {2}", Kernel, Index.File,
                            Names.empty() ? "(none)" : join(Names, ", "));
    return makeUsageError("'{0}' names {1} kernels in {2}; use the qualified name: {3}", Kernel,
                          Matches.size(), Index.File, join(Names, ", "));
  }
  const frontend::KernelInfo &K = *Matches.front();
  const frontend::LaunchSiteInfo *Site = nullptr;
  for (const frontend::LaunchSiteInfo &L : Index.LaunchSites)
    if (L.Active && L.Kernel == K.QualifiedName && !L.DeviceSide) {
      Site = &L;
      break;
    }

  Json Spec = Json::object();
  Spec["kernel"] = K.QualifiedName;
  // Template arguments: the launch site's values, else the first instantiation.
  std::vector<std::string> TArgs;
  auto ArgText = [](const frontend::TemplateArgInfo &A) {
    return A.IntValue ? std::to_string(*A.IntValue)
                      : (!A.TypeValue.empty() ? A.TypeValue : A.Text);
  };
  if (K.IsTemplate) {
    if (Site && !Site->TemplateArgs.empty()) {
      for (const auto &A : Site->TemplateArgs)
        TArgs.push_back(ArgText(A));
    } else if (!K.Instantiations.empty()) {
      for (const auto &A : K.Instantiations.front().Args)
        TArgs.push_back(ArgText(A));
    }
    if (TArgs.empty())
      return makeUsageError("'{0}' is a template with no launch or instantiation in {1}; "
                            "write 'template_args' in the spec by hand",
                            K.QualifiedName, Index.File);
  }
  // Integer template parameters are tunables: the KernelIndex's candidates
  // for them, the launch's value as the default.
  Json TemplateTunables = Json::array();
  for (size_t I = 0; I < K.TemplateParams.size() && I < TArgs.size(); ++I) {
    const frontend::TemplateParamInfo &P = K.TemplateParams[I];
    int64_t Value;
    if (P.Kind != "non-type" || P.Name.empty() || P.Name == "N" || P.Name == "BLOCK" ||
        llvm::StringRef(TArgs[I]).getAsInteger(10, Value))
      continue;
    std::vector<int64_t> Values;
    for (const frontend::TunableInfo &T : Index.Tunables)
      if (T.Origin == "template" && T.Kernel == K.QualifiedName &&
          llvm::StringRef(T.Name).ends_with("::" + P.Name))
        Values = T.Candidates;
    if (Values.empty())
      Values = frontend::defaultCandidates("template-arg", Value);
    if (llvm::find(Values, Value) == Values.end())
      Values.push_back(Value);
    TemplateTunables.push_back({{"name", P.Name}, {"values", Values}, {"default", Value}});
    TArgs[I] = P.Name;
  }
  if (K.IsTemplate)
    Spec["template_args"] = TArgs;
  Spec["sizes"] = {{"N", Opts.ProblemSize}};
  // Type template parameters stand for the launch's template arguments.
  std::map<std::string, std::string> TypeArgs;
  for (size_t I = 0; I < K.TemplateParams.size() && I < TArgs.size(); ++I)
    if (K.TemplateParams[I].Kind == "type")
      TypeArgs[K.TemplateParams[I].Name] = TArgs[I];
  auto Resolve = [&](std::string T) {
    auto It = TypeArgs.find(T);
    return It == TypeArgs.end() ? T : It->second;
  };

  Json Buffers = Json::array(), Scalars = Json::array(), Args = Json::array();
  std::vector<std::string> ByteTerms;
  for (const frontend::ParamInfo &P : K.Params) {
    std::string Name = P.Name.empty() ? "arg" + std::to_string(Args.size()) : P.Name;
    Args.push_back(Name);
    if (P.Pointer) {
      std::string Elem = Resolve(pointee(P.Type));
      std::string DT = dtypeOfCType(Elem);
      if (DT.empty())
        DT = "f32"; // a template or struct type: the user picks
      int Lanes = lanesOf(Elem);
      std::string Count = Lanes == 1 ? "N" : "N * " + std::to_string(Lanes);
      std::string Role = P.ConstPointee || (P.Read && !P.Written) ? "in"
                         : (P.Written && !P.Read)                ? "out"
                                                                 : "inout";
      Json B = {{"name", Name}, {"dtype", DT}, {"count", Count}, {"role", Role}};
      bool Float = DT[0] == 'f' || DT == "bf16";
      if (Role != "out")
        B["init"] = Float ? Json{{"kind", "uniform"}, {"min", -1.0}, {"max", 1.0}}
                          : Json{{"kind", "uniform"}, {"min", 0}, {"max", 100}};
      Buffers.push_back(B);
      // Bytes that must move: each input read once, each output written
      // once, an inout both.
      std::string Size = std::to_string(Lanes * (DT == "f64" || DT == "i64" || DT == "u64" ? 8
                                                 : DT == "f16" || DT == "bf16"           ? 2
                                                 : DT == "i8" || DT == "u8"              ? 1
                                                                                         : 4));
      ByteTerms.push_back((Role == "inout" ? "2 * " : "") + std::string("N * ") + Size);
      continue;
    }
    std::string DT = dtypeOfCType(Resolve(StringRef(P.Type).trim().str()));
    if (DT.empty())
      return makeUsageError("parameter '{0}' of '{1}' has type '{2}', which a spec cannot "
                            "describe yet; write the spec by hand",
                            Name, K.QualifiedName, P.Type);
    Json S = {{"name", Name}, {"dtype", DT}};
    if (DT[0] == 'f' || DT == "bf16")
      S["value"] = 1.5;
    else
      S["value"] = looksLikeSize(Name) ? Json("N") : Json(1);
    Scalars.push_back(S);
  }
  if (!Buffers.empty())
    Spec["buffers"] = Buffers;
  if (!Scalars.empty())
    Spec["scalars"] = Scalars;
  Spec["args"] = Args;

  // Geometry: one thread per element unless the launch site says otherwise;
  // a block-size tunable of this kernel becomes the spec's tunable.
  const frontend::TunableInfo *BlockKnob = nullptr;
  for (const frontend::TunableInfo &T : Index.Tunables)
    if (T.Kernel == K.QualifiedName && (T.Role == "block" || T.Role == "launch_bounds") &&
        T.Current && !BlockKnob)
      BlockKnob = &T;
  int64_t BlockThreads = 256;
  if (Site && Site->Block.Dim3 && (*Site->Block.Dim3)[1] == 1 && (*Site->Block.Dim3)[2] == 1)
    BlockThreads = (*Site->Block.Dim3)[0];
  else if (Site && Site->Block.Value)
    BlockThreads = *Site->Block.Value;
  else if (BlockKnob)
    BlockThreads = *BlockKnob->Current;
  bool MultiDim = Site && Site->Block.Dim3 &&
                  ((*Site->Block.Dim3)[1] != 1 || (*Site->Block.Dim3)[2] != 1);
  if (MultiDim) {
    auto D = *Site->Block.Dim3;
    Spec["block"] = Json::array({std::to_string(D[0]), std::to_string(D[1]), std::to_string(D[2])});
    if (Site->Grid.Dim3) {
      auto G = *Site->Grid.Dim3;
      Spec["grid"] = Json::array({std::to_string(G[0]), std::to_string(G[1]), std::to_string(G[2])});
    } else {
      Spec["grid"] = Json::array({"ceil_div(N, " + std::to_string(D[0] * D[1] * D[2]) + ")"});
    }
  } else {
    Json Tunables = Json::array();
    Tunables.push_back({{"name", "BLOCK"},
                        {"values", BlockKnob ? BlockKnob->Candidates
                                             : frontend::defaultCandidates("block", BlockThreads)},
                        {"default", BlockThreads}});
    Spec["tunables"] = Tunables;
    Spec["constraints"] = Json::array({"BLOCK % 32 == 0", "BLOCK <= 1024"});
    Spec["block"] = "BLOCK";
    Spec["grid"] = "ceil_div(N, BLOCK)";
    // The default must be among the values.
    auto &Values = Spec["tunables"][0]["values"];
    bool Has = false;
    for (auto &V : Values)
      Has |= V.get<int64_t>() == BlockThreads;
    if (!Has)
      Values.push_back(BlockThreads);
  }
  for (Json &T : TemplateTunables)
    Spec["tunables"].push_back(T);
  if (Site && Site->SharedMem.Value && *Site->SharedMem.Value)
    Spec["shared_mem"] = std::to_string(*Site->SharedMem.Value);
  if (!ByteTerms.empty())
    Spec["bytes"] = join(ByteTerms, " + ");

  // The draft must be a valid spec.
  if (auto Parsed = parseLaunchSpec(Spec, "draft"); !Parsed)
    return makeError("internal error: the drafted spec is invalid: {0}",
                     toString(Parsed.takeError()));
  return Spec;
}

} // namespace forge::measure
