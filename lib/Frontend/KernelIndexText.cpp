//===- Frontend/KernelIndexText.cpp - `forge-port list` as a table --------===//
#include "forge/Frontend/KernelIndexText.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace forge::frontend {

namespace {
std::string where(const Location &L) {
  return L.File + ":" + std::to_string(L.Line) + ":" + std::to_string(L.Column);
}

std::string valueText(const ValueText &V) {
  std::string S = V.Text.empty() ? "(default)" : V.Text;
  if (V.Dim3) {
    std::string D = "(" + std::to_string((*V.Dim3)[0]) + "," + std::to_string((*V.Dim3)[1]) +
                    "," + std::to_string((*V.Dim3)[2]) + ")";
    if (D != S)
      S += " = " + D;
  } else if (V.Value && std::to_string(*V.Value) != V.Text) {
    S += " = " + std::to_string(*V.Value);
  }
  return S;
}

std::string argsText(const std::vector<TemplateArgInfo> &Args) {
  std::vector<std::string> Parts;
  for (const TemplateArgInfo &A : Args) {
    std::string T = A.Text;
    if (A.IntValue && std::to_string(*A.IntValue) != A.Text && A.Text != "true" &&
        A.Text != "false")
      T += "=" + std::to_string(*A.IntValue);
    Parts.push_back(T);
  }
  return "<" + join(Parts, ", ") + ">";
}

} // namespace

void renderText(const FileIndex &I, raw_ostream &OS) {
  OS << I.File << " (read for " << I.Arch << "): " << I.Kernels.size() << " kernel"
     << (I.Kernels.size() == 1 ? "" : "s") << ", " << I.LaunchSites.size() << " launch site"
     << (I.LaunchSites.size() == 1 ? "" : "s") << ", " << I.Tunables.size() << " tunable"
     << (I.Tunables.size() == 1 ? "" : "s");
  if (I.Errors)
    OS << ", " << I.Errors << " parse error" << (I.Errors == 1 ? "" : "s");
  OS << "\n";

  if (!I.Kernels.empty())
    OS << "\nKernels\n";
  for (const KernelInfo &K : I.Kernels) {
    OS << "  " << left_justify(where(K.Loc), 28) << " " << K.QualifiedName;
    if (!K.Active) {
      OS << "  [inactive for " << I.Arch << "]\n";
      continue;
    }
    if (!K.TemplateParams.empty()) {
      std::vector<std::string> P;
      for (const TemplateParamInfo &T : K.TemplateParams)
        P.push_back((T.Kind == "type" ? "typename " : T.Type + " ") + T.Name);
      OS << " template<" << join(P, ", ") << ">";
    }
    OS << "\n      " << K.Signature << "\n";
    std::vector<std::string> Facts;
    if (K.MaxThreads)
      Facts.push_back("launch_bounds(" + K.MaxThreads->Text +
                      (K.MinBlocks ? ", " + K.MinBlocks->Text : "") + ")");
    if (K.StaticSharedBytes && *K.StaticSharedBytes)
      Facts.push_back("static shared " + std::to_string(*K.StaticSharedBytes) + " B");
    if (K.DynamicShared)
      Facts.push_back("dynamic shared");
    if (!K.Features.empty())
      Facts.push_back("features: " + join(K.Features, ", "));
    if (!K.InactiveFeatures.empty())
      Facts.push_back("inactive for " + I.Arch + ": " + join(K.InactiveFeatures, ", "));
    if (!Facts.empty())
      OS << "      " << join(Facts, "; ") << "\n";
    for (const KernelInstantiation &In : K.Instantiations) {
      OS << "      instantiated " << argsText(In.Args);
      if (In.Explicit)
        OS << " (explicit)";
      if (In.StaticSharedBytes && *In.StaticSharedBytes)
        OS << ", static shared " << *In.StaticSharedBytes << " B";
      OS << "\n";
    }
  }

  if (!I.LaunchSites.empty())
    OS << "\nLaunch sites\n";
  for (const LaunchSiteInfo &L : I.LaunchSites) {
    OS << "  " << left_justify(where(L.Loc), 28) << " " << L.Kernel;
    if (!L.TemplateArgs.empty())
      OS << argsText(L.TemplateArgs);
    OS << "  [" << L.Syntax;
    if (!L.Via.empty())
      OS << " via '" << L.Via << "'";
    if (L.DeviceSide)
      OS << ", device-side";
    if (!L.Resolved)
      OS << ", unresolved";
    if (!L.Active)
      OS << ", inactive for " << I.Arch;
    OS << "]";
    if (!L.Active) {
      OS << "\n";
      continue;
    }
    if (!L.EnclosingFunction.empty())
      OS << " in " << L.EnclosingFunction;
    OS << "\n      grid " << valueText(L.Grid) << "; block " << valueText(L.Block)
       << "; shared " << valueText(L.SharedMem) << "; stream " << valueText(L.Stream) << "\n";
    for (const LaunchInstantiation &LI : L.Instantiations)
      OS << "      in " << LI.Context << ": " << LI.Kernel << "; block "
         << valueText(LI.Block) << "\n";
  }

  if (!I.Tunables.empty())
    OS << "\nTunables\n";
  for (const TunableInfo &T : I.Tunables) {
    std::vector<std::string> C;
    for (int64_t V : T.Candidates)
      C.push_back(std::to_string(V));
    OS << "  " << left_justify(T.Name, 28) << " " << left_justify(T.Origin, 13) << " "
       << left_justify(T.Current ? std::to_string(*T.Current) : T.CurrentText, 8) << " "
       << where(T.Loc);
    if (!T.Kernel.empty())
      OS << "  (" << T.Role << " of " << T.Kernel << ")";
    OS << "\n      candidates: " << join(C, ", ") << "\n";
  }

  if (!I.InactiveRegions.empty())
    OS << "\nInactive for " << I.Arch << " (preprocessor)\n";
  for (const InactiveRegion &R : I.InactiveRegions) {
    OS << "  " << R.Begin.File << ":" << R.Begin.Line << "-" << R.EndLine;
    if (!R.Kernels.empty())
      OS << "  kernels: " << join(R.Kernels, ", ");
    if (!R.Launches.empty())
      OS << "  launches: " << join(R.Launches, ", ");
    if (!R.Features.empty())
      OS << "  features: " << join(R.Features, ", ");
    OS << "\n";
  }
}

} // namespace forge::frontend
