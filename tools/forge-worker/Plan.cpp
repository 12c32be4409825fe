//===- forge-worker/Plan.cpp - Reading job.plan ----------------------------===//
///
/// \file
/// A strict reader for the `job.plan` format of docs/worker-protocol.md.
/// Every error names the line it was found on ("job.plan:12: ..."), because
/// the plan is generated and a bad plan is a bug in its writer.
///
//===----------------------------------------------------------------------===//

#include "Plan.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace forge::worker {

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

namespace {
struct DTypeInfo {
  DType T;
  const char *Name;
  size_t Size;
  bool Float;
};
const DTypeInfo DTypes[] = {
#define FORGE_DTYPE(E, Name, Size, Float) {DType::E, Name, Size, Float},
#include "forge/Measure/DTypes.def"
};

const DTypeInfo &info(DType T) {
  for (const DTypeInfo &I : DTypes)
    if (I.T == T)
      return I;
  return DTypes[2];
}
} // namespace

const char *dtypeName(DType T) { return info(T).Name; }

bool parseDType(const std::string &Name, DType &Out) {
  for (const DTypeInfo &I : DTypes)
    if (Name == I.Name) {
      Out = I.T;
      return true;
    }
  return false;
}

size_t dtypeSize(DType T) { return info(T).Size; }

bool isFloatingPoint(DType T) { return info(T).Float; }

const BufferPlan *Plan::findBuffer(const std::string &Name) const {
  for (const BufferPlan &B : Buffers)
    if (B.Name == Name)
      return &B;
  return nullptr;
}

