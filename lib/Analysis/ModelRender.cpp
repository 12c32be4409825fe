//===- Analysis/ModelRender.cpp - The kernel model as text and JSON -------===//
#include "forge/Analysis/ModelRender.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace forge::analysis {

namespace {
std::string where(const KernelModel &M, const SourceSpan &S) {
  std::string Out = M.File + ":" + std::to_string(S.Line);
  if (S.EndLine > S.Line)
    Out += "-" + std::to_string(S.EndLine);
  return Out;
}

Json spanJson(const KernelModel &M, const SourceSpan &S) {
  Json J = {{"file", M.File}, {"line", S.Line}, {"column", S.Column}};
  if (S.EndLine > S.Line)
    J["end_line"] = S.EndLine;
  return J;
}

Json uniformJson(const UniformityInfo &U) {
  Json J = {{"level", uniformityName(U.Level)}};
  if (!U.Reason.empty())
    J["reason"] = U.Reason;
  return J;
}

std::string classText(const WarpBehaviour &W) {
  std::string S;
  switch (W.Class) {
  case AccessClass::Coalesced:
    S = "coalesced";
    if (W.LanesPerElement > 1)
      S += " (" + std::to_string(W.LanesPerElement) + " lanes share each element)";
    break;
  case AccessClass::Strided:
    S = "strided by " + W.StrideText;
    break;
  case AccessClass::Broadcast:
    S = "broadcast";
    break;
  case AccessClass::Transposed:
    S = "transposed: " + W.Reason + " (stride " + W.StrideText + ")";
    break;
  case AccessClass::DataDependent:
    S = "data-dependent: " + W.Reason;
    break;
  case AccessClass::Unknown:
    S = "unknown: " + W.Reason;
    break;
  }
  if (!W.Assumption.empty())
    S += " (assuming " + W.Assumption + ")";
  return S;
}

std::string footprintText(const Footprint &F) {
  if (F.Symbolic)
    return "footprint " + F.shape() + " (radius " + F.RadiusText + "), reuse " + F.PointsText;
  int64_t Volume = 1;
  for (const FootprintDim &D : F.Dims)
    Volume *= D.extent();
  std::string S = "footprint " + F.shape() + " (" +
                  (Volume != F.Points ? std::to_string(F.Points) + " points, " : "") + "radius " +
                  std::to_string(F.Radius) + ")";
  if (F.Reuse)
    S += ", reuse " + std::to_string(F.Reuse);
  if (F.Border != BorderMode::None)
    S += ", " + borderModeName(F.Border).str() + " border";
  return S;
}
} // namespace

std::string loopRange(const KernelModel &M, const Loop &L) {
  if (!L.hasInductionVariable() || !L.Start)
    return "the loop at line " + std::to_string(L.Loc.Line);
  std::string Start = M.render(*L.Start);
  if (L.StepK == StepKind::Geometric)
    return L.Var + " from " + Start + (L.Factor < 0 ? " halving" : " doubling") +
           (L.Factor == 2 || L.Factor == -2 ? "" : " (factor " + std::to_string(L.Factor) + ")");
  std::string Step = L.Step ? M.render(*L.Step) : "?";
  std::string Out;
  bool Up = L.Step && !(L.Step->constantValue() && *L.Step->constantValue() < 0);
  if (L.Bound && Up && (L.Cmp == CmpOp::LT || L.Cmp == CmpOp::LE))
    Out = L.Var + " in [" + Start + ", " + M.render(*L.Bound) + (L.Cmp == CmpOp::LT ? ")" : "]");
  else if (L.Bound && !Up && (L.Cmp == CmpOp::GT || L.Cmp == CmpOp::GE))
    Out = L.Var + " from " + Start + " down to " + M.render(*L.Bound);
  else
    Out = L.Var + " from " + Start + " while " + L.CondText;
  if (Step != "1")
    Out += " step " + Step;
  return Out;
}

