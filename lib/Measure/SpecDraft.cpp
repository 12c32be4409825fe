//===- Measure/SpecDraft.cpp ----------------------------------------------===//
#include "forge/Measure/SpecDraft.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "forge/Analysis/AnalyzeFile.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Analysis/ProblemShape.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <functional>
#include <map>
#include <set>

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
      .Cases({"short", "short int", "int16_t"}, "i16")
      .Cases({"unsigned short", "unsigned short int", "uint16_t"}, "u16")
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

/// E, in parentheses unless it is a name, a number or a call.
static std::string parenthesised(StringRef E) {
  E = E.trim();
  bool Atomic = !E.empty() && all_of(E, [](char C) { return isAlnum(C) || C == '_'; });
  if (!Atomic && E.ends_with(")")) {
    size_t Open = E.find('(');
    int Depth = 0;
    bool Call = Open != StringRef::npos && Open > 0 &&
                all_of(E.take_front(Open), [](char C) { return isAlnum(C) || C == '_'; });
    for (size_t I = Open; Call && I < E.size(); ++I) {
      Depth += E[I] == '(' ? 1 : E[I] == ')' ? -1 : 0;
      if (Depth == 0 && I + 1 != E.size())
        Call = false;
    }
    Atomic = Call;
  }
  return Atomic ? E.str() : ("(" + E + ")").str();
}

namespace {
/// The problem shape of the kernel's model (analysis/ProblemShape.h),
/// written in the spec's terms: parameters become sizes, blockDim and
/// gridDim the spec's block and grid, template parameters their values or
/// the tunables of their names.
class ShapeWriter {
public:
  ShapeWriter(analysis::KernelModel *M, int64_t ProblemSize) : M(M), Problem(ProblemSize) {
    if (M)
      Shape = M->Shape;
    // The first launch from host code says what the program passes.
    if (M && !M->HostLaunches.empty())
      Host = &M->HostLaunches.front();
  }

  /// What the host passes as parameter PI, when a launch in the file shows it.
  const analysis::HostArgument *hostArg(int PI) const {
    if (!Host)
      return nullptr;
    for (const analysis::HostArgument &A : Host->Args)
      if (int(A.Param) == PI)
        return &A;
    return nullptr;
  }
  unsigned hostLine() const { return Host ? Host->Line : 0; }

  /// Names in Text that become sizes; false when Text is no expression.
  bool addSizes(const std::string &Text) {
    auto E = IntExpr::parse(Text);
    if (!E) {
      consumeError(E.takeError());
      return false;
    }
    for (const std::string &Id : E->identifiers())
      SizeNames.insert(Id);
    return true;
  }

  /// The grid dimensions the kernel's guards bound (0 when none).
  int gridDims() const {
    int N = 0;
    for (int D = 0; D < 3; ++D)
      if (Shape && Shape->Threads[D])
        N = D + 1;
    return N;
  }
  void setTemplateValue(const std::string &Name, int64_t V) { TemplateValues[Name] = V; }
  void setBlock(const std::array<std::string, 3> &B) { Block = B; }
  void setGrid(const std::array<std::string, 3> &G) { Grid = G; }

