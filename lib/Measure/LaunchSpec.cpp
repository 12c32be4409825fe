//===- LaunchSpec.cpp - The JSON launch spec ------------------------------===//
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>
#include <set>

using namespace forge;
using namespace forge::measure;

//===----------------------------------------------------------------------===//
// Element types, roles and tolerances
//===----------------------------------------------------------------------===//

namespace {

struct DTypeInfo {
  DType Type;
  llvm::StringLiteral Name;
  size_t Size;
  bool Float;
};

/// One row per dtype; everything else about dtypes is derived from here.
constexpr DTypeInfo DTypes[] = {
#define FORGE_DTYPE(E, Name, Size, Float) {DType::E, Name, Size, Float},
#include "forge/Measure/DTypes.def"
};

const DTypeInfo &info(DType T) {
  for (const DTypeInfo &I : DTypes)
    if (I.Type == T)
      return I;
  llvm_unreachable("dtype missing from the table");
}

constexpr llvm::StringLiteral RoleNames[] = {"in", "out", "inout"};
constexpr llvm::StringLiteral InitKindNames[] = {"uniform", "normal", "iota",
                                                 "constant", "file"};

} // namespace

llvm::StringRef forge::measure::dtypeName(DType T) { return info(T).Name; }
size_t forge::measure::dtypeSize(DType T) { return info(T).Size; }
bool forge::measure::isFloatingPoint(DType T) { return info(T).Float; }

std::optional<DType> forge::measure::parseDType(llvm::StringRef Name) {
  for (const DTypeInfo &I : DTypes)
    if (I.Name == Name)
      return I.Type;
  return std::nullopt;
}

llvm::StringRef forge::measure::roleName(BufferRole R) {
  return RoleNames[static_cast<int>(R)];
}

llvm::StringRef forge::measure::initKindName(InitKind K) {
  return InitKindNames[static_cast<int>(K)];
}