std::string describeLoop(const KernelModel &M, const Loop &L) {
  std::string S = loopKindName(L.Kind).str();
  if (!L.hasInductionVariable())
    return S + ": " + L.Why;
  std::string Start = L.Start ? M.render(*L.Start) : "?";
  if (L.StepK == StepKind::Geometric) {
    int64_t F = L.Factor < 0 ? -L.Factor : L.Factor;
    S += " " + L.Var + " from " + Start + (L.Factor < 0 ? ", divided by " : ", multiplied by ") +
         std::to_string(F) + " while " + L.CondText;
  } else {
    std::string Step = L.Step ? M.render(*L.Step) : "?";
    bool Up = L.Step && !(L.Step->constantValue() && *L.Step->constantValue() < 0);
    if (L.Bound && Up && (L.Cmp == CmpOp::LT || L.Cmp == CmpOp::LE))
      S += " " + L.Var + " in [" + Start + ", " + M.render(*L.Bound) +
           (L.Cmp == CmpOp::LT ? ")" : "]");
    else if (L.Bound && !Up && (L.Cmp == CmpOp::GT || L.Cmp == CmpOp::GE))
      S += " " + L.Var + " from " + Start + " down to " + M.render(*L.Bound) +
           (L.Cmp == CmpOp::GT ? " (exclusive)" : "");
    else
      S += " " + L.Var + " from " + Start + " while " + L.CondText;
    S += ", step " + Step;
    if (L.StepK != StepKind::Constant)
      S += " (" + stepKindName(L.StepK).str() + ")";
  }
  if (!L.ExtraCondText.empty())
    S += ", while also " + L.ExtraCondText;
  if (L.TripCount)
    S += ", " + std::to_string(*L.TripCount) + " iterations";
  if (L.TripUniform.isThreadVarying())
    S += "; the trip count varies between threads (" + L.TripUniform.Reason + ")";
  if (L.HasSync)
    S += "; synchronises the block";
  return S;
}

std::string describeAccess(const KernelModel &M, const Access &A) {
  std::string K = A.Kind == AccessKind::Atomic ? "atomic " + atomicOpName(A.Atomic).str()
                                               : accessKindName(A.Kind).str();
  if (A.Space == MemorySpace::Shared)
    K += " shared";
  std::string S = K + " " + A.Text + " (" + A.ElementType + "): " + classText(A.Warp);
  if (A.Footprint >= 0)
    S += "; " + footprintText(M.Footprints[A.Footprint]);
  if (!A.G.empty())
    S += "; guarded by " + A.G.render();
  return S;
}

std::string renderText(const KernelModel &M) {
  std::string Out = where(M, {M.Loc.Line, M.Loc.Column, M.Loc.Line}) + ": kernel '" +
                    M.QualifiedName + "'" + (M.IsTemplate ? " (template pattern)" : "");
  if (M.Options.Block)
    Out += ", block " + std::to_string((*M.Options.Block)[0]) + "x" +
           std::to_string((*M.Options.Block)[1]) + "x" + std::to_string((*M.Options.Block)[2]);
  Out += "\n";
  if (!M.Loops.empty()) {
    Out += "  loops:\n";
    for (const Loop &L : M.Loops)
      Out += "    " + where(M, L.Loc) + ": " + describeLoop(M, L) + "\n";
  }
  if (!M.Accesses.empty()) {
    Out += "  accesses:\n";
    for (const Access &A : M.Accesses)
      Out += "    " + where(M, {A.Loc.Line, A.Loc.Column, A.Loc.Line}) + ": " +
             describeAccess(M, A) + "\n";
  }
  Out += "  recognised:";
  if (M.Patterns.empty())
    Out += " nothing\n";
  else
    Out += "\n";
  for (const Pattern &P : M.Patterns) {
    Out += "    " + where(M, P.Loc) + ": " + P.Summary + "\n";
    for (const std::string &D : P.Details)
      Out += "      - " + D + "\n";
  }
  if (!M.Notes.empty()) {
    Out += "  notes:\n";
    for (const Note &N : M.Notes)
      Out += "    " + where(M, {N.Loc.Line, N.Loc.Column, N.Loc.Line}) + ": " + N.Text + "\n";
  }
  Out += renderShape(M);
  Out += renderHostLaunches(M);
  return Out;
}

/// "  launched from the host:" and a line per launch: what it passes that
/// the host code fixes (values, relations, allocations).
std::string renderHostLaunches(const KernelModel &M) {
  std::string Out;
  for (const HostLaunch &L : M.HostLaunches) {
    std::vector<std::string> Facts;
    for (const HostArgument &A : L.Args) {
      std::string P = A.ParamName.empty() ? "#" + std::to_string(A.Param) : A.ParamName;
      if (!A.Count.empty())
        Facts.push_back(P + ": " + A.Count + " elements (" + A.AllocatedBy + ")");
      else if (!A.Relation.empty())
        Facts.push_back(P + " = " + A.Relation);
      else if (A.Value)
        Facts.push_back(P + " = " + std::to_string(*A.Value));
    }
    Out += "    line " + std::to_string(L.Line) + " in " + L.Function + ": " +
           (Facts.empty() ? std::string("nothing the host code fixes") : join(Facts, "; ")) +
           "\n";
  }
  return Out.empty() ? "" : "  launched from the host:\n" + Out;
}