  /// The grid along D for the guard that bounds it, with a note saying so.
  std::optional<std::string> grid(int D, const std::string &BlockD, std::string &Note) {
    static const char Dim[3] = {'x', 'y', 'z'};
    if (!Shape || !Shape->Threads[D])
      return std::nullopt;
    const analysis::ThreadExtent &X = *Shape->Threads[D];
    std::string Why;
    auto L = render(X.Limit, Why, /*Count=*/false);
    if (!L) {
      Note = formatv("grid.{0}: '{1}' (line {2}) bounds the threads, but {3}", Dim[D], X.From,
                     X.Line, Why)
                 .str();
      return std::nullopt;
    }
    auto Scale = render(X.Scale, Why, /*Count=*/false);
    if (!Scale) {
      Note = formatv("grid.{0}: '{1}' (line {2}) bounds the threads, but {3}", Dim[D], X.From,
                     X.Line, Why)
                 .str();
      return std::nullopt;
    }
    bool One = X.Scale == analysis::IndexForm::constant(1);
    std::string Units = One ? *L : formatv("ceil_div({0}, {1})", *L, *Scale).str();
    std::string G = X.PerBlock ? Units
                    : One      ? formatv("ceil_div({0}, {1})", *L, BlockD).str()
                          : formatv("ceil_div({0}, {1} * {2})", *L, parenthesised(*Scale), BlockD)
                                .str();
    if (X.GridStride)
      Note = formatv("grid.{0}: the grid-stride loop '{1}' (line {2}) is correct for any grid; "
                     "the draft launches one thread per element ({3})",
                     Dim[D], X.From, X.Line, Units)
                 .str();
    else
      Note = formatv("grid.{0} covers {1} {2}, from '{3}' (line {4})", Dim[D], Units,
                     X.PerBlock ? "blocks" : "threads", X.From, X.Line)
                 .str();
    return G;
  }

  /// The count of the buffer parameter PI, "N" where the model gives none
  /// (with the reason in Note).
  std::string count(int PI, const std::string &Name, uint64_t ParamBytes, std::string &Note) {
    if (!Shape) {
      UsesN = true;
      return "N";
    }
    const analysis::BufferExtent *E = nullptr;
    for (const analysis::BufferExtent &B : Shape->Buffers)
      if (B.ParamIndex == PI)
        E = &B;
    const analysis::HostArgument *H = hostArg(PI);
    bool HostCount = H && !H->Count.empty();
    // What the kernel's accesses do not bound, the host's allocation may.
    auto FromHost = [&](const std::string &Why) -> std::optional<std::string> {
      if (!HostCount || !addSizes(H->Count))
        return std::nullopt;
      Note = formatv("'{0}' has {1} elements: the host allocates that many ({2}, passed at line "
                     "{3}); the kernel's accesses do not bound it: {4}",
                     Name, H->Count, H->AllocatedBy, Host->Line, Why)
                 .str();
      return H->Count;
    };
    if (!E) {
      if (auto C = FromHost("it makes none the analysis traces"))
        return *C;
      Note = formatv("'{0}' has N elements: the kernel makes no access to it that the analysis "
                     "traces; edit its count",
                     Name)
                 .str();
      UsesN = true;
      return "N";
    }
    std::string Why = E->Why;
    std::optional<std::string> C = E->Count ? render(*E->Count, Why, /*Count=*/true) : std::nullopt;
    if (!C) {
      if (auto HC = FromHost(Why))
        return *HC;
      Note = formatv("'{0}' has N elements: {1}; edit its count", Name, Why).str();
      UsesN = true;
      return "N";
    }
    // A count of another element type (a float4 view of a float buffer).
    uint64_t EB = E->ElementBytes;
    if (EB && ParamBytes && EB != ParamBytes) {
      if (EB % ParamBytes == 0)
        C = parenthesised(*C) + " * " + std::to_string(EB / ParamBytes);
      else if (ParamBytes % EB == 0)
        C = formatv("ceil_div({0}, {1})", *C, ParamBytes / EB).str();
    }
    Note = formatv("'{0}' has {1} elements: {2}the largest index + 1 of '{3}' (line {4})", Name,
                   *C, E->Rounded ? "rounded up from " : "", E->From, E->Line)
               .str();
    if (E->MayReadBefore)
      Note += "; it may also be read below its first element, so the kernel expects a pointer "
              "into a larger allocation, which a spec cannot make";
    if (HostCount && squeezed(H->Count) != squeezed(*C) && !sameAtHostValues(H->Count, *C))
      Note += formatv("; the host allocates {0} ({1}, passed at line {2}): check which is meant",
                      H->Count, H->AllocatedBy, Host->Line)
                  .str();
    return *C;
  }

  /// The kernel's stores may leave elements of buffer PI unwritten.
  bool writtenInPart(int PI) const {
    if (Shape)
      for (const analysis::BufferExtent &B : Shape->Buffers)
        if (B.ParamIndex == PI)
          return B.WrittenInPart;
    return false;
  }

