//===- passes/optimize/ScanTemplateRule.cpp - scan-template ---------------===//
///
/// \file
/// A kernel that computes a prefix scan (the model's PatternKind::Scan: a
/// running value stored as it goes, `acc += x[i]; y[i] = acc;`, or a block
/// scan in shared memory over doubling offsets) is replaced by the
/// library-class scan of lib/Templates (Scan.h): one pass, a decoupled
/// look-back over tiles, 16-byte loads. The replacement keeps the kernel's
/// declaration as written (its name, parameters and attributes), so every
/// launch stays as it is; parameters the template does not need (a chained
/// scan's ticket and flags) are left unused.
///
/// What the model gives: the output (the stored buffer), the input (the one
/// pointer parameter of the same element type that is only read; the output
/// itself for an in-place scan), the element count (the one integer
/// parameter, or the one the store's guard names), the operator and the
/// order (a serial scan's updates come before or after its store). A shared
/// scan tells neither: the rule proposes + in both orders, and the
/// validation against the original on fresh inputs decides, as it does for
/// every proposal. See docs/passes/scan-template.md.
///
//===----------------------------------------------------------------------===//
#include "ElementwiseKernel.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Templates/Scan.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;
namespace tp = forge::templates;

namespace forge::passes {
namespace {

constexpr const char *RuleName = "scan-template";

/// The pointee of a pointer parameter, unqualified; null for others.
const Type *pointeeOf(const ParmVarDecl *P) {
  QualType T = P->getType();
  if (!T->isPointerType())
    return nullptr;
  return T->getPointeeType().getCanonicalType().getUnqualifiedType().getTypePtr();
}

class ScanTemplateRule : public ExpertRule {
public:
  StringRef name() const override { return RuleName; }