Tolerance forge::measure::defaultTolerance(DType T) {
  Tolerance Tol;
  switch (T) {
  case DType::F16:
  case DType::BF16:
    Tol.RelL2 = 1e-2;
    break;
  case DType::F32:
    Tol.RelL2 = 1e-5;
    break;
  case DType::F64:
    Tol.RelL2 = 1e-12;
    break;
  default:
    Tol.RelL2 = 0.0;
    Tol.MaxAbs = 0.0;
    break;
  }
  return Tol;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

bool isIdentifier(llvm::StringRef S) {
  if (S.empty() || !(llvm::isAlpha(S[0]) || S[0] == '_'))
    return false;
  return llvm::all_of(S, [](char C) { return llvm::isAlnum(C) || C == '_'; });
}

bool isFunctionName(llvm::StringRef S) {
  return S == "min" || S == "max" || S == "ceil_div";
}

/// "ns::kernel", "::kernel", "kernel"; template arguments go in
/// template_args, not in the name.
bool isQualifiedName(llvm::StringRef S) {
  S.consume_front("::");
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  S.split(Parts, "::");
  return llvm::all_of(Parts, isIdentifier);
}

std::string jsonQuote(llvm::StringRef S) { return Json(S.str()).dump(); }

/// The value as an error message shows it after "got".
std::string describe(const Json &J) {
  switch (J.type()) {
  case Json::value_t::null:
    return "null";
  case Json::value_t::object:
    return "an object";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::boolean:
    return J.get<bool>() ? "true" : "false";
  case Json::value_t::string: {
    std::string S = J.get<std::string>();
    if (S.size() > 60)
      S = S.substr(0, 57) + "...";
    return jsonQuote(S);
  }
  default:
    return J.dump();
  }
}

std::string keyPath(const std::string &Base, llvm::StringRef Key) {
  if (isIdentifier(Key))
    return Base + "." + Key.str();
  return Base + "[" + jsonQuote(Key) + "]";
}

std::string indexPath(const std::string &Base, size_t I) {
  return Base + "[" + std::to_string(I) + "]";
}

std::string joinQuoted(llvm::ArrayRef<llvm::StringRef> Names) {
  std::string Out;
  for (size_t I = 0; I < Names.size(); ++I) {
    if (I)
      Out += ", ";
    Out += jsonQuote(Names[I]);
  }
  return Out;
}

llvm::Error checkRange(int64_t V, DType T) {
  int64_t Lo = INT64_MIN, Hi = INT64_MAX;
  switch (T) {
  case DType::I8:
    Lo = INT8_MIN, Hi = INT8_MAX;
    break;
  case DType::U8:
    Lo = 0, Hi = UINT8_MAX;
    break;
  case DType::I16:
    Lo = INT16_MIN, Hi = INT16_MAX;
    break;
  case DType::U16:
    Lo = 0, Hi = UINT16_MAX;
    break;
  case DType::I32:
    Lo = INT32_MIN, Hi = INT32_MAX;
    break;
  case DType::U32:
    Lo = 0, Hi = UINT32_MAX;
    break;
  case DType::U64:
    Lo = 0;
    break;
  default:
    break;
  }
  if (V < Lo || V > Hi)
    return makeError("{0} is out of range for dtype '{1}'", V, dtypeName(T));
  return llvm::Error::success();
}

class SpecParser {
public:
  std::vector<std::string> Errors;

  LaunchSpec parse(const Json &J);

private:
  /// Sizes then tunables: the names expressions may use, in spec order.
  std::vector<std::string> Known;
  std::set<std::string> KnownSet;
  LaunchSpec Spec;

  void error(const std::string &Path, const llvm::Twine &Msg) {
    Errors.push_back(Path + ": " + Msg.str());
  }

  void typeError(const std::string &Path, llvm::StringRef Expected,
                 const Json &Got) {
    error(Path, "expected " + Expected + ", got " + describe(Got));
  }

  static const Json *get(const Json &Obj, llvm::StringRef Key) {
    auto It = Obj.find(Key.str());
    return It == Obj.end() ? nullptr : &*It;
  }

  const Json *require(const Json &Obj, const std::string &Path,
                      llvm::StringRef Key) {
    const Json *V = get(Obj, Key);
    if (!V)
      error(keyPath(Path, Key), "missing required field");
    return V;
  }

  /// Reports keys of Obj not in Allowed, with a suggestion for typos.
  void checkKeys(const Json &Obj, const std::string &Path,
                 llvm::ArrayRef<llvm::StringRef> Allowed,
                 llvm::StringRef Context = "") {
    for (auto It = Obj.begin(); It != Obj.end(); ++It) {
      llvm::StringRef Key = It.key();
      if (llvm::is_contained(Allowed, Key))
        continue;
      std::string Msg = "unknown field";
      if (!Context.empty())
        Msg += " " + Context.str();
      llvm::StringRef Best;
      unsigned BestDist = 3;
      for (llvm::StringRef A : Allowed) {
        unsigned D = Key.edit_distance(A, true, BestDist);
        if (D < BestDist)
          Best = A, BestDist = D;
      }
      if (!Best.empty())
        Msg += "; did you mean " + jsonQuote(Best) + "?";
      else
        Msg += "; expected one of " + joinQuoted(Allowed);
      error(keyPath(Path, Key), Msg);
    }
  }

  bool expectObject(const Json &J, const std::string &Path) {
    if (J.is_object())
      return true;
    typeError(Path, "an object", J);
    return false;
  }

  bool expectArray(const Json &J, const std::string &Path) {
    if (J.is_array())
      return true;
    typeError(Path, "an array", J);
    return false;
  }

  std::optional<std::string> getString(const Json &J,
                                       const std::string &Path) {
    if (J.is_string())
      return J.get<std::string>();
    typeError(Path, "a string", J);
    return std::nullopt;
  }

  std::optional<bool> getBool(const Json &J, const std::string &Path) {
    if (J.is_boolean())
      return J.get<bool>();
    typeError(Path, "a boolean", J);
    return std::nullopt;
  }

  /// Integers; floats with an integral value ("1e6") are accepted too.
  std::optional<int64_t> getInt(const Json &J, const std::string &Path) {
    if (J.is_number_unsigned() && J.get<uint64_t>() > uint64_t(INT64_MAX)) {
      error(Path, "integer " + J.dump() + " is out of range");
      return std::nullopt;
    }
    if (J.is_number_integer())
      return J.get<int64_t>();
    if (J.is_number_float()) {
      double D = J.get<double>();
      if (std::isfinite(D) && D == std::trunc(D) && std::fabs(D) <= 0x1p53)
        return int64_t(D);
    }
    typeError(Path, "an integer", J);
    return std::nullopt;
  }

  std::optional<double> getNumber(const Json &J, const std::string &Path) {
    if (J.is_number() && std::isfinite(J.get<double>()))
      return J.get<double>();
    typeError(Path, "a number", J);
    return std::nullopt;
  }

  /// A name that must be an identifier and unique within Seen.
  std::optional<std::string> getName(const Json &Obj, const std::string &Path,
                                     std::set<std::string> &Seen,
                                     llvm::StringRef Namespace) {
    const Json *N = require(Obj, Path, "name");
    if (!N)
      return std::nullopt;
    std::string NamePath = keyPath(Path, "name");
    auto Name = getString(*N, NamePath);
    if (!Name)
      return std::nullopt;
    if (!isIdentifier(*Name)) {
      error(NamePath, "expected an identifier, got " + jsonQuote(*Name));
      return std::nullopt;
    }
    if (!Seen.insert(*Name).second) {
      error(NamePath, "duplicate name " + jsonQuote(*Name) + " among " +
                          Namespace);
      return std::nullopt;
    }
    return Name;
  }

  void addKnown(const std::string &Name) {
    Known.push_back(Name);
    KnownSet.insert(Name);
  }

  std::string knownList() const {
    if (Known.empty())
      return "no sizes or tunables are declared";
    return "known: " + llvm::join(Known, ", ");
  }

  /// An expression (a string, or an integer for convenience) whose
  /// identifiers must all be sizes or tunables.
  std::optional<IntExpr> getExpr(const Json &J, const std::string &Path) {
    std::string Text;
    if (J.is_string())
      Text = J.get<std::string>();
    else if (J.is_number_integer()) {
      auto V = getInt(J, Path);
      if (!V)
        return std::nullopt;
      Text = std::to_string(*V);
    } else {
      typeError(Path, "an expression string", J);
      return std::nullopt;
    }
    auto E = IntExpr::parse(Text);
    if (!E) {
      error(Path, llvm::toString(E.takeError()));
      return std::nullopt;
    }
    bool Ok = true;
    for (const std::string &Id : E->identifiers()) {
      if (KnownSet.count(Id))
        continue;
      error(Path, "unknown identifier '" + Id + "' (" + knownList() + ")");
      Ok = false;
    }
    if (!Ok)
      return std::nullopt;
    return std::move(*E);
  }

  /// One expression, or an array of one to three.
  std::vector<IntExpr> getDims(const Json &J, const std::string &Path) {
    std::vector<IntExpr> Dims;
    if (!J.is_array()) {
      if (auto E = getExpr(J, Path))
        Dims.push_back(std::move(*E));
      return Dims;
    }
    if (J.empty() || J.size() > 3) {
      error(Path, "expected 1 to 3 dimensions, got " +
                      std::to_string(J.size()));
      return Dims;
    }
    for (size_t I = 0; I < J.size(); ++I)
      if (auto E = getExpr(J[I], indexPath(Path, I)))
        Dims.push_back(std::move(*E));
    if (Dims.size() != J.size())
      Dims.clear();
    return Dims;
  }

  template <typename EnumT, size_t N>
  std::optional<EnumT> getEnum(const Json &J, const std::string &Path,
                               const llvm::StringLiteral (&Names)[N]) {
    auto S = getString(J, Path);
    if (!S)
      return std::nullopt;
    for (size_t I = 0; I < N; ++I)
      if (Names[I] == *S)
        return static_cast<EnumT>(I);
    llvm::SmallVector<llvm::StringRef, 8> All(std::begin(Names),
                                              std::end(Names));
    error(Path, "expected one of " + joinQuoted(All) + ", got " + jsonQuote(*S));
    return std::nullopt;
  }

  std::optional<DType> getDType(const Json &J, const std::string &Path) {
    auto S = getString(J, Path);
    if (!S)
      return std::nullopt;
    if (auto T = parseDType(*S))
      return T;
    llvm::SmallVector<llvm::StringRef, 10> All;
    for (const DTypeInfo &I : DTypes)
      All.push_back(I.Name);
    error(Path, "expected one of " + joinQuoted(All) + ", got " + jsonQuote(*S));
    return std::nullopt;
  }

  std::optional<Tolerance> getTolerance(const Json &J,
                                        const std::string &Path) {
    if (!expectObject(J, Path))
      return std::nullopt;
    checkKeys(J, Path, {"rel_l2", "max_abs"});
    Tolerance Tol;
    bool Ok = true;
    auto Bound = [&](llvm::StringRef Key, std::optional<double> &Out) {
      const Json *V = get(J, Key);
      if (!V)
        return;
      std::string P = keyPath(Path, Key);
      auto D = getNumber(*V, P);
      if (!D) {
        Ok = false;
      } else if (*D < 0) {
        error(P, "expected a non-negative number, got " + describe(*V));
        Ok = false;
      } else {
        Out = *D;
      }
    };
    Bound("rel_l2", Tol.RelL2);
    Bound("max_abs", Tol.MaxAbs);
    if (!Ok)
      return std::nullopt;
    return Tol;
  }

  void parseSizes(const Json &J, const std::string &Path);
  void parseTunables(const Json &J, const std::string &Path);
  std::optional<InitSpec> parseInit(const Json &J, const std::string &Path,
                                    std::optional<DType> Type);
  void parseBuffers(const Json &J, const std::string &Path,
                    std::set<std::string> &ArgNames);
  void parseScalars(const Json &J, const std::string &Path,
                    std::set<std::string> &ArgNames);
  void parseArgs(const Json &J, const std::string &Path,
                 const std::set<std::string> &ArgNames,
                 const Json *BuffersJson, const Json *ScalarsJson);
};

void SpecParser::parseSizes(const Json &J, const std::string &Path) {
  if (!expectObject(J, Path))
    return;
  for (auto It = J.begin(); It != J.end(); ++It) {
    std::string Name = It.key();
    std::string P = keyPath(Path, Name);
    if (!isIdentifier(Name) || isFunctionName(Name)) {
      error(P, "size names must be identifiers other than min, max and "
               "ceil_div");
      continue;
    }
    // Known even when the value is bad, so its uses do not add noise.
    addKnown(Name);
    auto V = getInt(It.value(), P);
    if (!V)
      continue;
    if (*V < 0) {
      error(P, "expected a non-negative integer, got " + describe(It.value()));
      continue;
    }
    Spec.Sizes.emplace_back(Name, *V);
  }
}

void SpecParser::parseTunables(const Json &J, const std::string &Path) {
  if (!expectArray(J, Path))
    return;
  std::set<std::string> Seen(KnownSet.begin(), KnownSet.end());
  for (size_t I = 0; I < J.size(); ++I) {
    std::string P = indexPath(Path, I);
    const Json &T = J[I];
    if (!expectObject(T, P))
      continue;
    checkKeys(T, P, {"name", "values", "default"});
    Tunable Tun;
    auto Name = getName(T, P, Seen, "sizes and tunables");
    if (Name && isFunctionName(*Name)) {
      error(keyPath(P, "name"), "'" + *Name + "' is a function name");
      Name.reset();
    }
    if (Name) {
      addKnown(*Name);
      Tun.Name = *Name;
    }
    bool Ok = Name.has_value();
    if (const Json *Vs = require(T, P, "values")) {
      std::string VP = keyPath(P, "values");
      if (!expectArray(*Vs, VP)) {
        Ok = false;
      } else if (Vs->empty()) {
        error(VP, "expected at least one value");
        Ok = false;
      } else {
        for (size_t K = 0; K < Vs->size(); ++K) {
          auto V = getInt((*Vs)[K], indexPath(VP, K));
          if (!V) {
            Ok = false;
          } else if (llvm::is_contained(Tun.Values, *V)) {
            error(indexPath(VP, K), "duplicate value " + std::to_string(*V));
            Ok = false;
          } else {
            Tun.Values.push_back(*V);
          }
        }
      }
    } else {
      Ok = false;
    }
    if (const Json *D = get(T, "default")) {
      std::string DP = keyPath(P, "default");
      if (auto V = getInt(*D, DP)) {
        if (Ok && !llvm::is_contained(Tun.Values, *V)) {
          error(DP, std::to_string(*V) + " is not among the values");
          Ok = false;
        }
        Tun.Default = *V;
      } else {
        Ok = false;
      }
    }
    if (Ok)
      Spec.Tunables.push_back(std::move(Tun));
  }
}

std::optional<InitSpec> SpecParser::parseInit(const Json &J,
                                              const std::string &Path,
                                              std::optional<DType> Type) {
  if (!expectObject(J, Path))
    return std::nullopt;
  const Json *KindJ = require(J, Path, "kind");
  if (!KindJ)
    return std::nullopt;
  std::string KP = keyPath(Path, "kind");
  auto Kind = getEnum<InitKind>(*KindJ, KP, InitKindNames);
  if (!Kind)
    return std::nullopt;
  InitSpec Init;
  Init.Kind = *Kind;
  bool IsInt = Type && !isFloatingPoint(*Type);
  bool Ok = true;
  /// An optional (or required) number; integral for integer dtypes.
  auto Num = [&](llvm::StringRef Key, double &Out, bool Required) {
    const Json *V = Required ? require(J, Path, Key) : get(J, Key);
    if (!V) {
      Ok &= !Required;
      return;
    }
    std::string P = keyPath(Path, Key);
    auto D = getNumber(*V, P);
    if (!D) {
      Ok = false;
      return;
    }
    if (IsInt && *D != std::trunc(*D)) {
      error(P, "expected an integer for dtype '" + dtypeName(*Type) +
                   "', got " + describe(*V));
      Ok = false;
      return;
    }
    Out = *D;
  };
  switch (Init.Kind) {
  case InitKind::Uniform:
    checkKeys(J, Path, {"kind", "min", "max"}, "for kind 'uniform'");
    if (IsInt)
      Init.Min = 0, Init.Max = 100;
    Num("min", Init.Min, false);
    Num("max", Init.Max, false);
    if (Ok && !(Init.Min < Init.Max)) {
      error(keyPath(Path, "max"), "max must be greater than min");
      Ok = false;
    }
    break;
  case InitKind::Normal:
    checkKeys(J, Path, {"kind", "mean", "stddev"}, "for kind 'normal'");
    if (IsInt) {
      error(KP, "'normal' needs a floating-point dtype, got '" +
                    dtypeName(*Type) + "'; use 'uniform'");
      return std::nullopt;
    }
    Num("mean", Init.Mean, false);
    Num("stddev", Init.Stddev, false);
    if (Ok && !(Init.Stddev > 0)) {
      error(keyPath(Path, "stddev"), "stddev must be positive");
      Ok = false;
    }
    break;
  case InitKind::Iota:
    checkKeys(J, Path, {"kind"}, "for kind 'iota'");
    break;
  case InitKind::Constant:
    checkKeys(J, Path, {"kind", "value"}, "for kind 'constant'");
    Num("value", Init.Value, true);
    break;
  case InitKind::File:
    checkKeys(J, Path, {"kind", "path"}, "for kind 'file'");
    if (const Json *F = require(J, Path, "path")) {
      std::string FP = keyPath(Path, "path");
      auto S = getString(*F, FP);
      if (S && S->empty()) {
        error(FP, "expected a file path, got \"\"");
        S.reset();
      }
      if (S)
        Init.Path = *S;
      else
        Ok = false;
    } else {
      Ok = false;
    }
    break;
  }
  if (!Ok)
    return std::nullopt;
  return Init;
}

void SpecParser::parseBuffers(const Json &J, const std::string &Path,
                              std::set<std::string> &ArgNames) {
  if (!expectArray(J, Path))
    return;
  for (size_t I = 0; I < J.size(); ++I) {
    std::string P = indexPath(Path, I);
    const Json &B = J[I];
    if (!expectObject(B, P)) {
      continue;
    }
    checkKeys(B, P, {"name", "dtype", "count", "init", "role", "tolerance"});
    Buffer Buf;
    auto Name = getName(B, P, ArgNames, "buffers and scalars");
    bool Ok = Name.has_value();
    if (Name)
      Buf.Name = *Name;
    std::optional<DType> Type;
    if (const Json *D = require(B, P, "dtype"))
      Type = getDType(*D, keyPath(P, "dtype"));
    Ok &= Type.has_value();
    if (Type)
      Buf.Type = *Type;
    if (const Json *C = require(B, P, "count")) {
      auto E = getExpr(*C, keyPath(P, "count"));
      Ok &= E.has_value();
      if (E)
        Buf.Count = std::move(*E);
    } else {
      Ok = false;
    }
    std::optional<BufferRole> Role;
    if (const Json *R = require(B, P, "role"))
      Role = getEnum<BufferRole>(*R, keyPath(P, "role"), RoleNames);
    Ok &= Role.has_value();
    if (Role)
      Buf.Role = *Role;
    const Json *InitJ = get(B, "init");
    if (Role && *Role == BufferRole::Out && InitJ) {
      error(keyPath(P, "init"), "an 'out' buffer is filled with NaN before "
                                "every run; use role 'inout' to give it "
                                "initial contents");
      Ok = false;
    } else if (Role && *Role != BufferRole::Out && !InitJ) {
      error(keyPath(P, "init"), "missing required field (an '" +
                                    roleName(*Role) +
                                    "' buffer needs initial contents)");
      Ok = false;
    } else if (InitJ) {
      Buf.Init = parseInit(*InitJ, keyPath(P, "init"), Type);
      Ok &= Buf.Init.has_value();
    }
    if (const Json *T = get(B, "tolerance")) {
      std::string TP = keyPath(P, "tolerance");
      if (Role && *Role == BufferRole::In) {
        error(TP, "an 'in' buffer is not compared; tolerance applies to "
                  "'out' and 'inout' buffers");
        Ok = false;
      } else {
        Buf.ToleranceOverride = getTolerance(*T, TP);
        Ok &= Buf.ToleranceOverride.has_value();
      }
    }
    if (Ok)
      Spec.Buffers.push_back(std::move(Buf));
  }
}

void SpecParser::parseScalars(const Json &J, const std::string &Path,
                              std::set<std::string> &ArgNames) {
  if (!expectArray(J, Path))
    return;
  for (size_t I = 0; I < J.size(); ++I) {
    std::string P = indexPath(Path, I);
    const Json &S = J[I];
    if (!expectObject(S, P))
      continue;
    checkKeys(S, P, {"name", "dtype", "value"});
    Scalar Sc;
    auto Name = getName(S, P, ArgNames, "buffers and scalars");
    bool Ok = Name.has_value();
    if (Name)
      Sc.Name = *Name;
    std::optional<DType> Type;
    if (const Json *D = require(S, P, "dtype"))
      Type = getDType(*D, keyPath(P, "dtype"));
    Ok &= Type.has_value();
    if (Type)
      Sc.Type = *Type;
    const Json *V = require(S, P, "value");
    if (!V) {
      Ok = false;
    } else {
      std::string VP = keyPath(P, "value");
      if (V->is_string()) {
        auto E = getExpr(*V, VP);
        Ok &= E.has_value();
        if (E)
          Sc.Value = std::move(*E);
      } else if (V->is_number_integer()) {
        auto N = getInt(*V, VP);
        Ok &= N.has_value();
        if (N && Type) {
          if (llvm::Error E = checkRange(*N, *Type)) {
            error(VP, llvm::toString(std::move(E)));
            Ok = false;
          }
        }
        if (N)
          Sc.Value = *N;
      } else if (V->is_number_float()) {
        auto D = getNumber(*V, VP);
        Ok &= D.has_value();
        if (D && Type && !isFloatingPoint(*Type)) {
          error(VP, "expected an integer for dtype '" + dtypeName(*Type) +
                        "', got " + describe(*V));
          Ok = false;
        }
        if (D)
          Sc.Value = *D;
      } else {
        typeError(VP, "a number or an expression string", *V);
        Ok = false;
      }
    }
    if (Ok)
      Spec.Scalars.push_back(std::move(Sc));
  }
}

void SpecParser::parseArgs(const Json &J, const std::string &Path,
                           const std::set<std::string> &ArgNames,
                           const Json *BuffersJson, const Json *ScalarsJson) {
  if (!expectArray(J, Path))
    return;
  std::set<std::string> Passed;
  for (size_t I = 0; I < J.size(); ++I) {
    std::string P = indexPath(Path, I);
    auto Name = getString(J[I], P);
    if (!Name)
      continue;
    if (!ArgNames.count(*Name)) {
      std::string Declared =
          ArgNames.empty() ? "no buffers or scalars are declared"
                           : "declared: " + llvm::join(ArgNames, ", ");
      error(P, "'" + *Name + "' is not a buffer or scalar (" + Declared + ")");
      continue;
    }
    if (!Passed.insert(*Name).second) {
      error(P, "'" + *Name + "' is passed twice");
      continue;
    }
    Spec.Args.push_back(*Name);
  }
  // A declared but unpassed buffer is almost always a forgotten argument.
  auto Unpassed = [&](const Json *List, const std::string &ListPath) {
    if (!List || !List->is_array())
      return;
    for (size_t I = 0; I < List->size(); ++I) {
      const Json &E = (*List)[I];
      if (!E.is_object())
        continue;
      const Json *N = get(E, "name");
      if (!N || !N->is_string())
        continue;
      std::string Name = N->get<std::string>();
      if (ArgNames.count(Name) && !Passed.count(Name))
        error(keyPath(indexPath(ListPath, I), "name"),
              "'" + Name + "' is not passed to the kernel; add it to $.args");
    }
  };
  Unpassed(BuffersJson, "$.buffers");
  Unpassed(ScalarsJson, "$.scalars");
}

LaunchSpec SpecParser::parse(const Json &J) {
  if (!J.is_object()) {
    typeError("$", "an object", J);
    return Spec;
  }
  checkKeys(J, "$",
            {"kernel", "template_args", "sizes", "buffers", "scalars", "args",
             "grid", "block", "shared_mem", "tunables", "constraints",
             "tolerance", "bytes", "flops", "allow_lower_precision", "notes"});

  if (const Json *K = require(J, "$", "kernel")) {
    if (auto S = getString(*K, "$.kernel")) {
      if (!isQualifiedName(*S))
        error("$.kernel", "expected a qualified C++ name such as "
                          "\"ns::kernel\", got " +
                              jsonQuote(*S) +
                              (llvm::StringRef(*S).contains('<')
                                   ? "; put template arguments in "
                                     "$.template_args"
                                   : ""));
      else
        Spec.Kernel = *S;
    }
  }
  if (const Json *T = get(J, "template_args"))
    if (expectArray(*T, "$.template_args"))
      for (size_t I = 0; I < T->size(); ++I)
        if (auto S = getString((*T)[I], indexPath("$.template_args", I)))
          Spec.TemplateArgs.push_back(*S);

  // Sizes and tunables first: they are the names expressions may use.
  if (const Json *S = get(J, "sizes"))
    parseSizes(*S, "$.sizes");
  if (const Json *T = get(J, "tunables"))
    parseTunables(*T, "$.tunables");

  std::set<std::string> ArgNames;
  const Json *BuffersJ = get(J, "buffers");
  const Json *ScalarsJ = get(J, "scalars");
  if (BuffersJ)
    parseBuffers(*BuffersJ, "$.buffers", ArgNames);
  if (ScalarsJ)
    parseScalars(*ScalarsJ, "$.scalars", ArgNames);
  if (const Json *A = require(J, "$", "args"))
    parseArgs(*A, "$.args", ArgNames, BuffersJ, ScalarsJ);

  if (const Json *G = require(J, "$", "grid"))
    Spec.Grid = getDims(*G, "$.grid");
  if (const Json *B = require(J, "$", "block"))
    Spec.Block = getDims(*B, "$.block");
  if (const Json *M = get(J, "shared_mem"))
    if (auto E = getExpr(*M, "$.shared_mem"))
      Spec.SharedMem = std::move(*E);

  if (const Json *C = get(J, "constraints"))
    if (expectArray(*C, "$.constraints"))
      for (size_t I = 0; I < C->size(); ++I)
        if (auto E = getExpr((*C)[I], indexPath("$.constraints", I)))
          Spec.Constraints.push_back(std::move(*E));

  if (const Json *T = get(J, "tolerance"))
    Spec.Tol = getTolerance(*T, "$.tolerance");
  if (const Json *B = get(J, "bytes"))
    Spec.Bytes = getExpr(*B, "$.bytes");
  if (const Json *F = get(J, "flops"))
    Spec.Flops = getExpr(*F, "$.flops");
  if (const Json *A = get(J, "allow_lower_precision"))
    if (auto V = getBool(*A, "$.allow_lower_precision"))
      Spec.AllowLowerPrecision = *V;
  // What `forge-port spec` guessed, for the user: read and kept, not used.
  if (const Json *N = get(J, "notes"))
    if (expectArray(*N, "$.notes"))
      for (size_t I = 0; I < N->size(); ++I)
        if (auto S = getString((*N)[I], indexPath("$.notes", I)))
          Spec.Notes.push_back(*S);
  return std::move(Spec);
}

} // namespace