  void useN() { UsesN = true; }
  bool isSize(const std::string &Name) const { return SizeNames.count(Name); }
  bool hasSizes() const { return !SizeNames.empty(); }

  /// Every size named, each about Problem^(1/d) for counts of degree d
  /// (4096 x 4096 for an image of 2^24 elements), N = Problem.
  Json sizes() const {
    Json S = Json::object();
    int64_t Each = Problem;
    if (Degree > 1) {
      double V = std::pow(double(Problem), 1.0 / Degree);
      Each = int64_t(1) << std::max<int64_t>(0, std::llround(std::log2(std::max(V, 1.0))));
    }
    for (const std::string &N : SizeNames)
      S[N] = Each;
    // A size the launch passes a value the host code fixes takes it.
    for (const std::string &N : SizeNames)
      if (auto V = hostValue(N))
        S[N] = *V;
    // The fallback N, unless a parameter of that name is a size already
    // (then the fallback counts are in its elements).
    if ((UsesN || S.empty()) && !SizeNames.count("N"))
      S["N"] = Problem;
    return S;
  }

  std::vector<std::string> notes() {
    std::vector<std::string> Out;
    if (!M)
      Out.push_back("the kernel could not be analysed: every count is N; edit them");
    std::vector<std::string> Guessed, Passed;
    for (const std::string &N : SizeNames) {
      if (auto V = hostValue(N))
        Passed.push_back(formatv("{0} = {1}", N, *V).str());
      else
        Guessed.push_back(N);
    }
    if (!Passed.empty())
      Out.push_back(formatv("the sizes {0} are the values the launch at line {1} passes",
                            join(Passed, ", "), Host->Line)
                        .str());
    if (!Guessed.empty())
      Out.push_back(formatv("the sizes ({0}) are kernel parameters, taken to be non-negative; "
                            "each is {1} in the draft: edit them",
                            join(Guessed, ", "), sizes()[Guessed.front()].dump())
                        .str());
    if (Shape)
      for (const std::string &N : Shape->Notes)
        Out.push_back(N);
    return Out;
  }

  /// The value the host passes as the parameter named Name, when fixed.
  std::optional<int64_t> hostValue(const std::string &Name) const {
    if (!Host || !M)
      return std::nullopt;
    for (const analysis::HostArgument &A : Host->Args)
      if (A.ParamName == Name && A.Value && *A.Value > 0)
        return A.Value;
    return std::nullopt;
  }

