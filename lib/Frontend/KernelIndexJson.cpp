//===- Frontend/KernelIndexJson.cpp ---------------------------------------===//
#include "forge/Frontend/KernelIndexJson.h"

namespace forge::frontend {

static Json toJson(const Location &L) {
  return Json{{"file", L.File}, {"line", L.Line}, {"column", L.Column}};
}

static Json toJson(const ValueText &V) {
  Json J = {{"text", V.Text}};
  if (V.Dim3)
    J["value"] = Json::array({(*V.Dim3)[0], (*V.Dim3)[1], (*V.Dim3)[2]});
  else if (V.Value)
    J["value"] = *V.Value;
  else
    J["value"] = nullptr;
  return J;
}

static Json toJson(const std::optional<ValueText> &V) {
  if (!V)
    return nullptr;
  if (V->Value)
    return *V->Value;
  return V->Text;
}

static Json argsJson(const std::vector<TemplateArgInfo> &Args) {
  Json A = Json::array();
  for (const TemplateArgInfo &T : Args) {
    Json J = {{"text", T.Text}};
    if (T.IntValue)
      J["value"] = *T.IntValue;
    else if (!T.TypeValue.empty())
      J["value"] = T.TypeValue;
    else
      J["value"] = nullptr;
    A.push_back(J);
  }
  return A;
}

/// "read", "write", "readwrite" or "none" for a pointer; null otherwise.
static Json accessJson(const ParamInfo &P) {
  if (!P.Pointer)
    return nullptr;
  if (P.Read && P.Written)
    return "readwrite";
  return P.Written ? "write" : P.Read ? "read" : "none";
}

static Json strings(const std::set<std::string> &S) {
  Json A = Json::array();
  for (const std::string &X : S)
    A.push_back(X);
  return A;
}

Json toJson(const FileIndex &Index) {
  Json Kernels = Json::array();
  for (const KernelInfo &K : Index.Kernels) {
    Json TP = Json::array();
    for (const TemplateParamInfo &P : K.TemplateParams) {
      Json J = {{"name", P.Name}, {"kind", P.Kind}, {"type", P.Type}};
      if (!P.Default.empty())
        J["default"] = P.Default;
      TP.push_back(J);
    }
    Json Params = Json::array();
    for (const ParamInfo &P : K.Params)
      Params.push_back({{"name", P.Name},
                        {"type", P.Type},
                        {"pointer", P.Pointer},
                        {"const_pointee", P.ConstPointee},
                        {"restrict", P.Restrict},
                        {"access", accessJson(P)}});
    Json Insts = Json::array();
    for (const KernelInstantiation &I : K.Instantiations) {
      Json J = {{"template_args", argsJson(I.Args)}, {"explicit", I.Explicit}};
      J["static_shared_bytes"] =
          I.StaticSharedBytes ? Json(*I.StaticSharedBytes) : Json(nullptr);
      Insts.push_back(J);
    }
    Json LB = nullptr;
    if (K.MaxThreads) {
      LB = {{"max_threads", toJson(K.MaxThreads)}, {"min_blocks", toJson(K.MinBlocks)}};
      if (K.MaxBlocksPerCluster)
        LB["max_blocks_per_cluster"] = toJson(K.MaxBlocksPerCluster);
    }
    Json KJ = {
        {"name", K.Name},
        {"qualified_name", K.QualifiedName},
        {"location", toJson(K.Loc)},
        {"signature", K.Signature},
        {"active", K.Active},
        {"is_template", K.IsTemplate},
        {"extern_c", K.ExternC},
        {"template_params", TP},
        {"params", Params},
        {"launch_bounds", LB},
        {"shared_memory",
         {{"static_bytes", K.StaticSharedBytes ? Json(*K.StaticSharedBytes) : Json(nullptr)},
          {"dynamic", K.DynamicShared}}},
        {"features", strings(K.Features)},
        {"inactive_features", strings(K.InactiveFeatures)},
        {"instantiations", Insts},
    };
    Kernels.push_back(KJ);
  }

  Json Launches = Json::array();
  for (const LaunchSiteInfo &L : Index.LaunchSites) {
    Json Insts = Json::array();
    for (const LaunchInstantiation &I : L.Instantiations)
      Insts.push_back({{"context", I.Context},
                       {"kernel", I.Kernel},
                       {"template_args", argsJson(I.TemplateArgs)},
                       {"grid", toJson(I.Grid)},
                       {"block", toJson(I.Block)},
                       {"shared_mem", toJson(I.SharedMem)}});
    Json J = {
        {"kernel", L.Kernel},
        {"resolved", L.Resolved},
        {"location", toJson(L.Loc)},
        {"syntax", L.Syntax},
        {"callee", L.Callee},
        {"template_args", argsJson(L.TemplateArgs)},
        {"grid", toJson(L.Grid)},
        {"block", toJson(L.Block)},
        {"shared_mem", toJson(L.SharedMem)},
        {"stream", toJson(L.Stream)},
        {"enclosing_function", L.EnclosingFunction},
        {"in_template", L.InTemplate},
        {"device_side", L.DeviceSide},
        {"active", L.Active},
        {"instantiations", Insts},
    };
    if (!L.Via.empty())
      J["via"] = L.Via;
    Launches.push_back(J);
  }

  Json Tunables = Json::array();
  for (const TunableInfo &T : Index.Tunables) {
    Json Used = Json::array();
    for (const Location &U : T.UsedAt)
      Used.push_back(toJson(U));
    Json J = {{"name", T.Name},
              {"origin", T.Origin},
              {"kernel", T.Kernel},
              {"location", toJson(T.Loc)},
              {"current", T.Current ? Json(*T.Current) : Json(nullptr)},
              {"current_text", T.CurrentText},
              {"candidates", T.Candidates},
              {"role", T.Role},
              {"used_at", Used}};
    Tunables.push_back(J);
  }

  Json Regions = Json::array();
  for (const InactiveRegion &R : Index.InactiveRegions) {
    Json Ks = Json::array(), Ls = Json::array();
    for (const std::string &K : R.Kernels)
      Ks.push_back(K);
    for (const std::string &L : R.Launches)
      Ls.push_back(L);
    Regions.push_back({{"location", toJson(R.Begin)},
                       {"end_line", R.EndLine},
                       {"features", strings(R.Features)},
                       {"kernels", Ks},
                       {"launches", Ls}});
  }

  return Json{{"file", Index.File},         {"arch", Index.Arch},
              {"errors", Index.Errors},     {"kernels", Kernels},
              {"launch_sites", Launches},   {"tunables", Tunables},
              {"inactive_regions", Regions}};
}

} // namespace forge::frontend
