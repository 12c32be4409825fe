//===- Build/CompileResult.cpp --------------------------------------------===//
#include "forge/Build/CompileResult.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace forge::build {

StringRef severityName(DiagSeverity S) {
  switch (S) {
  case DiagSeverity::Note:
    return "note";
  case DiagSeverity::Remark:
    return "remark";
  case DiagSeverity::Warning:
    return "warning";
  case DiagSeverity::Error:
    return "error";
  case DiagSeverity::Fatal:
    return "fatal error";
  }
  return "error";
}

static std::optional<DiagSeverity> severityFromName(StringRef Name) {
  return StringSwitch<std::optional<DiagSeverity>>(Name)
      .Case("note", DiagSeverity::Note)
      .Case("remark", DiagSeverity::Remark)
      .Case("warning", DiagSeverity::Warning)
      .Case("error", DiagSeverity::Error)
      .Case("fatal error", DiagSeverity::Fatal)
      .Default(std::nullopt);
}

StringRef statusName(CompileStatus S) {
  switch (S) {
  case CompileStatus::Success:
    return "success";
  case CompileStatus::Failed:
    return "failed";
  case CompileStatus::TimedOut:
    return "timeout";
  case CompileStatus::Crashed:
    return "crashed";
  }
  return "failed";
}

static std::optional<CompileStatus> statusFromName(StringRef Name) {
  return StringSwitch<std::optional<CompileStatus>>(Name)
      .Case("success", CompileStatus::Success)
      .Case("failed", CompileStatus::Failed)
      .Case("timeout", CompileStatus::TimedOut)
      .Case("crashed", CompileStatus::Crashed)
      .Default(std::nullopt);
}

std::string CompilerDiagnostic::format() const {
  std::string Out;
  if (!File.empty()) {
    Out += File;
    if (Line) {
      Out += ":" + std::to_string(Line);
      if (Column)
        Out += ":" + std::to_string(Column);
    }
    Out += ": ";
  } else if (!PtxFile.empty()) {
    Out += PtxFile + ":" + std::to_string(PtxLine) + ": ";
  } else if (!Tool.empty()) {
    Out += Tool + ": ";
  }
  Out += severityName(Severity).str() + ": " + Message;
  return Out;
}

bool CompilerDiagnostic::operator==(const CompilerDiagnostic &O) const {
  return File == O.File && Line == O.Line && Column == O.Column &&
         Severity == O.Severity && Message == O.Message && Tool == O.Tool &&
         Code == O.Code && PtxFile == O.PtxFile && PtxLine == O.PtxLine;
}

bool KernelResources::operator==(const KernelResources &O) const {
  return MangledName == O.MangledName && DemangledName == O.DemangledName &&
         Arch == O.Arch && IsEntry == O.IsEntry && HasUsage == O.HasUsage &&
         Registers == O.Registers && Barriers == O.Barriers &&
         SharedMemBytes == O.SharedMemBytes &&
         ConstantMemBytes == O.ConstantMemBytes &&
         ConstantBanks == O.ConstantBanks &&
         StackFrameBytes == O.StackFrameBytes &&
         SpillStoreBytes == O.SpillStoreBytes &&
         SpillLoadBytes == O.SpillLoadBytes &&
         CumulativeStackBytes == O.CumulativeStackBytes &&
         CompileMillis == O.CompileMillis;
}

unsigned CompileResult::errorCount() const {
  unsigned N = 0;
  for (const CompilerDiagnostic &D : Diagnostics)
    N += D.isError();
  return N;
}

const KernelResources *CompileResult::findKernel(StringRef Name,
                                                 StringRef Arch) const {
  for (const KernelResources &K : Resources)
    if ((K.MangledName == Name || K.DemangledName == Name) &&
        (Arch.empty() || K.Arch == Arch))
      return &K;
  return nullptr;
}

Json toJson(const CompilerDiagnostic &D) {
  Json J = {{"file", D.File},
            {"line", D.Line},
            {"column", D.Column},
            {"severity", severityName(D.Severity).str()},
            {"message", D.Message},
            {"tool", D.Tool}};
  if (!D.Code.empty())
    J["code"] = D.Code;
  if (!D.PtxFile.empty()) {
    J["ptx_file"] = D.PtxFile;
    J["ptx_line"] = D.PtxLine;
  }
  return J;
}

Json toJson(const KernelResources &K) {
  Json Banks = Json::object();
  for (const auto &[Bank, Bytes] : K.ConstantBanks)
    Banks[std::to_string(Bank)] = Bytes;
  return {{"name", K.MangledName},
          {"demangled", K.DemangledName},
          {"arch", K.Arch},
          {"entry", K.IsEntry},
          {"has_usage", K.HasUsage},
          {"registers", K.Registers},
          {"barriers", K.Barriers},
          {"shared_bytes", K.SharedMemBytes},
          {"constant_bytes", K.ConstantMemBytes},
          {"constant_banks", Banks},
          {"stack_frame_bytes", K.StackFrameBytes},
          {"spill_store_bytes", K.SpillStoreBytes},
          {"spill_load_bytes", K.SpillLoadBytes},
          {"cumulative_stack_bytes", K.CumulativeStackBytes},
          {"compile_ms", K.CompileMillis}};
}