const CandidatePlan *Plan::findCandidate(const std::string &Id) const {
  for (const CandidatePlan &C : Candidates)
    if (C.Id == Id)
      return &C;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// The parser
//===----------------------------------------------------------------------===//

namespace {

bool isIdentifier(const std::string &S) {
  if (S.empty())
    return false;
  auto Start = [](char C) {
    return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
  };
  if (!Start(S[0]))
    return false;
  for (char C : S)
    if (!Start(C) && !(C >= '0' && C <= '9'))
      return false;
  return true;
}

bool isBlank(char C) { return C == ' ' || C == '\t' || C == '\r'; }

std::vector<std::string> splitFields(const std::string &Line) {
  std::vector<std::string> Out;
  size_t I = 0;
  while (I < Line.size()) {
    while (I < Line.size() && isBlank(Line[I]))
      ++I;
    size_t Start = I;
    while (I < Line.size() && !isBlank(Line[I]))
      ++I;
    if (I > Start)
      Out.push_back(Line.substr(Start, I - Start));
  }
  return Out;
}

/// Integer limits of an integer dtype, as long double so that both i64 and
/// u64 fit.
void intRange(DType T, long double &Lo, long double &Hi) {
  switch (T) {
  case DType::I8: Lo = -128; Hi = 127; return;
  case DType::U8: Lo = 0; Hi = 255; return;
  case DType::I16: Lo = -32768; Hi = 32767; return;
  case DType::U16: Lo = 0; Hi = 65535; return;
  case DType::I32: Lo = -2147483648.0L; Hi = 2147483647.0L; return;
  case DType::U32: Lo = 0; Hi = 4294967295.0L; return;
  case DType::I64:
    Lo = -9223372036854775808.0L;
    Hi = 9223372036854775807.0L;
    return;
  case DType::U64: Lo = 0; Hi = 18446744073709551615.0L; return;
  default: Lo = -HUGE_VALL; Hi = HUGE_VALL; return;
  }
}

/// The largest finite value of a floating-point dtype.
double floatMax(DType T) {
  switch (T) {
  case DType::F16: return 65504.0;
  case DType::BF16: return 3.3895313892515355e38;
  case DType::F32: return FLT_MAX;
  default: return DBL_MAX;
  }
}

std::string resolvePath(const std::string &JobDir, const std::string &P) {
  if (P.empty() || P[0] == '/' || JobDir.empty())
    return P;
  if (JobDir.back() == '/')
    return JobDir + P;
  return JobDir + "/" + P;
}

class Parser {
public:
  Parser(const std::string &Text, const std::string &JobDir, Plan &Out)
      : Text(Text), JobDir(JobDir), Out(Out) {}

  bool run(std::string &Error);

private:
  const std::string &Text;
  const std::string &JobDir;
  Plan &Out;

  unsigned LineNo = 0;
  std::string Err;

  bool SeenHeader = false;
  bool SeenBlock = false; ///< a reference or candidate block was opened
  bool InBlock = false;
  unsigned BlockLine = 0;
  bool BlockHasGrid = false, BlockHasBlock = false, BlockHasShared = false,
       BlockHasLabel = false;
  std::set<std::string> OptionsSeen;
  std::set<std::string> Ids;

  bool fail(const std::string &Msg) {
    Err = "job.plan:" + std::to_string(LineNo) + ": " + Msg;
    return false;
  }

  bool expectFields(const std::vector<std::string> &F, size_t N,
                    const std::string &Form) {
    if (F.size() != N)
      return fail("'" + F[0] + "' expects '" + Form + "' (" +
                  std::to_string(N - 1) + " field" + (N == 2 ? "" : "s") +
                  " after it), got " + std::to_string(F.size() - 1));
    return true;
  }

  bool parseU64(const std::string &S, uint64_t &V, const std::string &What) {
    if (S.empty() || !(S[0] >= '0' && S[0] <= '9'))
      return fail("bad " + What + " '" + S + "': expected a non-negative "
                  "decimal integer");
    errno = 0;
    char *End = nullptr;
    unsigned long long X = std::strtoull(S.c_str(), &End, 10);
    if (*End != '\0')
      return fail("bad " + What + " '" + S + "': expected a non-negative "
                  "decimal integer");
    if (errno == ERANGE)
      return fail(What + " '" + S + "' is out of range");
    V = X;
    return true;
  }

  bool parseUnsigned(const std::string &S, unsigned &V, const std::string &What,
                     unsigned Min) {
    uint64_t X = 0;
    if (!parseU64(S, X, What))
      return false;
    if (X > std::numeric_limits<unsigned>::max())
      return fail(What + " '" + S + "' is out of range");
    if (X < Min)
      return fail(What + " must be at least " + std::to_string(Min) +
                  ", got " + S);
    V = unsigned(X);
    return true;
  }

  bool parseDouble(const std::string &S, double &V, const std::string &What) {
    errno = 0;
    char *End = nullptr;
    double X = S.empty() ? 0 : std::strtod(S.c_str(), &End);
    if (S.empty() || *End != '\0' || isBlank(S[0]))
      return fail("bad " + What + " '" + S + "': expected a decimal number");
    if (!std::isfinite(X) || (errno == ERANGE && std::fabs(X) > 1))
      return fail(What + " '" + S + "' is not a finite number");
    V = X;
    return true;
  }

  bool parseNonNegative(const std::string &S, double &V,
                        const std::string &What) {
    if (!parseDouble(S, V, What))
      return false;
    if (V < 0)
      return fail(What + " must not be negative, got " + S);
    return true;
  }

  bool parseIdentifier(const std::string &S, const std::string &What) {
    if (!isIdentifier(S))
      return fail(What + " '" + S + "' is not a C identifier");
    return true;
  }

  bool parseTypeName(const std::string &S, DType &T) {
    if (!parseDType(S, T))
      return fail("unknown dtype '" + S + "'");
    return true;
  }

  /// A number that initialises an element of dtype T: integral and in range
  /// for integer dtypes, finite and representable for floating point.
  bool parseElementValue(const std::string &S, DType T, double &V,
                         const std::string &What) {
    if (!parseDouble(S, V, What))
      return false;
    if (isFloatingPoint(T)) {
      if (std::fabs(V) > floatMax(T))
        return fail(What + " " + S + " is out of range for " + dtypeName(T));
      return true;
    }
    if (V != std::floor(V))
      return fail(What + " " + S + " is not an integer, but the buffer is " +
                  dtypeName(T));
    long double Lo, Hi;
    intRange(T, Lo, Hi);
    if ((long double)V < Lo || (long double)V > Hi)
      return fail(What + " " + S + " is out of range for " + dtypeName(T));
    return true;
  }

  bool header(const std::vector<std::string> &F);
  bool option(const std::vector<std::string> &F);
  bool work(const std::vector<std::string> &F);
  bool buffer(const std::vector<std::string> &F);
  bool openBlock(const std::vector<std::string> &F);
  bool blockLine(const std::vector<std::string> &F, const std::string &Raw);
  bool scalarArg(const std::vector<std::string> &F, ArgPlan &A);
  bool dims(const std::vector<std::string> &F, unsigned (&D)[3]);
};

bool Parser::header(const std::vector<std::string> &F) {
  if (F[0] != "forge-job")
    return fail("expected the version header 'forge-job 1' as the first "
                "line, got '" + F[0] + "'");
  if (F.size() != 2)
    return fail("expected 'forge-job 1'");
  if (F[1] != "1")
    return fail("unsupported plan version '" + F[1] +
                "' (this worker reads version 1)");
  SeenHeader = true;
  return true;
}

bool Parser::option(const std::vector<std::string> &F) {
  if (F.size() < 2)
    return fail("'option' expects 'option NAME VALUE'");
  const std::string &Name = F[1];
  static const char *Known[] = {"seed",        "input_sets", "warmup",
                                "rounds",      "reps",       "min_time_ms",
                                "flush",       "timer",      "floor_factor",
                                "candidate_timeout_s", "sandbox"};
  bool IsKnown = false;
  for (const char *K : Known)
    IsKnown |= Name == K;
  if (!IsKnown)
    return fail("unknown option '" + Name + "'");
  if (!expectFields(F, 3, "option NAME VALUE"))
    return false;
  if (!OptionsSeen.insert(Name).second)
    return fail("option '" + Name + "' is given twice");
  const std::string &V = F[2];
  Options &O = Out.Opts;
  if (Name == "seed")
    return parseU64(V, O.Seed, "seed");
  if (Name == "input_sets")
    return parseUnsigned(V, O.InputSets, "input_sets", 1);
  if (Name == "warmup")
    return parseUnsigned(V, O.Warmup, "warmup", 0);
  if (Name == "rounds")
    return parseUnsigned(V, O.Rounds, "rounds", 1);
  if (Name == "reps")
    return parseUnsigned(V, O.Reps, "reps", 1);
  if (Name == "min_time_ms")
    return parseNonNegative(V, O.MinTimeMs, "min_time_ms");
  if (Name == "floor_factor")
    return parseNonNegative(V, O.FloorFactor, "floor_factor");
  if (Name == "candidate_timeout_s") {
    if (!parseDouble(V, O.CandidateTimeoutS, "candidate_timeout_s"))
      return false;
    if (O.CandidateTimeoutS <= 0)
      return fail("candidate_timeout_s must be positive, got " + V);
    return true;
  }
  if (Name == "sandbox") {
    if (auto M = measure::parseSandboxMode(V)) {
      O.Sandbox = *M;
      return true;
    }
    return fail("unknown sandbox mode '" + V +
                "' (expected 'on', 'strict' or 'off')");
  }
  if (Name == "flush") {
    if (V == "l2")
      O.FlushL2 = true;
    else if (V == "none")
      O.FlushL2 = false;
    else
      return fail("unknown flush '" + V + "' (expected 'l2' or 'none')");
    return true;
  }
  // timer
  if (V == "cupti")
    O.Cupti = true;
  else if (V == "events")
    O.Cupti = false;
  else
    return fail("unknown timer '" + V + "' (expected 'cupti' or 'events')");
  return true;
}

bool Parser::work(const std::vector<std::string> &F) {
  if (Out.Work)
    return fail("'work' is given twice");
  if (!expectFields(F, 7, "work bytes B flops F dtype D"))
    return false;
  if (F[1] != "bytes" || F[3] != "flops" || F[5] != "dtype")
    return fail("expected 'work bytes B flops F dtype D'");
  WorkPlan W;
  if (!parseNonNegative(F[2], W.Bytes, "work bytes") ||
      !parseNonNegative(F[4], W.Flops, "work flops") ||
      !parseTypeName(F[6], W.Type))
    return false;
  Out.Work = W;
  return true;
}

bool Parser::buffer(const std::vector<std::string> &F) {
  const char *Form = "buffer NAME DTYPE COUNT ROLE INIT... [tol REL_L2 MAX_ABS]";
  if (F.size() < 6)
    return fail(std::string("'buffer' expects '") + Form + "'");
  BufferPlan B;
  B.Name = F[1];
  if (!parseIdentifier(B.Name, "buffer name"))
    return false;
  if (Out.findBuffer(B.Name))
    return fail("buffer '" + B.Name + "' is declared twice");
  if (!parseTypeName(F[2], B.Type))
    return false;
  if (!parseU64(F[3], B.Count, "element count"))
    return false;
  if (B.Count == 0)
    return fail("buffer '" + B.Name + "' has no elements");
  if (B.Count > std::numeric_limits<uint64_t>::max() / dtypeSize(B.Type))
    return fail("buffer '" + B.Name + "' is too large");
  if (F[4] == "in")
    B.R = Role::In;
  else if (F[4] == "out")
    B.R = Role::Out;
  else if (F[4] == "inout")
    B.R = Role::InOut;
  else
    return fail("unknown role '" + F[4] + "' (expected in, out or inout)");

  size_t I = 5;
  const std::string &Init = F[I++];
  auto Need = [&](size_t N) {
    if (I + N > F.size())
      return fail("init '" + Init + "' expects " + std::to_string(N) +
                  " value" + (N == 1 ? "" : "s"));
    return true;
  };
  if (Init == "uniform") {
    B.Init = InitKind::Uniform;
    if (!Need(2) || !parseElementValue(F[I], B.Type, B.A, "uniform minimum") ||
        !parseElementValue(F[I + 1], B.Type, B.B, "uniform maximum"))
      return false;
    if (B.A > B.B)
      return fail("uniform minimum " + F[I] + " is larger than the maximum " +
                  F[I + 1]);
    I += 2;
  } else if (Init == "normal") {
    B.Init = InitKind::Normal;
    if (!Need(2) || !parseDouble(F[I], B.A, "normal mean") ||
        !parseNonNegative(F[I + 1], B.B, "normal standard deviation"))
      return false;
    I += 2;
  } else if (Init == "iota") {
    B.Init = InitKind::Iota;
  } else if (Init == "constant") {
    B.Init = InitKind::Constant;
    if (!Need(1) || !parseElementValue(F[I], B.Type, B.A, "constant"))
      return false;
    I += 1;
  } else if (Init == "file") {
    B.Init = InitKind::File;
    if (!Need(1))
      return false;
    B.Path = resolvePath(JobDir, F[I]);
    I += 1;
  } else if (Init == "none") {
    B.Init = InitKind::None;
  } else {
    return fail("unknown init '" + Init +
                "' (expected uniform, normal, iota, constant, file or none)");
  }
  if (B.R == Role::Out && B.Init != InitKind::None)
    return fail("buffer '" + B.Name + "' is 'out', so its init must be "
                "'none', not '" + Init + "'");
  if (B.R != Role::Out && B.Init == InitKind::None)
    return fail("buffer '" + B.Name + "' is '" + F[4] +
                "', so it needs an init (only 'out' buffers take 'none')");

  if (I < F.size()) {
    if (F[I] != "tol")
      return fail("unexpected '" + F[I] + "' after the init of buffer '" +
                  B.Name + "' (expected 'tol REL_L2 MAX_ABS' or the end of "
                  "the line)");
    if (I + 3 != F.size())
      return fail("'tol' expects two values, REL_L2 and MAX_ABS ('-' to "
                  "derive a bound)");
    if (B.R == Role::In)
      return fail("buffer '" + B.Name + "' is 'in' and takes no tolerance");
    double V = 0;
    if (F[I + 1] != "-") {
      if (!parseNonNegative(F[I + 1], V, "tolerance REL_L2"))
        return false;
      B.RelL2 = V;
    }
    if (F[I + 2] != "-") {
      if (!parseNonNegative(F[I + 2], V, "tolerance MAX_ABS"))
        return false;
      B.MaxAbs = V;
    }
  }
  Out.Buffers.push_back(B);
  return true;
}

bool Parser::openBlock(const std::vector<std::string> &F) {
  bool IsRef = F[0] == "reference";
  if (!expectFields(F, 4, F[0] + " ID LIBRARY SYMBOL"))
    return false;
  if (IsRef && !Out.Candidates.empty())
    return fail("a second reference ('" + F[1] +
                "'); a plan has exactly one");
  if (!IsRef && Out.Candidates.empty())
    return fail("candidate '" + F[1] + "' before the reference; the "
                "reference comes first");
  CandidatePlan C;
  C.Id = F[1];
  C.Reference = IsRef;
  if (!parseIdentifier(C.Id, F[0] + " id"))
    return false;
  if (!Ids.insert(C.Id).second)
    return fail("id '" + C.Id + "' is used twice");
  C.Library = resolvePath(JobDir, F[2]);
  C.Symbol = F[3];
  if (!parseIdentifier(C.Symbol, "symbol"))
    return false;
  Out.Candidates.push_back(C);
  SeenBlock = InBlock = true;
  BlockLine = LineNo;
  BlockHasGrid = BlockHasBlock = BlockHasShared = BlockHasLabel = false;
  return true;
}

bool Parser::dims(const std::vector<std::string> &F, unsigned (&D)[3]) {
  if (!expectFields(F, 4, F[0] + " X Y Z"))
    return false;
  for (int K = 0; K < 3; ++K)
    if (!parseUnsigned(F[1 + K], D[K], F[0] + " dimension", 1))
      return false;
  return true;
}

bool Parser::scalarArg(const std::vector<std::string> &F, ArgPlan &A) {
  if (!expectFields(F, 4, "arg scalar DTYPE VALUE"))
    return false;
  if (!parseTypeName(F[2], A.Type))
    return false;
  const std::string &S = F[3];
  if (isFloatingPoint(A.Type)) {
    errno = 0;
    char *End = nullptr;
    double V = std::strtod(S.c_str(), &End);
    if (S.empty() || *End != '\0' || isBlank(S[0]))
      return fail("bad " + std::string(dtypeName(A.Type)) + " scalar '" + S +
                  "': expected a decimal number");
    // inf and nan are accepted: printf writes them for such values.
    if (std::isfinite(V) && std::fabs(V) > floatMax(A.Type))
      return fail("scalar " + S + " is out of range for " +
                  dtypeName(A.Type));
    A.FloatValue = V;
    return true;
  }
  // Integers: an exact decimal literal, so that 64-bit values keep every
  // digit.
  bool Neg = !S.empty() && S[0] == '-';
  std::string Digits = Neg ? S.substr(1) : S;
  bool Ok = !Digits.empty();
  for (char C : Digits)
    Ok &= C >= '0' && C <= '9';
  if (!Ok) {
    char *End = nullptr;
    double D = std::strtod(S.c_str(), &End);
    if (!S.empty() && *End == '\0' && std::isfinite(D) && D != std::floor(D))
      return fail("scalar " + S + " is not an integer, but its dtype is " +
                  dtypeName(A.Type));
    return fail("bad " + std::string(dtypeName(A.Type)) + " scalar '" + S +
                "': expected a decimal integer");
  }
  errno = 0;
  unsigned long long Mag = std::strtoull(Digits.c_str(), nullptr, 10);
  bool Overflow = errno == ERANGE;
  long double Lo, Hi;
  intRange(A.Type, Lo, Hi);
  long double V = Neg ? -(long double)Mag : (long double)Mag;
  if (Overflow || V < Lo || V > Hi)
    return fail("scalar " + S + " is out of range for " + dtypeName(A.Type));
  if (Neg)
    A.IntValue = Mag == (1ULL << 63) ? std::numeric_limits<int64_t>::min()
                                     : -int64_t(Mag);
  else
    A.IntValue = int64_t(Mag); // u64 above 2^63 keeps its bits
  return true;
}

bool Parser::blockLine(const std::vector<std::string> &F,
                       const std::string &Raw) {
  CandidatePlan &C = Out.Candidates.back();
  const std::string &K = F[0];
  if (K == "end") {
    if (!expectFields(F, 1, "end"))
      return false;
    if (!BlockHasGrid)
      return fail("'" + C.Id + "' has no 'grid' line");
    if (!BlockHasBlock)
      return fail("'" + C.Id + "' has no 'block' line");
    InBlock = false;
    return true;
  }
  if (K == "label") {
    if (BlockHasLabel)
      return fail("'" + C.Id + "' has two 'label' lines");
    BlockHasLabel = true;
    size_t P = Raw.find("label");
    std::string Rest = Raw.substr(P + 5);
    size_t B = 0, E = Rest.size();
    while (B < E && isBlank(Rest[B]))
      ++B;
    while (E > B && isBlank(Rest[E - 1]))
      --E;
    C.Label = Rest.substr(B, E - B);
    return true;
  }
  if (K == "grid") {
    if (BlockHasGrid)
      return fail("'" + C.Id + "' has two 'grid' lines");
    BlockHasGrid = true;
    return dims(F, C.Grid);
  }
  if (K == "block") {
    if (BlockHasBlock)
      return fail("'" + C.Id + "' has two 'block' lines");
    BlockHasBlock = true;
    return dims(F, C.Block);
  }
  if (K == "shared") {
    if (BlockHasShared)
      return fail("'" + C.Id + "' has two 'shared' lines");
    BlockHasShared = true;
    if (!expectFields(F, 2, "shared BYTES"))
      return false;
    return parseU64(F[1], C.SharedBytes, "shared memory size");
  }
  if (K == "arg") {
    if (F.size() < 2)
      return fail("'arg' expects 'arg buffer NAME' or 'arg scalar DTYPE "
                  "VALUE'");
    ArgPlan A;
    if (F[1] == "buffer") {
      if (!expectFields(F, 3, "arg buffer NAME"))
        return false;
      const BufferPlan *B = Out.findBuffer(F[2]);
      if (!B)
        return fail("unknown buffer '" + F[2] + "'");
      A.IsBuffer = true;
      A.Buffer = F[2];
      A.Type = B->Type;
    } else if (F[1] == "scalar") {
      if (!scalarArg(F, A))
        return false;
    } else {
      return fail("unknown argument kind '" + F[1] +
                  "' (expected 'buffer' or 'scalar')");
    }
    C.Args.push_back(A);
    return true;
  }
  if (K == "reference" || K == "candidate")
    return fail("'" + K + "' inside the block of '" + C.Id + "' (line " +
                std::to_string(BlockLine) + "), which has no 'end'");
  return fail("unknown directive '" + K + "' in the block of '" + C.Id + "'");
}

bool Parser::run(std::string &Error) {
  Out = Plan();
  Out.JobDir = JobDir;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t E = Text.find('\n', Pos);
    if (E == std::string::npos)
      E = Text.size();
    std::string Raw = Text.substr(Pos, E - Pos);
    Pos = E + 1;
    ++LineNo;
    size_t Hash = Raw.find('#');
    if (Hash != std::string::npos)
      Raw.resize(Hash);
    std::vector<std::string> F = splitFields(Raw);
    if (F.empty())
      continue;
    bool Ok = true;
    if (!SeenHeader)
      Ok = header(F);
    else if (F[0] == "forge-job")
      Ok = fail("the version header 'forge-job' is given twice");
    else if (InBlock)
      Ok = blockLine(F, Raw);
    else if (F[0] == "reference" || F[0] == "candidate")
      Ok = openBlock(F);
    else if (F[0] == "option" || F[0] == "work" || F[0] == "buffer") {
      if (SeenBlock)
        Ok = fail("'" + F[0] + "' after the first reference/candidate "
                  "block; options, work and buffers come first");
      else if (F[0] == "option")
        Ok = option(F);
      else if (F[0] == "work")
        Ok = work(F);
      else
        Ok = buffer(F);
    } else if (F[0] == "end")
      Ok = fail("'end' outside a reference or candidate block");
    else if (F[0] == "label" || F[0] == "grid" || F[0] == "block" ||
             F[0] == "shared" || F[0] == "arg")
      Ok = fail("'" + F[0] + "' outside a reference or candidate block");
    else
      Ok = fail("unknown directive '" + F[0] + "'");
    if (!Ok) {
      Error = Err;
      return false;
    }
  }
  if (!SeenHeader) {
    LineNo = LineNo ? LineNo : 1;
    fail("missing the version header 'forge-job 1'");
    Error = Err;
    return false;
  }
  if (InBlock) {
    LineNo = BlockLine;
    const CandidatePlan &C = Out.Candidates.back();
    fail(std::string(C.Reference ? "reference" : "candidate") + " '" + C.Id +
         "' has no 'end'");
    Error = Err;
    return false;
  }
  if (Out.Candidates.empty()) {
    fail("the plan has no reference");
    Error = Err;
    return false;
  }
  return true;
}

} // namespace

bool parsePlan(const std::string &Text, const std::string &JobDir, Plan &Out,
               std::string &Error) {
  Parser P(Text, JobDir, Out);
  return P.run(Error);
}

bool readPlan(const std::string &JobDir, Plan &Out, std::string &Error) {
  std::string Path = resolvePath(JobDir, "job.plan");
  if (JobDir.empty())
    Path = "job.plan";
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Error = "job.plan: cannot open '" + Path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream S;
  S << In.rdbuf();
  if (In.bad()) {
    Error = "job.plan: cannot read '" + Path + "'";
    return false;
  }
  return parsePlan(S.str(), JobDir, Out, Error);
}

} // namespace forge::worker