std::string renderShape(const KernelModel &M) {
  const ProblemShape &S = M.Shape;
  std::string Out;
  static const char Dim[3] = {'x', 'y', 'z'};
  for (int D = 0; D < 3; ++D) {
    if (!S.Threads[D])
      continue;
    const ThreadExtent &X = *S.Threads[D];
    std::string N = M.render(X.Limit);
    if (X.Scale != IndexForm::constant(1))
      N = "ceil_div(" + N + ", " + M.render(X.Scale) + ")";
    Out += "    grid." + std::string(1, Dim[D]) + ": " + N + (X.PerBlock ? " blocks" : " threads") +
           (X.GridStride ? " (a grid-stride loop: any grid is correct)" : "") + ", from '" +
           X.From + "' (line " + std::to_string(X.Line) + ")\n";
  }
  for (const BufferExtent &E : S.Buffers) {
    if (E.Count)
      Out += "    " + E.Buffer + ": " + M.render(*E.Count) + " elements" +
             (E.Rounded ? " (rounded up)" : "") + ", from '" + E.From + "' (line " +
             std::to_string(E.Line) + ")" + (E.WrittenInPart ? "; written in part" : "") +
             (E.MayReadBefore ? "; may be read below its first element" : "") + "\n";
    else
      Out += "    " + E.Buffer + ": not bounded: " + E.Why + "\n";
  }
  return Out.empty() ? "" : "  problem:\n" + Out;
}