llvm::Expected<LaunchSpec>
forge::measure::parseLaunchSpec(const Json &J, llvm::StringRef Origin) {
  SpecParser P;
  LaunchSpec Spec;
  // nlohmann throws on misuse; a bad spec must never abort the tool.
  try {
    Spec = P.parse(J);
  } catch (const std::exception &E) {
    P.Errors.push_back(std::string("$: malformed spec: ") + E.what());
  }
  if (!P.Errors.empty()) {
    std::string Msg;
    for (const std::string &E : P.Errors) {
      if (!Msg.empty())
        Msg += "\n";
      Msg += Origin.str() + ": " + E;
    }
    return llvm::make_error<UsageError>(std::move(Msg));
  }
  Spec.Origin = Origin.str();
  return Spec;
}

llvm::Expected<LaunchSpec> forge::measure::readLaunchSpec(llvm::StringRef Path) {
  auto J = readJsonFile(Path);
  if (!J)
    return llvm::make_error<UsageError>(llvm::toString(J.takeError()));
  return parseLaunchSpec(*J, Path);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

Json toleranceJson(const Tolerance &T) {
  Json J = Json::object();
  if (T.RelL2)
    J["rel_l2"] = *T.RelL2;
  if (T.MaxAbs)
    J["max_abs"] = *T.MaxAbs;
  return J;
}

Json dimsJson(const std::vector<IntExpr> &Dims) {
  if (Dims.size() == 1)
    return Dims.front().text();
  Json J = Json::array();
  for (const IntExpr &E : Dims)
    J.push_back(E.text());
  return J;
}

Json initJson(const InitSpec &I) {
  Json J = Json::object();
  J["kind"] = initKindName(I.Kind).str();
  switch (I.Kind) {
  case InitKind::Uniform:
    J["min"] = I.Min;
    J["max"] = I.Max;
    break;
  case InitKind::Normal:
    J["mean"] = I.Mean;
    J["stddev"] = I.Stddev;
    break;
  case InitKind::Iota:
    break;
  case InitKind::Constant:
    J["value"] = I.Value;
    break;
  case InitKind::File:
    J["path"] = I.Path;
    break;
  }
  return J;
}

} // namespace

