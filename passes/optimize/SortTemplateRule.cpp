//===- passes/optimize/SortTemplateRule.cpp - sort-template ---------------===//
///
/// \file
/// A kernel that sorts a buffer in place is replaced by the radix sort of
/// lib/Templates (RadixSort.h): a onesweep-style LSD sort, one launch, any
/// grid. A sort is not something the AST can prove of a hand-written
/// kernel, so the rule recognises the kernel by its contract and lets the
/// check against the original decide, as the issue's "recognised by its
/// behaviour" asks: the launch spec says one buffer of 4-byte keys is
/// changed and compared, scratch buffers (compared with an unbounded
/// tolerance) are free to hold anything, and one buffer of scratch has room
/// for the keys; the proposals (ascending and descending) are then run
/// against the original on fresh random inputs, and only a kernel that
/// sorts passes.
///
/// The replacement keeps the kernel's declaration, so every launch stays as
/// written: its body calls the template's kernel, embedded as a __device__
/// function (Embed.h), with the keys, the scratch buffer of their type and
/// the count. The template's look-back statuses live in a __device__ array
/// sized for the spec's count (rounded up to a power of two of tiles); a
/// launch with more keys traps. The template needs a 1D block of 256 to
/// 512 threads; other launches reach one through the spec's tunables. See
/// docs/passes/sort-template.md.
///
//===----------------------------------------------------------------------===//
#include "ElementwiseKernel.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Templates/Embed.h"
#include "forge/Templates/RadixSort.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace clang;
using namespace llvm;
namespace tp = forge::templates;
namespace ms = forge::measure;

namespace forge::passes {
namespace {

constexpr const char *RuleName = "sort-template";

/// A buffer the check never holds against the kernel: a tolerance no
/// result can exceed (the suite's specs give scratch 1e30).
bool isScratch(const ms::Buffer &B) {
  const auto &T = B.ToleranceOverride;
  return T && ((T->RelL2 && *T->RelL2 >= 1e20) || (T->MaxAbs && *T->MaxAbs >= 1e20));
}

std::optional<tp::Scalar> keyType(ms::DType T) {
  switch (T) {
  case ms::DType::U32:
    return tp::Scalar::U32;
  case ms::DType::I32:
    return tp::Scalar::I32;
  case ms::DType::F32:
    return tp::Scalar::F32;
  default:
    return std::nullopt;
  }
}

class SortTemplateRule : public ExpertRule {
public:
  StringRef name() const override { return RuleName; }