Json toJson(const KernelModel &M) {
  Json K = {{"name", M.Name},
            {"qualified_name", M.QualifiedName},
            {"location", spanJson(M, M.Loc)},
            {"template", M.IsTemplate}};
  if (M.Options.Block)
    K["block"] = Json::array({(*M.Options.Block)[0], (*M.Options.Block)[1], (*M.Options.Block)[2]});
  else
    K["block"] = nullptr;

  Json Loops = Json::array();
  for (const Loop &L : M.Loops) {
    Json J = {{"id", L.Id},
              {"kind", loopKindName(L.Kind)},
              {"location", spanJson(M, L.Loc)},
              {"parent", L.Parent},
              {"depth", L.Depth},
              {"text", describeLoop(M, L)}};
    if (L.hasInductionVariable()) {
      J["var"] = L.Var;
      J["start"] = L.Start ? Json(M.render(*L.Start)) : Json(nullptr);
      J["step"] = L.Step ? Json(M.render(*L.Step)) : Json(nullptr);
      J["step_kind"] = stepKindName(L.StepK);
      if (L.StepK == StepKind::Geometric)
        J["factor"] = L.Factor;
      J["bound"] = L.Bound ? Json(M.render(*L.Bound)) : Json(nullptr);
      J["compare"] = cmpOpSpelling(L.Cmp);
    } else {
      J["var"] = nullptr;
    }
    J["trip_count"] = L.TripCount ? Json(*L.TripCount) : Json(nullptr);
    J["trip_uniformity"] = uniformJson(L.TripUniform);
    J["syncs"] = L.HasSync;
    J["early_exit"] = L.HasEarlyExit;
    if (!L.Why.empty())
      J["why"] = L.Why;
    Loops.push_back(J);
  }
  K["loops"] = Loops;

  Json Accesses = Json::array();
  for (const Access &A : M.Accesses) {
    Json W = {{"class", accessClassName(A.Warp.Class)}};
    W["stride"] = A.Warp.Stride ? Json(M.render(*A.Warp.Stride)) : Json(nullptr);
    if (auto C = A.Warp.constantStride())
      W["stride_value"] = *C;
    W["lanes_per_element"] = A.Warp.LanesPerElement;
    if (!A.Warp.Assumption.empty())
      W["assumption"] = A.Warp.Assumption;
    if (!A.Warp.Reason.empty())
      W["reason"] = A.Warp.Reason;
    if (A.Warp.PairedAccess >= 0) {
      W["paired_access"] = A.Warp.PairedAccess;
      W["swapped_with"] = A.Warp.SwappedWith;
      if (A.Warp.FlatSplit) // the flat index and its divisor, t / d
        W["flat_split"] = {{"index", M.render(M.atoms()[*A.Warp.FlatSplit].Operands[0])},
                           {"divisor", M.render(M.atoms()[*A.Warp.FlatSplit].Operands[1])}};
    }
    Json G = Json::array();
    for (const GuardTerm &T : A.G.Terms) {
      Json GT = {{"text", T.Text},
                 {"origin", guardOriginName(T.Origin)},
                 {"uniformity", uniformityName(T.Uniform.Level)}};
      GT["form"] = T.Cmp ? Json(M.atoms().render(*T.Cmp)) : Json(nullptr);
      G.push_back(GT);
    }
    Json J = {{"id", A.Id},
              {"kind", accessKindName(A.Kind)},
              {"space", memorySpaceName(A.Space)},
              {"buffer", A.Buffer},
              {"param_index", A.ParamIndex},
              {"text", A.Text},
              {"location", spanJson(M, A.Loc)},
              {"element_type", A.ElementType},
              {"element_bytes", A.ElementBytes},
              {"index", {{"form", A.IndexText}, {"known", A.IndexKnown}, {"affine", A.Affine}}},
              {"warp", W},
              {"loops", A.Loops},
              {"guard", G}};
    if (A.Kind == AccessKind::Atomic)
      J["atomic_op"] = atomicOpName(A.Atomic);
    if (!A.Callee.empty())
      J["callee"] = A.Callee;
    if (!A.IndexWhy.empty())
      J["index"]["why"] = A.IndexWhy;
    J["footprint"] = A.Footprint >= 0 ? Json(A.Footprint) : Json(nullptr);
    if (!A.Notes.empty())
      J["notes"] = A.Notes;
    Accesses.push_back(J);
  }
  K["accesses"] = Accesses;

  Json Footprints = Json::array();
  for (const Footprint &F : M.Footprints) {
    Json Dims = Json::array();
    for (const FootprintDim &D : F.Dims)
      Dims.push_back(F.Symbolic ? Json{{"stride", D.Stride},
                                       {"lo", D.LoText},
                                       {"hi", D.HiText},
                                       {"thread_step", D.ThreadStep}}
                                : Json{{"stride", D.Stride},
                                       {"lo", D.Lo},
                                       {"hi", D.Hi},
                                       {"thread_step", D.ThreadStep}});
    Footprints.push_back({{"id", F.Id},
                          {"buffer", F.Buffer},
                          {"space", memorySpaceName(F.Space)},
                          {"accesses", F.Accesses},
                          {"shape", F.shape()},
                          {"dims", Dims},
                          {"points", F.Symbolic ? Json(F.PointsText) : Json(F.Points)},
                          {"reuse", F.Symbolic ? Json(F.PointsText) : Json(F.Reuse)},
                          {"radius", F.Symbolic ? Json(F.RadiusText) : Json(F.Radius)},
                          {"symbolic", F.Symbolic},
                          {"runtime", F.Runtime},
                          {"border", borderModeName(F.Border)},
                          {"from_loops", F.FromLoops},
                          {"output", F.Output}});
  }
  K["footprints"] = Footprints;

  Json Reductions = Json::array();
  for (const Reduction &R : M.Reductions) {
    Json J = {{"id", R.Id},
              {"kind", reductionKindName(R.Kind)},
              {"op", reductionOpName(R.Op)},
              {"scope", reductionScopeName(R.Scope)},
              {"target", R.Target},
              {"operand", R.Operand},
              {"operand_uniformity", uniformJson(R.OperandUniform)},
              {"location", spanJson(M, R.Loc)},
              {"update_lines", R.UpdateLines},
              {"floating_point", R.FloatingPoint}};
    if (R.Kind == ReductionKind::LoopCarried) {
      J["loops"] = R.Loops;
      J["init"] = R.Init;
    } else {
      J["access"] = R.Access;
    }
    if (!R.Companions.empty())
      J["companions"] = R.Companions;
    Reductions.push_back(J);
  }
  K["reductions"] = Reductions;

  Json Patterns = Json::array();
  for (const Pattern &P : M.Patterns) {
    Json Roles = Json::object();
    for (const auto &[Role, Name] : P.Roles)
      Roles[Role] = Name;
    Json J = {{"id", P.Id},
              {"kind", patternKindName(P.Kind)},
              {"location", spanJson(M, P.Loc)},
              {"summary", P.Summary},
              {"details", P.Details},
              {"roles", Roles},
              {"accesses", P.Accesses},
              {"loops", P.Loops}};
    if (P.Reduction >= 0)
      J["reduction"] = P.Reduction;
    if (P.Footprint >= 0)
      J["footprint"] = P.Footprint;
    if (P.Kind == PatternKind::Elementwise || P.Kind == PatternKind::Chunk)
      J["grid_stride"] = P.GridStride;
    if (P.Kind == PatternKind::Elementwise) {
      Json Uses = Json::array();
      for (const ValueUse &U : P.ThreadValues)
        Uses.push_back({{"text", U.Text}, {"line", U.Loc.Line}, {"why", U.Why}});
      J["thread_varying_values"] = Uses;
    }
    if (P.Kind == PatternKind::MatrixProduct) {
      J["transposed_a"] = P.TransposedA;
      J["transposed_b"] = P.TransposedB;
      J["loop_order"] = P.LoopOrder;
      J["tiled"] = P.Tiled;
      if (P.Staged) {
        Json St = {{"phase_loop", P.Staged->PhaseLoop},
                   {"tile", P.Staged->Tile},
                   {"k_range", P.Staged->KRangeText},
                   {"truncated", P.Staged->Truncated},
                   {"block", {P.Staged->Block[0], P.Staged->Block[1], P.Staged->Block[2]}}};
        for (const auto &[Key, O] : {std::pair<const char *, const StagedOperand *>{"a", &P.Staged->A},
                                     {"b", &P.Staged->B}})
          St[Key] = {{"tile", O->Tile},
                     {"source", M.Accesses[O->Source].Buffer},
                     {"index", M.render(O->Global)},
                     {"condition", O->Cond}};
        J["staged"] = St;
      } else if (!P.NotStagedWhy.empty()) {
        J["not_staged"] = P.NotStagedWhy;
      }
    }
    if (P.Kind == PatternKind::MultiPassRow)
      J["passes"] = P.Passes;
    if (P.Kind == PatternKind::Chunk)
      J["chunk"] = P.ChunkSize;
    Patterns.push_back(J);
  }
  K["patterns"] = Patterns;

  Json Notes = Json::array();
  for (const Note &N : M.Notes)
    Notes.push_back({{"line", N.Loc.Line}, {"text", N.Text}});
  K["notes"] = Notes;

  Json Problem = Json::object(), Buffers = Json::array(), Grid = Json::object();
  for (const BufferExtent &E : M.Shape.Buffers) {
    Json B = {{"buffer", E.Buffer}, {"param", E.ParamIndex}};
    if (E.Count) {
      B["count"] = M.render(*E.Count);
      B["from"] = E.From;
      B["line"] = E.Line;
      B["rounded"] = E.Rounded;
      B["written_in_part"] = E.WrittenInPart;
      B["may_read_before"] = E.MayReadBefore;
    } else {
      B["why"] = E.Why;
    }
    Buffers.push_back(B);
  }
  static const char *Dims[3] = {"x", "y", "z"};
  for (int D = 0; D < 3; ++D)
    if (const auto &X = M.Shape.Threads[D])
      Grid[Dims[D]] = {{"limit", M.render(X->Limit)}, {"scale", M.render(X->Scale)},
                       {"per_block", X->PerBlock}, {"grid_stride", X->GridStride},
                       {"from", X->From}, {"line", X->Line}};
  Problem["buffers"] = Buffers;
  Problem["grid"] = Grid;
  K["problem"] = Problem;
  Json Launches = Json::array();
  for (const HostLaunch &L : M.HostLaunches) {
    Json Args = Json::array();
    for (const HostArgument &A : L.Args) {
      Json J = {{"param", A.Param}, {"name", A.ParamName}, {"text", A.Text}};
      if (A.Value)
        J["value"] = *A.Value;
      if (!A.Relation.empty())
        J["relation"] = A.Relation;
      if (!A.Count.empty()) {
        J["count"] = A.Count;
        J["allocated_by"] = A.AllocatedBy;
      }
      Args.push_back(J);
    }
    Launches.push_back({{"line", L.Line}, {"function", L.Function}, {"args", Args}});
  }
  K["host_launches"] = Launches;
  return K;
}

} // namespace forge::analysis