Json forge::measure::toJson(const LaunchSpec &S) {
  Json J = Json::object();
  J["kernel"] = S.Kernel;
  if (!S.TemplateArgs.empty())
    J["template_args"] = S.TemplateArgs;
  Json Sizes = Json::object();
  for (const auto &[Name, Value] : S.Sizes)
    Sizes[Name] = Value;
  J["sizes"] = std::move(Sizes);
  Json Buffers = Json::array();
  for (const Buffer &B : S.Buffers) {
    Json BJ = Json::object();
    BJ["name"] = B.Name;
    BJ["dtype"] = dtypeName(B.Type).str();
    BJ["count"] = B.Count.text();
    if (B.Init)
      BJ["init"] = initJson(*B.Init);
    BJ["role"] = roleName(B.Role).str();
    if (B.ToleranceOverride)
      BJ["tolerance"] = toleranceJson(*B.ToleranceOverride);
    Buffers.push_back(std::move(BJ));
  }
  J["buffers"] = std::move(Buffers);
  Json Scalars = Json::array();
  for (const Scalar &Sc : S.Scalars) {
    Json SJ = Json::object();
    SJ["name"] = Sc.Name;
    SJ["dtype"] = dtypeName(Sc.Type).str();
    if (auto *I = std::get_if<int64_t>(&Sc.Value))
      SJ["value"] = *I;
    else if (auto *D = std::get_if<double>(&Sc.Value))
      SJ["value"] = *D;
    else
      SJ["value"] = std::get<IntExpr>(Sc.Value).text();
    Scalars.push_back(std::move(SJ));
  }
  J["scalars"] = std::move(Scalars);
  J["args"] = S.Args;
  J["grid"] = dimsJson(S.Grid);
  J["block"] = dimsJson(S.Block);
  J["shared_mem"] = S.SharedMem.text();
  Json Tunables = Json::array();
  for (const Tunable &T : S.Tunables) {
    Json TJ = Json::object();
    TJ["name"] = T.Name;
    TJ["values"] = T.Values;
    if (T.Default)
      TJ["default"] = *T.Default;
    Tunables.push_back(std::move(TJ));
  }
  J["tunables"] = std::move(Tunables);
  Json Constraints = Json::array();
  for (const IntExpr &C : S.Constraints)
    Constraints.push_back(C.text());
  J["constraints"] = std::move(Constraints);
  if (S.Tol)
    J["tolerance"] = toleranceJson(*S.Tol);
  if (S.Bytes)
    J["bytes"] = S.Bytes->text();
  if (S.Flops)
    J["flops"] = S.Flops->text();
  J["allow_lower_precision"] = S.AllowLowerPrecision;
  return J;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

const Buffer *LaunchSpec::findBuffer(llvm::StringRef Name) const {
  for (const Buffer &B : Buffers)
    if (B.Name == Name)
      return &B;
  return nullptr;
}

const Scalar *LaunchSpec::findScalar(llvm::StringRef Name) const {
  for (const Scalar &S : Scalars)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

const Tunable *LaunchSpec::findTunable(llvm::StringRef Name) const {
  for (const Tunable &T : Tunables)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

llvm::Expected<ValueMap>
LaunchSpec::environment(const ValueMap &Overrides) const {
  ValueMap Env;
  std::vector<std::string> Names;
  for (const auto &[Name, Value] : Sizes) {
    Env[Name] = Value;
    Names.push_back(Name);
  }
  for (const Tunable &T : Tunables) {
    Env[T.Name] = T.defaultValue();
    Names.push_back(T.Name);
  }
  for (const auto &[Name, Value] : Overrides) {
    auto It = Env.find(Name);
    if (It == Env.end())
      return makeError("unknown size or tunable '{0}' (known: {1})", Name,
                       llvm::join(Names, ", "));
    It->second = Value;
  }
  return Env;
}

namespace {

std::string dimPath(llvm::StringRef Field, size_t NumDims, size_t I) {
  std::string P = "$." + Field.str();
  return NumDims == 1 ? P : indexPath(P, I);
}

llvm::Expected<int64_t> evalAt(const IntExpr &E, const ValueMap &Env,
                               const std::string &Path) {
  auto V = E.evaluate(Env);
  if (!V)
    return makeError("{0}: {1}", Path, llvm::toString(V.takeError()));
  return *V;
}

} // namespace

llvm::Expected<Geometry> LaunchSpec::geometry(const ValueMap &Values) const {
  auto Env = environment(Values);
  if (!Env)
    return Env.takeError();
  Geometry G;
  auto Dims = [&](llvm::StringRef Field, const std::vector<IntExpr> &Exprs,
                  std::array<int64_t, 3> &Out) -> llvm::Error {
    if (Exprs.empty() || Exprs.size() > 3)
      return makeError("$.{0}: expected 1 to 3 dimensions, got {1}", Field,
                       Exprs.size());
    for (size_t I = 0; I < Exprs.size(); ++I) {
      std::string P = dimPath(Field, Exprs.size(), I);
      auto V = evalAt(Exprs[I], *Env, P);
      if (!V)
        return V.takeError();
      if (*V < 1)
        return makeError("{0}: '{1}' evaluates to {2}; a launch dimension "
                         "must be at least 1",
                         P, Exprs[I].text(), *V);
      Out[I] = *V;
    }
    return llvm::Error::success();
  };
  if (llvm::Error E = Dims("grid", Grid, G.Grid))
    return std::move(E);
  if (llvm::Error E = Dims("block", Block, G.Block))
    return std::move(E);

  // CUDA's launch limits, the same on every supported architecture.
  static const char *const Axis[] = {"x", "y", "z"};
  const int64_t GridMax[] = {INT32_MAX, 65535, 65535};
  const int64_t BlockMax[] = {1024, 1024, 64};
  for (int I = 0; I < 3; ++I) {
    if (G.Grid[I] > GridMax[I])
      return makeError("$.grid: {0} = {1} exceeds the limit of {2}", Axis[I],
                       G.Grid[I], GridMax[I]);
    if (G.Block[I] > BlockMax[I])
      return makeError("$.block: {0} = {1} exceeds the limit of {2}", Axis[I],
                       G.Block[I], BlockMax[I]);
  }
  int64_t Threads = G.Block[0] * G.Block[1] * G.Block[2];
  if (Threads > 1024)
    return makeError("$.block: {0} threads per block exceeds the limit of "
                     "1024",
                     Threads);

  auto Shared = evalAt(SharedMem, *Env, "$.shared_mem");
  if (!Shared)
    return Shared.takeError();
  if (*Shared < 0)
    return makeError("$.shared_mem: '{0}' evaluates to {1}", SharedMem.text(),
                     *Shared);
  G.SharedMemBytes = *Shared;
  return G;
}

llvm::Expected<bool>
LaunchSpec::satisfiesConstraints(const ValueMap &Values) const {
  auto Env = environment(Values);
  if (!Env)
    return Env.takeError();
  for (size_t I = 0; I < Constraints.size(); ++I) {
    auto V = evalAt(Constraints[I], *Env, indexPath("$.constraints", I));
    if (!V)
      return V.takeError();
    if (*V == 0)
      return false;
  }
  return true;
}

llvm::Expected<uint64_t> LaunchSpec::bufferBytes(const Buffer &B,
                                                 const ValueMap &Values) const {
  auto Env = environment(Values);
  if (!Env)
    return Env.takeError();
  std::string P = "buffer '" + B.Name + "' count";
  auto Count = evalAt(B.Count, *Env, P);
  if (!Count)
    return Count.takeError();
  if (*Count < 0)
    return makeError("{0}: '{1}' evaluates to {2}", P, B.Count.text(), *Count);
  uint64_t Bytes = 0;
  if (__builtin_mul_overflow(uint64_t(*Count), uint64_t(dtypeSize(B.Type)),
                             &Bytes))
    return makeError("{0}: {1} elements of {2} overflow 64 bits", P, *Count,
                     dtypeName(B.Type));
  return Bytes;
}

Tolerance LaunchSpec::toleranceFor(const Buffer &B) const {
  Tolerance T = defaultTolerance(B.Type);
  for (const std::optional<Tolerance> *Level : {&Tol, &B.ToleranceOverride}) {
    if (!*Level)
      continue;
    if ((*Level)->RelL2)
      T.RelL2 = (*Level)->RelL2;
    if ((*Level)->MaxAbs)
      T.MaxAbs = (*Level)->MaxAbs;
  }
  return T;
}

llvm::Expected<std::variant<int64_t, double>>
LaunchSpec::scalarValue(const Scalar &S, const ValueMap &Values) const {
  std::string P = "scalar '" + S.Name + "'";
  int64_t I = 0;
  if (auto *D = std::get_if<double>(&S.Value)) {
    if (!isFloatingPoint(S.Type))
      return makeError("{0}: {1} is not an integer (dtype '{2}')", P, *D,
                       dtypeName(S.Type));
    return *D;
  }
  if (auto *Lit = std::get_if<int64_t>(&S.Value)) {
    I = *Lit;
  } else {
    auto Env = environment(Values);
    if (!Env)
      return Env.takeError();
    auto V = evalAt(std::get<IntExpr>(S.Value), *Env, P);
    if (!V)
      return V.takeError();
    I = *V;
  }
  if (isFloatingPoint(S.Type))
    return double(I);
  if (llvm::Error E = checkRange(I, S.Type))
    return makeError("{0}: {1}", P, llvm::toString(std::move(E)));
  return I;
}