  RuleOutcome propose(const RuleInput &In) override {
    const FunctionDecl &K = In.Kernel;
    if (K.isTemplated())
      return notApplicable("the kernel is a template: the sort template is instantiated for one "
                           "key type");
    const CompoundStmt *Body = kernelBody(K);
    if (!Body)
      return notApplicable("the kernel has no body");
    const ms::LaunchSpec *Spec = In.Request.Spec;
    if (!Spec)
      return notApplicable("no launch spec: a sort is recognised by its buffers' roles (one "
                           "buffer of keys changed in place, scratch beside it)");
    if (Spec->Args.size() != K.getNumParams())
      return notApplicable("the spec's arguments do not match the kernel's parameters");
    auto Env = Spec->environment();
    if (!Env)
      return notApplicable(toString(Env.takeError()));

    // The parameters by what the spec says of them.
    const ParmVarDecl *Keys = nullptr, *Tmp = nullptr, *Count = nullptr;
    const ms::Buffer *KeysB = nullptr;
    std::vector<std::pair<const ParmVarDecl *, const ms::Buffer *>> Scratch;
    std::vector<std::pair<const ParmVarDecl *, const ms::Scalar *>> Ints;
    for (unsigned I = 0; I < K.getNumParams(); ++I) {
      const ParmVarDecl *P = K.getParamDecl(I);
      if (const ms::Buffer *B = Spec->findBuffer(Spec->Args[I])) {
        if (isScratch(*B)) {
          Scratch.push_back({P, B});
          continue;
        }
        if (B->Role == ms::BufferRole::In)
          return notApplicable("'" + P->getNameAsString() +
                               "' is an input: a sort in place reads and changes one buffer");
        if (KeysB)
          return notApplicable("two buffers are compared with the original ('" +
                               KeysB->Name + "', '" + B->Name + "'): a sort of keys changes one");
        if (B->Role != ms::BufferRole::InOut)
          return notApplicable("'" + B->Name + "' is written, not changed in place: the rule "
                               "replaces sorts in place");
        Keys = P;
        KeysB = B;
      } else if (const ms::Scalar *S = Spec->findScalar(Spec->Args[I])) {
        if (P->getType()->isIntegerType() && !P->getType()->isBooleanType())
          Ints.push_back({P, S});
      }
    }
    if (!Keys)
      return notApplicable("no buffer is changed and compared: nothing to sort");
    std::optional<tp::Scalar> KT = keyType(KeysB->Type);
    if (!KT || !Keys->getType()->isPointerType())
      return notApplicable("the keys '" + KeysB->Name +
                           "' are not 4-byte (u32, i32, f32): the radix sort takes those");
    QualType KeyT = Keys->getType()->getPointeeType();
    auto N = KeysB->Count.evaluate(*Env);
    if (!N)
      return notApplicable(toString(N.takeError()));
    if (*N < 1 || *N > tp::RadixSortMaxKeys)
      return notApplicable(formatv("{0} keys: the radix sort takes 1 to {1}", *N,
                                   tp::RadixSortMaxKeys)
                               .str());
    // Scratch for keys: of their type, with room for all of them.
    for (const auto &[P, B] : Scratch) {
      auto C = B->Count.evaluate(*Env);
      if (B->Type == KeysB->Type && C && *C >= *N && P->getType()->isPointerType() &&
          In.Ctx.hasSameUnqualifiedType(P->getType()->getPointeeType(), KeyT)) {
        Tmp = P;
        break;
      }
    }
    if (!Tmp)
      return notApplicable("no scratch buffer of the keys' type with room for them: the radix "
                           "sort ping-pongs the keys through one");
    // The count: the integer argument whose value is the keys' count.
    for (const auto &[P, S] : Ints) {
      int64_t V = -1;
      if (const auto *E = std::get_if<ms::IntExpr>(&S->Value)) {
        if (auto X = E->evaluate(*Env))
          V = *X;
        else
          consumeError(X.takeError());
      } else if (const auto *I = std::get_if<int64_t>(&S->Value)) {
        V = *I;
      }
      if (V == *N) {
        if (Count)
          return notApplicable("two integer arguments equal the keys' count ('" +
                               Count->getNameAsString() + "', '" + P->getNameAsString() + "')");
        Count = P;
      }
    }
    if (!Count)
      return notApplicable("no integer argument gives the keys' count");

    // The launch: a 1D block of whole warps, 256 to 512 threads (a thread
    // for each digit; 16 keys a thread. 1024 threads hold only 8 keys each
    // in the 48 KiB tile and measured slower: 768 us against 613 us for
    // 2^24 keys on an H100).
    auto L = launchWithBlock(In, [](const std::array<int64_t, 3> &B) {
      return B[1] == 1 && B[2] == 1 && B[0] >= 256 && B[0] <= 512 && B[0] % 32 == 0;
    });
    if (!L)
      return notApplicable(toString(L.takeError()));
    const int64_t Block = L->Block[0], Items = 16;
    const int64_t Tile = Block * Items;
    const uint64_t Tiles = PowerOf2Ceil(uint64_t((*N + Tile - 1) / Tile));
    const int64_t Capacity = std::min<int64_t>(int64_t(Tiles) * Tile, tp::RadixSortMaxKeys);

    std::string Name = K.getNameAsString() + "_forge_sort";
    if (!In.Ctx.getTranslationUnitDecl()
             ->lookup(DeclarationName(&In.Ctx.Idents.get(Name + "_body")))
             .empty())
      return notApplicable("the file already holds the sort template for '" +
                           K.getNameAsString() + "'");
    auto Site = kernelBodySite(In, K, *Body);
    if (!Site)
      return notApplicable(toString(Site.takeError()));
    const unsigned LS = Site->DeclLine;

    // The grid: resident waves (the template loops over its work items, so
    // any grid sorts).
    std::optional<agent::SpecChange> Spec0;
    {
      agent::SpecChange S;
      S.Values = L->Values;
      auto BlockX = In.Request.Geometry.find("block.x");
      if (BlockX != In.Request.Geometry.end())
        S.NewConstraints.push_back(formatv("({0}) == {1}", BlockX->second, Block).str());
      if (std::optional<WavesCap> Cap = gridWavesCap(In, Tile * 4 + 2 * 256 * 4 + 1024)) {
        if (L->Values.empty()) {
          S.Geometry["grid.x"] = Cap->Expr;
          if (!In.Request.Tunables.count("FORGE_GRID_WAVES"))
            S.NewTunables["FORGE_GRID_WAVES"] = {1, 2};
        }
      }
      for (const char *D : {"grid.y", "grid.z"})
        if (auto It = In.Request.Geometry.find(D);
            It != In.Request.Geometry.end() && It->second != "1")
          S.Geometry[D] = "1";
      S.Justification = formatv(
          "the sort template's blocks loop over work items taken from a ticket (a histogram "
          "phase, then 4 passes of tiles in order), so every grid sorts every key; it needs "
          "{0} threads a block, now a constraint of the spec{1}",
          Block, S.Geometry.count("grid.x") ? "; the grid is FORGE_GRID_WAVES waves of resident "
                                               "blocks"
                                             : "")
                            .str();
      if (!S.empty())
        Spec0 = std::move(S);
    }

    RuleOutcome Outcome;
    for (bool Descending : {false, true}) {
      tp::Request R;
      R.Kind = tp::OpKind::Sort;
      R.Type = *KT;
      R.Shape = {*N};
      R.Descending = Descending;
      R.Algorithm = "radix";
      R.Name = Name;
      R.SMs = In.Request.SmCount ? In.Request.SmCount : 132;
      auto I = tp::instantiateRadixSort(R);
      if (!I)
        return notApplicable(toString(I.takeError()));
      auto Device = tp::embeddableBody(*I);
      if (!Device)
        return notApplicable(toString(Device.takeError()));
      std::string Preamble =
          *Device + formatv("// The look-back statuses of {0}'s sort: 2 x 256 words a tile, for "
                            "up to {1} keys of {2} a tile.\n"
                            "__device__ unsigned int {3}_scratch[{4}u];\n\n",
                            K.getNameAsString(), Capacity, Tile, Name, 2 * 256 * Tiles)
                        .str();
      std::string NewBody =
          formatv("{\n"
                  "  // forge-port sort template: {0} radix sort of {1}[0, {2}) in place "
                  "(lib/Templates, radix-sort),\n"
                  "  // {3} threads x {4} keys a tile; {5} is its scratch. At most {6} keys.\n"
                  "  if ((long long)({2}) > {6}ll)\n"
                  "    __trap();\n"
                  "  {7}_body<{3}, {4}>({1}, {5}, {7}_scratch, (long long)({2}));\n"
                  "}",
                  Descending ? "a descending" : "an ascending", Keys->getName(),
                  Count->getName(), Block, Items, Tmp->getName(), Capacity, Name)
              .str();
      std::vector<SourceEdit> Edits = {{LS, 0, Preamble},
                                       {Site->Open, Site->Close + 1 - Site->Open, NewBody}};
      if (!K.hasAttr<CUDALaunchBoundsAttr>()) {
        EditCollector LB(In);
        if (!LB.insertBefore(K.getLocation(), formatv("__launch_bounds__({0}) ", Block).str()))
          return notApplicable(LB.failure());
        for (const SourceEdit &E : LB.edits())
          Edits.push_back(E);
      }
      for (const SourceEdit &E : L->WriteBack)
        Edits.push_back(E);
      std::string Summary =
          formatv("{0} replaced by the radix sort template ({1}), {2} threads x {3} keys a tile",
                  K.getNameAsString(), Descending ? "descending" : "ascending", Block, Items)
              .str();
      std::string Rationale = formatv(
          "The spec shows a sort's contract: '{0}' ({1} keys of {2}) is changed in place and "
          "compared, '{3}' is scratch with room for the keys, '{4}' is their count. The radix "
          "sort template (Onesweep style: 8-bit digits, one read for the histograms of all 4 "
          "passes, tiles ranked in shared memory with warp ballots, a decoupled look-back of "
          "per-digit counts, keys scattered in runs through shared memory) moves each key "
          "about 9 times through DRAM, against the original's work, in one launch whose "
          "blocks loop over work items. Whether the kernel sorts at all, and in which order, "
          "is not proven from its code: the check against the original on fresh random keys "
          "decides, and this proposal is the {5} order. The declaration and its launches stay; "
          "'{3}' keeps no meaning afterwards (it is scratch), and parameters the template "
          "does not use are left unused. Launches must not overlap in time (the template's "
          "tickets are __device__ words of this file), and a launch of more than {6} keys traps.",
          KeysB->Name, *N, scalarInfo(*KT).Dtype, Tmp->getName(), Count->getName(),
          Descending ? "descending" : "ascending", Capacity)
                                  .str();
      RuleOutcome One = proposeEdits(In, RuleName, Summary, Rationale, Edits, Spec0);
      if (One.Proposals.empty())
        return One;
      for (agent::Proposal &P : One.Proposals)
        Outcome.Proposals.push_back(std::move(P));
    }
    return Outcome;
  }
};

} // namespace

std::unique_ptr<ExpertRule> createSortTemplateRule() {
  return std::make_unique<SortTemplateRule>();
}

} // namespace forge::passes
