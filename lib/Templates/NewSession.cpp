//===- Templates/NewSession.cpp - The `forge-port new` driver -------------===//
#include "forge/Templates/NewSession.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Templates/Description.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace forge::templates {

Error refuseExisting(StringRef Path, bool Force) {
  if (!Force && sys::fs::exists(Path))
    return makeError("'{0}' exists; pass --force to overwrite it", Path);
  return Error::success();
}

std::string specPathFor(StringRef OutPath) {
  SmallString<256> P(OutPath);
  sys::path::replace_extension(P, ".json");
  return std::string(P);
}

Expected<NewResult> runNew(const NewSessionOptions &O) {
  NewResult Res;
  if (!O.RequestPath.empty()) {
    Expected<Json> J = readJsonFile(O.RequestPath);
    if (!J)
      return J.takeError();
    Expected<Request> R = requestFromJson(*J, O.RequestPath);
    if (!R)
      return R.takeError();
    Res.Req = std::move(*R);
  } else {
    Expected<ParsedDescription> P = parseDescriptionWithNotes(O.Description);
    if (!P)
      return P.takeError();
    Res.Req = std::move(P->Req);
    Res.ParseNotes = std::move(P->Notes);
    Res.Req.SMs = O.SMs;
  }
  if (!O.Name.empty())
    Res.Req.Name = O.Name;
  Expected<Instance> I = instantiate(Res.Req);
  if (!I)
    return makeError("{0}: {1}", describe(Res.Req), toString(I.takeError()));
  Res.Inst = std::move(*I);
  if (O.OutPath.empty())
    return Res;

  Res.OutPath = O.OutPath;
  Res.SpecOut = O.SpecOut.empty() ? specPathFor(O.OutPath) : O.SpecOut;
  if (Res.SpecOut == Res.OutPath)
    return makeError("the kernel and its spec would both be written to '{0}'", Res.OutPath);
  if (Error E = refuseExisting(Res.OutPath, O.Force))
    return std::move(E);
  if (Error E = refuseExisting(Res.SpecOut, O.Force))
    return std::move(E);
  if (Error E = writeFileAtomically(Res.OutPath, Res.Inst.Source))
    return std::move(E);
  if (Error E = writeFileAtomically(Res.SpecOut, Res.Inst.Spec.dump(2) + "\n"))
    return std::move(E);
  return Res;
}

Expected<std::vector<std::string>> writeAllSamples(StringRef Dir, int SMs, bool Force) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeError("cannot create '{0}': {1}", Dir, EC.message());
  std::vector<std::string> Names;
  for (const TemplateInfo &T : templateCatalog())
    for (Request R : T.Samples()) {
      R.SMs = SMs;
      Expected<Instance> I = T.Instantiate(R);
      if (!I)
        return makeError("sample '{0}' of template '{1}': {2}", R.Name, T.Name,
                         toString(I.takeError()));
      auto Path = [&](StringRef Suffix) {
        SmallString<256> P(Dir);
        sys::path::append(P, R.Name + Suffix);
        return std::string(P);
      };
      for (const auto &[File, Text] :
           {std::pair{Path(".cu"), I->Source}, std::pair{Path(".json"), I->Spec.dump(2) + "\n"},
            std::pair{Path(".request.json"), requestToJson(R).dump(2) + "\n"}}) {
        if (Error E = refuseExisting(File, Force))
          return std::move(E);
        if (Error E = writeFileAtomically(File, Text))
          return std::move(E);
      }
      Names.push_back(R.Name);
    }
  return Names;
}

Expected<std::optional<double>> slowerThanDefaults(StringRef ReportPath) {
  Expected<Json> Report = readJsonFile(ReportPath);
  if (!Report)
    return Report.takeError();
  auto Targets = Report->find("targets");
  if (Targets == Report->end() || !Targets->is_array() || Targets->empty())
    return std::nullopt;
  const Json &T = (*Targets)[0];
  if (!T.contains("speedup") || !T["speedup"].is_number() || !T.contains("noise") ||
      !T["noise"].is_number())
    return std::nullopt;
  double Speedup = T["speedup"].get<double>(), Noise = T["noise"].get<double>();
  if (Speedup > 0 && Speedup < 1 - Noise)
    return Speedup;
  return std::nullopt;
}

Error adoptTunedDefaults(StringRef ReportPath, StringRef SpecPath) {
  Expected<Json> Report = readJsonFile(ReportPath);
  if (!Report)
    return Report.takeError();
  Expected<Json> Spec = readJsonFile(SpecPath);
  if (!Spec)
    return Spec.takeError();
  auto Targets = Report->find("targets");
  if (Targets == Report->end() || !Targets->is_array() || Targets->empty() ||
      !(*Targets)[0].contains("values") || !(*Targets)[0]["values"].is_object())
    return makeError("{0} names no tuned values", ReportPath);
  const Json &Values = (*Targets)[0]["values"];
  auto Tunables = Spec->find("tunables");
  if (Tunables == Spec->end() || !Tunables->is_array())
    return Error::success();
  for (Json &T : *Tunables) {
    if (!T.is_object() || !T.contains("name") || !T["name"].is_string())
      continue;
    auto V = Values.find(T["name"].get<std::string>());
    if (V != Values.end() && V->is_number_integer())
      T["default"] = *V;
  }
  return writeFileAtomically(SpecPath, Spec->dump(2) + "\n");
}

} // namespace forge::templates