  /// Two counts that agree at the values the host passes (`n` and
  /// `2 * half` for a launch with `n` and `n / 2`).
  bool sameAtHostValues(const std::string &A, const std::string &B) const {
    auto EA = IntExpr::parse(A), EB = IntExpr::parse(B);
    if (!EA || !EB) {
      consumeError(EA.takeError());
      consumeError(EB.takeError());
      return false;
    }
    ValueMap Env;
    for (const IntExpr *E : {&*EA, &*EB})
      for (const std::string &Id : E->identifiers()) {
        auto V = hostValue(Id);
        if (!V)
          return false;
        Env[Id] = *V;
      }
    auto VA = EA->evaluate(Env), VB = EB->evaluate(Env);
    if (!VA || !VB) {
      consumeError(VA.takeError());
      consumeError(VB.takeError());
      return false;
    }
    return *VA == *VB;
  }

private:
  static std::string squeezed(StringRef T) {
    std::string Out;
    for (char C : T)
      if (C != ' ' && C != '(' && C != ')')
        Out += C;
    return Out;
  }
  /// F in the spec's expression language, or none with Why.
  std::optional<std::string> render(const analysis::IndexForm &F, std::string &Why, bool Count) {
    using namespace analysis;
    AtomTable &T = M->atoms();
    auto Named = [&](const std::string &Name) {
      AtomId A = T.symbol(AtomKind::Param, nullptr, Name, "spec:" + Name);
      InsertedAtoms.insert(A);
      return IndexForm::atom(A);
    };
    std::string Fail;
    IndexForm G = T.substitute(F, [&](AtomId A) -> std::optional<IndexForm> {
      const Atom &X = T[A];
      int D = X.Dim == 'y' ? 1 : X.Dim == 'z' ? 2 : 0;
      switch (X.Kind) {
      case AtomKind::BlockDim:
        if (Block[D].empty())
          return std::nullopt;
        return Named(parenthesised(Block[D]));
      case AtomKind::GridDim:
        if (Grid[D].empty()) {
          Fail = "it depends on gridDim, which the guards decide";
          return std::nullopt;
        }
        return Named(parenthesised(Grid[D]));
      case AtomKind::TemplateParam:
        if (auto It = TemplateValues.find(X.Name); It != TemplateValues.end())
          return IndexForm::constant(It->second);
        return std::nullopt;
      default:
        return std::nullopt;
      }
    });
    if (!Fail.empty()) {
      Why = Fail;
      return std::nullopt;
    }
    std::set<std::string> Sizes;
    std::function<bool(const IndexForm &)> Check = [&](const IndexForm &H) {
      for (AtomId A : H.atoms()) {
        const Atom &X = T[A];
        switch (X.Kind) {
        case AtomKind::Param:
          if (InsertedAtoms.count(A))
            break;
          if (StringRef(X.Name).contains('.') || StringRef(X.Name).contains('[')) {
            Why = formatv("'{0}' is a field of a parameter, which a spec cannot name", X.Name);
            return false;
          }
          Sizes.insert(X.Name);
          break;
        case AtomKind::TemplateParam:
          break;
        case AtomKind::Div:
        case AtomKind::Mod:
        case AtomKind::Min:
        case AtomKind::Max:
          if (!Check(X.Operands[0]) || !Check(X.Operands[1]))
            return false;
          break;
        default:
          Why = formatv("'{0}' cannot be written in a spec", T.render(IndexForm::atom(A)));
          return false;
        }
      }
      return true;
    };
    if (G.overflowed() || !Check(G))
      return std::nullopt;
    for (const std::string &S : Sizes)
      SizeNames.insert(S);
    if (Count)
      for (const auto &[Mono, C] : G.terms()) {
        unsigned D = 0;
        for (AtomId A : Mono)
          D += Sizes.count(T[A].Name) ? 1 : 0;
        Degree = std::max(Degree, D);
      }
    return T.render(G);
  }
  analysis::KernelModel *M;
  const analysis::HostLaunch *Host = nullptr;
  int64_t Problem;
  std::optional<analysis::ProblemShape> Shape;
  std::map<std::string, int64_t> TemplateValues;
  std::array<std::string, 3> Block, Grid;
  std::set<std::string> SizeNames;
  /// The atoms that stand for the spec's block and grid expressions.
  std::set<analysis::AtomId> InsertedAtoms;
  unsigned Degree = 1;
  bool UsesN = false;
};
} // namespace