Json toJson(const CompileResult &R) {
  Json Diags = Json::array();
  for (const CompilerDiagnostic &D : R.Diagnostics)
    Diags.push_back(toJson(D));
  Json Res = Json::array();
  for (const KernelResources &K : R.Resources)
    Res.push_back(toJson(K));
  return {{"status", statusName(R.Status).str()},
          {"exit_code", R.ExitCode},
          {"seconds", R.Seconds},
          {"cache_hit", R.CacheHit},
          {"output", R.OutputPath},
          {"command", R.Command},
          {"diagnostics", Diags},
          {"resources", Res},
          {"log", R.Log}};
}

// The readers take what they find and use defaults for missing keys; a key
// of the wrong type is an error (nlohmann throws, caught here).
template <typename T>
static void get(const Json &J, const char *Key, T &Out) {
  auto It = J.find(Key);
  if (It != J.end() && !It->is_null())
    Out = It->template get<T>();
}

Expected<CompilerDiagnostic> diagnosticFromJson(const Json &J) {
  try {
    if (!J.is_object())
      return makeError("diagnostic: expected an object");
    CompilerDiagnostic D;
    get(J, "file", D.File);
    get(J, "line", D.Line);
    get(J, "column", D.Column);
    std::string Sev = "error";
    get(J, "severity", Sev);
    auto S = severityFromName(Sev);
    if (!S)
      return makeError("diagnostic: unknown severity '{0}'", Sev);
    D.Severity = *S;
    get(J, "message", D.Message);
    get(J, "tool", D.Tool);
    get(J, "code", D.Code);
    get(J, "ptx_file", D.PtxFile);
    get(J, "ptx_line", D.PtxLine);
    return D;
  } catch (const std::exception &E) {
    return makeError("diagnostic: {0}", E.what());
  }
}

Expected<KernelResources> resourcesFromJson(const Json &J) {
  try {
    if (!J.is_object())
      return makeError("resources: expected an object");
    KernelResources K;
    get(J, "name", K.MangledName);
    get(J, "demangled", K.DemangledName);
    get(J, "arch", K.Arch);
    get(J, "entry", K.IsEntry);
    get(J, "has_usage", K.HasUsage);
    get(J, "registers", K.Registers);
    get(J, "barriers", K.Barriers);
    get(J, "shared_bytes", K.SharedMemBytes);
    get(J, "constant_bytes", K.ConstantMemBytes);
    if (auto It = J.find("constant_banks"); It != J.end() && It->is_object())
      for (auto B = It->begin(); B != It->end(); ++B)
        K.ConstantBanks[std::stoul(B.key())] = B.value().get<uint64_t>();
    get(J, "stack_frame_bytes", K.StackFrameBytes);
    get(J, "spill_store_bytes", K.SpillStoreBytes);
    get(J, "spill_load_bytes", K.SpillLoadBytes);
    get(J, "cumulative_stack_bytes", K.CumulativeStackBytes);
    get(J, "compile_ms", K.CompileMillis);
    return K;
  } catch (const std::exception &E) {
    return makeError("resources: {0}", E.what());
  }
}

Expected<CompileResult> compileResultFromJson(const Json &J) {
  try {
    if (!J.is_object())
      return makeError("compile result: expected an object");
    CompileResult R;
    std::string Status = "failed";
    get(J, "status", Status);
    auto S = statusFromName(Status);
    if (!S)
      return makeError("compile result: unknown status '{0}'", Status);
    R.Status = *S;
    get(J, "exit_code", R.ExitCode);
    get(J, "seconds", R.Seconds);
    get(J, "cache_hit", R.CacheHit);
    get(J, "output", R.OutputPath);
    get(J, "command", R.Command);
    get(J, "log", R.Log);
    if (auto It = J.find("diagnostics"); It != J.end() && It->is_array())
      for (const Json &D : *It) {
        auto Diag = diagnosticFromJson(D);
        if (!Diag)
          return Diag.takeError();
        R.Diagnostics.push_back(std::move(*Diag));
      }
    if (auto It = J.find("resources"); It != J.end() && It->is_array())
      for (const Json &K : *It) {
        auto Res = resourcesFromJson(K);
        if (!Res)
          return Res.takeError();
        R.Resources.push_back(std::move(*Res));
      }
    return R;
  } catch (const std::exception &E) {
    return makeError("compile result: {0}", E.what());
  }
}

} // namespace forge::build