  RuleOutcome propose(const RuleInput &In) override {
    const FunctionDecl &K = In.Kernel;
    if (K.isTemplated())
      return notApplicable("the kernel is a template: the scan template is instantiated for one "
                           "element type");
    const CompoundStmt *Body = kernelBody(K);
    if (!Body)
      return notApplicable("the kernel has no body");
    auto M = an::analyzeKernel(In.Ctx, K, an::AnalysisOptions{});
    if (!M)
      return notApplicable(toString(M.takeError()));
    auto Scans = M->patterns(an::PatternKind::Scan);
    if (Scans.empty())
      return notApplicable("no scan recognised: no running value stored as it goes "
                           "('acc += x[i]; y[i] = acc;') and no shared-memory scan over doubling "
                           "offsets");
    // A serial scan names its output, operator and order. It scans the whole
    // array when one thread walks it (its store is the same for every lane);
    // a running value per thread over its own chunk is a segmented scan,
    // unless a block scan in shared memory joins the chunks.
    const an::Pattern *Serial = nullptr, *Shared = nullptr;
    for (const an::Pattern *P : Scans)
      (P->role("acc").str().empty() ? Shared : Serial) = P;
    bool Triangle = Serial && Serial->role("form") == "triangle";
    if (Serial && !Shared && !Triangle) {
      const an::Access &St = M->Accesses[Serial->Accesses.front()];
      if (St.Warp.Class != an::AccessClass::Broadcast)
        return notApplicable("the running value '" + Serial->role("acc").str() +
                             "' restarts in every thread (the store " + St.Text + " is " +
                             an::accessClassName(St.Warp.Class).str() +
                             ", not one thread's walk over the array) and no block scan joins "
                             "the threads' chunks: a segmented scan, not a scan of the array");
    }

    // The output: the global buffer the kernel stores to.
    std::set<std::string> Stored;
    for (const an::Access &A : M->Accesses)
      if (A.Space == an::MemorySpace::Global && A.writes() && !A.Buffer.empty())
        Stored.insert(A.Buffer);
    std::string OutName = Serial ? Serial->role("out").str() : "";
    if (OutName.empty()) {
      // Of the buffers written (a chained scan also writes its flags), the
      // one whose element type a read-only pointer (or itself) gives.
      std::vector<std::string> Candidates;
      for (const std::string &B : Stored) {
        const ParmVarDecl *P = nullptr;
        for (const ParmVarDecl *Q : K.parameters())
          if (Q->getName() == B)
            P = Q;
        if (!P || !pointeeOf(P))
          continue;
        bool Fed = any_of(M->accessesTo(B), [](const an::Access *A) {
          return A->Kind == an::AccessKind::Load;
        });
        for (const ParmVarDecl *Q : K.parameters())
          if (Q != P && pointeeOf(Q) == pointeeOf(P) && !Stored.count(Q->getName().str()) &&
              !M->accessesTo(Q->getName()).empty())
            Fed = true;
        if (Fed)
          Candidates.push_back(B);
      }
      if (Candidates.size() != 1)
        return notApplicable(formatv("the kernel writes {0} global buffers that could be a "
                                     "scan's output ({1} of them read or fed by a read-only "
                                     "pointer of their type); a scan writes one",
                                     Stored.size(), Candidates.size())
                                 .str());
      OutName = Candidates.front();
    }
    const ParmVarDecl *Out = nullptr;
    for (const ParmVarDecl *P : K.parameters())
      if (P->getName() == OutName)
        Out = P;
    if (!Out || !pointeeOf(Out))
      return notApplicable("the scan's output '" + OutName + "' is not a pointer parameter");
    for (const an::Access *A : M->accessesTo(OutName))
      if (A->Kind == an::AccessKind::Atomic)
        return notApplicable("'" + OutName + "' is updated with atomics, not stored");
    QualType Elem = Out->getType()->getPointeeType().getUnqualifiedType();
    const Type *ET = Elem.getCanonicalType().getTypePtr();
    if (Elem.isVolatileQualified() || !ET->isArithmeticType() || ET->isBooleanType() ||
        In.Ctx.getTypeSize(Elem) != 32)
      return notApplicable("the elements are '" + Elem.getAsString() +
                           "': the scan template takes 4-byte arithmetic types (its status word "
                           "packs a value with its flag)");

    // The input: the one other pointer of the element type that is only read.
    std::vector<const ParmVarDecl *> Inputs;
    for (const ParmVarDecl *P : K.parameters()) {
      if (P == Out || pointeeOf(P) != pointeeOf(Out))
        continue;
      if (Stored.count(P->getName().str()))
        return notApplicable("'" + P->getName().str() + "' is written too: a scan reads one "
                             "buffer and writes one");
      auto Uses = M->accessesTo(P->getName());
      if (!Uses.empty())
        Inputs.push_back(P);
    }
    const ParmVarDecl *Src = nullptr;
    if (Inputs.size() == 1)
      Src = Inputs.front();
    else if (Inputs.empty() &&
             any_of(M->accessesTo(OutName), [](const an::Access *A) { return A->reads(); }))
      Src = Out; // in place
    else
      return notApplicable(
          Inputs.empty()
              ? "no input: no pointer parameter of the element type is read"
              : formatv("{0} pointer parameters of the element type are read; a scan reads one",
                        Inputs.size())
                    .str());

    // The count: the one integer parameter, or the one the store's guard names.
    std::vector<const ParmVarDecl *> Ints;
    for (const ParmVarDecl *P : K.parameters())
      if (P->getType()->isIntegerType() && !P->getType()->isBooleanType())
        Ints.push_back(P);
    const ParmVarDecl *Count = Ints.size() == 1 ? Ints.front() : nullptr;
    if (!Count && Ints.size() > 1) {
      std::vector<const ParmVarDecl *> Named;
      for (const ParmVarDecl *P : Ints)
        for (const an::Access *A : M->accessesTo(OutName))
          if (A->writes() && StringRef(A->G.render()).contains(P->getName()) &&
              !is_contained(Named, P))
            Named.push_back(P);
      if (Named.size() == 1)
        Count = Named.front();
    }
    if (!Count)
      return notApplicable(Ints.empty() ? "no integer parameter gives the element count"
                                        : "the element count is ambiguous: " +
                                              std::to_string(Ints.size()) +
                                              " integer parameters, and the store's guard does "
                                              "not name exactly one");
    for (const ParmVarDecl *P : K.parameters())
      if (P->getName().starts_with("fs_"))
        return notApplicable("the parameter '" + P->getName().str() +
                             "' uses the template's prefix fs_");

    // Operator and order.
    tp::ScanOp Op = tp::ScanOp::Add;
    std::vector<tp::ScanOrder> Orders = {tp::ScanOrder::Inclusive, tp::ScanOrder::Exclusive};
    if (Serial) {
      std::string O = Serial->role("op").str();
      if (O == "max")
        Op = tp::ScanOp::Max;
      else if (O == "min")
        Op = tp::ScanOp::Min;
      else if (O != "add")
        return notApplicable("the serial scan combines with '" + O +
                             "'; the template takes +, max and min");
      Orders = {Serial->role("order").str() == "exclusive" ? tp::ScanOrder::Exclusive
                                                        : tp::ScanOrder::Inclusive};
    }

    // The replacement: the declaration as written, the template's body.
    auto Site = kernelBodySite(In, K, *Body);
    if (!Site)
      return notApplicable(toString(Site.takeError()));
    const unsigned LS = Site->DeclLine;
    std::string Tag = K.getNameAsString();
    // The template's state is declared once per kernel name.
    if (!In.Ctx.getTranslationUnitDecl()
             ->lookup(DeclarationName(&In.Ctx.Idents.get("forge_scan_status_" + Tag)))
             .empty())
      return notApplicable("the file already declares the scan template's state for '" + Tag +
                           "'");

    tp::ScanParams SP;
    SP.Head = In.Source.slice(Site->Head, Site->Open).rtrim().str();
    SP.Tag = Tag;
    SP.In = Src->getName().str();
    SP.Out = Out->getName().str();
    SP.Count = Count->getName().str();
    SP.ElementType = Elem.getAsString();
    SP.FloatingPoint = ET->isRealFloatingType();
    SP.Signed = ET->isSignedIntegerType();
    SP.Op = Op;

    // The template takes tiles from a ticket, so any grid computes the same
    // scan: a few waves of resident blocks, whatever the original launched
    // (one block for a serial scan, one block per chunk for a chained one).
    std::optional<agent::SpecChange> Capped;
    if (std::optional<WavesCap> Cap = gridWavesCap(In)) {
      agent::SpecChange S;
      S.Geometry["grid.x"] = Cap->Expr;
      for (const char *D : {"grid.y", "grid.z"})
        if (auto It = In.Request.Geometry.find(D);
            It != In.Request.Geometry.end() && It->second != "1")
          S.Geometry[D] = "1";
      if (!In.Request.Tunables.count("FORGE_GRID_WAVES"))
        S.NewTunables["FORGE_GRID_WAVES"] = {1, 2, 4, 8};
      S.Justification =
          formatv("the scan template hands out its tiles from a ticket counter, so every grid "
                  "scans every element once; the grid is FORGE_GRID_WAVES waves of {0} SMs x {1} "
                  "blocks",
                  Cap->SMs, Cap->BlocksPerSM)
              .str();
      Capped = std::move(S);
    }
    struct Variant {
      tp::ScanOrder Order;
      int Items;
      bool Cap;
    };
    std::vector<Variant> Variants;
    for (tp::ScanOrder Order : Orders) {
      if (Capped)
        Variants.push_back({Order, 16, true});
      Variants.push_back({Order, 16, false});
      if (Orders.size() == 1 || Order == tp::ScanOrder::Inclusive)
        Variants.push_back({Order, 8, false});
    }
    RuleOutcome Outcome;
    for (const Variant &V : Variants) {
      SP.Order = V.Order;
      SP.Items = V.Items;
      if (Error E = tp::checkScanParams(SP))
        return notApplicable(toString(std::move(E)));
      std::vector<SourceEdit> Edits = {{LS, 0, tp::scanPreamble(SP)},
                                       {Site->Head, Site->Close + 1 - Site->Head, tp::scanKernel(SP)}};
      std::string Summary =
          formatv("{0} scan ({1}) of {2} into {3} as one pass with a decoupled look-back, {4} "
                  "elements per thread{5}",
                  tp::scanOrderName(V.Order), tp::scanOpName(Op), SP.In, SP.Out, V.Items,
                  V.Cap ? ", a grid of resident waves" : "")
              .str();
      std::string Rationale =
          formatv("The kernel computes a prefix scan ({0}). The scan template hands out tiles of "
                  "blockDim * {1} elements in the order blocks ask for them; a warp reads its "
                  "part in coalesced rounds of 4 elements a lane (16-byte loads and stores when "
                  "{2} and {3} are aligned), scans them in registers and with shuffles, the "
                  "block combines its warps through shared memory, and the tile's prefix comes "
                  "from a decoupled look-back: the first warp reads 128 predecessors' published "
                  "aggregates at a time and stops at the nearest inclusive prefix, so no tile "
                  "waits for its predecessor's whole chain. Memory traffic is one read and one "
                  "write of each element. The declaration and every launch stay as written; the "
                  "template is correct for any grid and block. Its state is __device__ words of "
                  "this file: launches of the kernel must not overlap in time (one stream), and "
                  "a launch of more than {4} tiles traps.",
                  Serial ? Serial->Summary : Scans.front()->Summary, V.Items, SP.In, SP.Out,
                  SP.MaxTiles)
              .str();
      if (SP.FloatingPoint && Op == tp::ScanOp::Add)
        Rationale += " The floating-point sums are re-associated (per thread, warp, block and "
                     "tile), so results differ from the original's in the last bits.";
      if (Orders.size() > 1)
        Rationale += " A shared-memory scan does not show its order or operator: the rule "
                     "proposes + in both orders and the check against the original decides.";
      std::optional<agent::SpecChange> Spec;
      if (V.Cap)
        Spec = Capped;
      RuleOutcome One = proposeEdits(In, RuleName, Summary, Rationale, Edits, Spec);
      if (One.Proposals.empty())
        return One;
      for (agent::Proposal &P : One.Proposals)
        Outcome.Proposals.push_back(std::move(P));
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<ExpertRule> createScanTemplateRule() {
  return std::make_unique<ScanTemplateRule>();
}

} // namespace forge::passes