Expected<Json> draftLaunchSpec(const frontend::FileIndex &Index, StringRef Kernel,
                               const DraftOptions &Opts, analysis::KernelModel *Model) {
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
  // Type template parameters stand for the launch's template arguments.
  std::map<std::string, std::string> TypeArgs;
  for (size_t I = 0; I < K.TemplateParams.size() && I < TArgs.size(); ++I)
    if (K.TemplateParams[I].Kind == "type")
      TypeArgs[K.TemplateParams[I].Name] = TArgs[I];
  auto Resolve = [&](std::string T) {
    auto It = TypeArgs.find(T);
    return It == TypeArgs.end() ? T : It->second;
  };

  ShapeWriter Shape(Model, Opts.ProblemSize);
  Json Notes = Json::array();

  // Integer template parameters the spec tunes stay names in the forms; the
  // others are their launch's values.
  for (size_t I = 0; I < K.TemplateParams.size() && I < TArgs.size(); ++I) {
    int64_t V;
    if (K.TemplateParams[I].Kind == "non-type" && !StringRef(TArgs[I]).getAsInteger(10, V))
      Shape.setTemplateValue(K.TemplateParams[I].Name, V);
  }


  // Geometry first: buffer counts may be written in the grid and block.
  const frontend::TunableInfo *BlockKnob = nullptr;
  for (const frontend::TunableInfo &T : Index.Tunables)
    if (T.Kernel == K.QualifiedName && (T.Role == "block" || T.Role == "launch_bounds") &&
        T.Current && !BlockKnob)
      BlockKnob = &T;
  std::optional<std::array<int64_t, 3>> SiteBlock;
  if (Site && Site->Block.Dim3)
    SiteBlock = *Site->Block.Dim3;
  else if (Site && Site->Block.Value)
    SiteBlock = std::array<int64_t, 3>{*Site->Block.Value, 1, 1};
  int Dims = Shape.gridDims();
  if (SiteBlock && ((*SiteBlock)[1] != 1 || (*SiteBlock)[2] != 1))
    Dims = std::max(Dims, (*SiteBlock)[2] != 1 ? 3 : 2);
  Json Tunables = Json::array();
  std::vector<std::string> Constraints;
  std::array<std::string, 3> BlockExpr = {"1", "1", "1"}, GridExpr = {"1", "1", "1"};
  if (Dims <= 1) {
    int64_t BlockThreads = SiteBlock ? (*SiteBlock)[0] : BlockKnob ? *BlockKnob->Current : 256;
    std::vector<int64_t> Values =
        BlockKnob ? BlockKnob->Candidates : frontend::defaultCandidates("block", BlockThreads);
    if (llvm::find(Values, BlockThreads) == Values.end())
      Values.push_back(BlockThreads);
    Tunables.push_back({{"name", "BLOCK"}, {"values", Values}, {"default", BlockThreads}});
    Constraints = {"BLOCK % 32 == 0", "BLOCK <= 1024"};
    BlockExpr[0] = "BLOCK";
    Notes.push_back(SiteBlock ? formatv("the block is the launch's at line {0}, a tunable BLOCK",
                                        Site->Loc.Line)
                                    .str()
                              : std::string("no launch of the kernel in the file: a block of "
                                            "256 threads, a tunable BLOCK"));
  } else {
    // One tunable per block dimension, the launch's block as the default.
    std::array<int64_t, 3> Def = SiteBlock ? *SiteBlock
                                           : (Dims == 2 ? std::array<int64_t, 3>{32, 8, 1}
                                                        : std::array<int64_t, 3>{32, 4, 2});
    static const char *Names[3] = {"BX", "BY", "BZ"};
    static const std::vector<int64_t> Cand[3] = {
        {8, 16, 32, 64, 128}, {1, 2, 4, 8, 16, 32}, {1, 2, 4, 8}};
    for (int D = 0; D < Dims; ++D) {
      std::vector<int64_t> Values = Cand[D];
      if (llvm::find(Values, Def[D]) == Values.end())
        Values.push_back(Def[D]);
      Tunables.push_back({{"name", Names[D]}, {"values", Values}, {"default", Def[D]}});
      BlockExpr[D] = Names[D];
    }
    std::string Threads = Dims == 2 ? "BX * BY" : "BX * BY * BZ";
    Constraints = {Threads + " % 32 == 0", Threads + " <= 1024"};
    if (Dims == 3)
      Constraints.push_back("BZ <= 64");
    Notes.push_back(SiteBlock ? formatv("the block is the launch's at line {0} ({1} x {2} x {3}), "
                                        "one tunable per dimension",
                                        Site->Loc.Line, Def[0], Def[1], Def[2])
                                    .str()
                              : formatv("no launch of the kernel in the file: a {0} x {1} x {2} "
                                        "block, one tunable per dimension",
                                        Def[0], Def[1], Def[2])
                                    .str());
  }
  Shape.setBlock(BlockExpr);
  for (int D = 0; D < 3; ++D) {
    std::string Note;
    if (auto G = Shape.grid(D, BlockExpr[D], Note)) {
      GridExpr[D] = *G;
      Notes.push_back(Note);
    } else if (D < Dims || D == 0) {
      // Nothing bounds the threads along D: the launch's grid when it is a
      // constant, else one thread per element of N.
      if (D > 0 && Site && Site->Grid.Dim3)
        GridExpr[D] = std::to_string((*Site->Grid.Dim3)[D]);
      else if (D > 0)
        GridExpr[D] = "1";
      else {
        GridExpr[D] = "ceil_div(N, " + BlockExpr[D] + ")";
        Shape.useN();
        if (Note.empty() && Model)
          Note = "grid.x: no guard or grid-stride loop bounds the threads along x; the draft "
                 "launches one thread per element of N";
      }
      if (!Note.empty())
        Notes.push_back(Note);
    }
  }
  Shape.setGrid(GridExpr);

  Json Buffers = Json::array(), Scalars = Json::array(), Args = Json::array();
  std::vector<std::string> ByteTerms;
  std::vector<std::tuple<size_t, std::string, std::string>> ScalarParams;
  for (size_t PI = 0; PI < K.Params.size(); ++PI) {
    const frontend::ParamInfo &P = K.Params[PI];
    std::string Name = P.Name.empty() ? "arg" + std::to_string(Args.size()) : P.Name;
    Args.push_back(Name);
    if (P.Pointer) {
      std::string Elem = Resolve(pointee(P.Type));
      std::string DT = dtypeOfCType(Elem);
      // A template, struct or typedef'd type (llm.c's floatX): the user
      // picks; its counts stay in the kernel's own elements.
      bool Guessed = DT.empty();
      if (Guessed)
        DT = "f32";
      int Lanes = lanesOf(Elem);
      int64_t Bytes = int64_t(dtypeSize(*parseDType(DT)));
      std::string Note;
      std::string Count =
          Shape.count(int(PI), Name, Guessed ? 0 : uint64_t(Bytes * Lanes), Note);
      if (Guessed)
        Notes.push_back(formatv("'{0}' points to '{1}', which is no dtype a spec names: the "
                                "draft says f32 and counts its elements; edit its dtype",
                                Name, Elem)
                            .str());
      if (!Note.empty())
        Notes.push_back(Note);
      if (Lanes != 1)
        Count = parenthesised(Count) + " * " + std::to_string(Lanes);
      std::string Role = P.ConstPointee || (P.Read && !P.Written) ? "in"
                         : (P.Written && !P.Read)                ? "out"
                                                                 : "inout";
      if (Role == "out" && Shape.writtenInPart(int(PI))) {
        Role = "inout";
        Notes.push_back(formatv("'{0}' is written only in part (its stores do not reach every "
                                "element of the count), so it is inout: the rest keeps its "
                                "contents",
                                Name)
                            .str());
      }
      Json B = {{"name", Name}, {"dtype", DT}, {"count", Count}, {"role", Role}};
      bool Float = DT[0] == 'f' || DT == "bf16";
      if (Role != "out")
        B["init"] = Float ? Json{{"kind", "uniform"}, {"min", -1.0}, {"max", 1.0}}
                          : Json{{"kind", "uniform"}, {"min", 0}, {"max", 100}};
      Buffers.push_back(B);
      // Bytes that must move: each input read once, each output written
      // once, an inout both.
      std::string Size = std::to_string(Bytes);
      ByteTerms.push_back((Role == "inout" ? "2 * " : "") + parenthesised(Count) + " * " + Size);
      continue;
    }
    std::string DT = dtypeOfCType(Resolve(StringRef(P.Type).trim().str()));
    if (DT.empty())
      return makeUsageError("parameter '{0}' of '{1}' has type '{2}', which a spec cannot "
                            "describe yet; write the spec by hand",
                            Name, K.QualifiedName, P.Type);
    ScalarParams.push_back({PI, Name, DT});
  }
  // Scalars after the buffers, whose counts name the sizes.
  auto AllSizes = [&](const std::string &Text) {
    auto E = IntExpr::parse(Text);
    if (!E) {
      consumeError(E.takeError());
      return false;
    }
    return llvm::all_of(E->identifiers(), [&](const std::string &Id) { return Shape.isSize(Id); });
  };
  for (const auto &[PI, Name, DT] : ScalarParams) {
    Json S = {{"name", Name}, {"dtype", DT}};
    const analysis::HostArgument *H = Shape.hostArg(int(PI));
    if (DT[0] == 'f' || DT == "bf16")
      S["value"] = 1.5;
    else if (Shape.isSize(Name))
      S["value"] = Name;
    else if (H && !H->Relation.empty() && AllSizes(H->Relation)) {
      // Passed as an expression of sizes (`n / 2` beside `n`).
      S["value"] = H->Relation;
      Notes.push_back(formatv("'{0}' is {1}, as the launch at line {2} passes it ('{3}')", Name,
                              H->Relation, Shape.hostLine(), H->Text)
                          .str());
    } else if (H && H->Value) {
      S["value"] = *H->Value;
      Notes.push_back(formatv("'{0}' is {1}, the value the launch at line {2} passes", Name,
                              *H->Value, Shape.hostLine())
                          .str());
    } else if (looksLikeSize(Name) && !Shape.hasSizes()) {
      S["value"] = "N";
      Shape.useN();
    } else
      S["value"] = 1;
    Scalars.push_back(S);
  }

  Spec["sizes"] = Shape.sizes();
  if (!Buffers.empty())
    Spec["buffers"] = Buffers;
  if (!Scalars.empty())
    Spec["scalars"] = Scalars;
  Spec["args"] = Args;
  auto DimsJson = [&](const std::array<std::string, 3> &E) -> Json {
    int N = Dims <= 1 ? 1 : Dims;
    if (N == 1)
      return E[0];
    Json A = Json::array();
    for (int D = 0; D < N; ++D)
      A.push_back(E[D]);
    return A;
  };
  Spec["grid"] = DimsJson(GridExpr);
  Spec["block"] = DimsJson(BlockExpr);
  Spec["tunables"] = Tunables;
  for (Json &T : TemplateTunables)
    Spec["tunables"].push_back(T);
  Spec["constraints"] = Constraints;
  if (Site && Site->SharedMem.Value && *Site->SharedMem.Value)
    Spec["shared_mem"] = std::to_string(*Site->SharedMem.Value);
  if (!ByteTerms.empty())
    Spec["bytes"] = join(ByteTerms, " + ");
  for (std::string &N : Shape.notes())
    Notes.push_back(N);
  if (!Notes.empty())
    Spec["notes"] = Notes;

  // The draft must be a valid spec.
  if (auto Parsed = parseLaunchSpec(Spec, "draft"); !Parsed)
    return makeError("internal error: the drafted spec is invalid: {0}",
                     toString(Parsed.takeError()));
  return Spec;
}

Expected<DraftResult> draftSpecForFile(const frontend::Toolchain &TC,
                                       const frontend::ParseOptions &Parse, StringRef File,
                                       StringRef Kernel, const DraftOptions &Opts,
                                       frontend::ParseDiagnostics &Diags) {
  auto Index = frontend::buildKernelIndex(TC, Parse, File, Diags);
  if (!Index)
    return Index.takeError();
  // The model of the kernel, when it is defined in the file: the second
  // parse's diagnostics repeat the first's, so they are not shown.
  std::optional<analysis::AnalyzeResult> Analysed;
  {
    frontend::ParseDiagnostics Quiet(nullptr);
    auto R = analysis::analyzeFile(TC, Parse, File, Kernel, {}, Quiet);
    if (R && R->Kernels.size() == 1)
      Analysed = std::move(*R);
    else if (!R)
      consumeError(R.takeError());
  }
  auto Spec = draftLaunchSpec(*Index, Kernel, Opts,
                              Analysed ? &Analysed->Kernels.front() : nullptr);
  if (!Spec)
    return Spec.takeError();
  unsigned Errors = Index->Errors;
  return DraftResult{std::move(*Spec), std::move(*Index), Errors};
}

} // namespace forge::measure
