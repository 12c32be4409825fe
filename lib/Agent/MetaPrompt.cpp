//===- Agent/MetaPrompt.cpp - Evolving instructions for a model -----------===//
#include "forge/Agent/MetaPrompt.h"
#include "forge/Agent/ModelClient.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace forge::agent {

const std::vector<std::pair<std::string, std::string>> &builtinInstructions() {
  static const std::vector<std::pair<std::string, std::string>> List = {
      {"coalesce",
       "Make global memory traffic coalesced and wide: have consecutive lanes of a warp touch "
       "consecutive addresses, and move 8 or 16 bytes per thread (float2, float4) where the "
       "alignment and the sizes allow it, with a scalar path for the remainder."},
      {"shared-tiling",
       "Stage data that several threads of a block reuse in shared memory: load each tile once "
       "with coalesced accesses, synchronise, compute from the tile, and pad it against bank "
       "conflicts; keep the halo and the edges of the data correct."},
      {"register-tiling",
       "Give each thread more work: compute several outputs per thread from values held in "
       "registers (register tiling, thread coarsening), so that every loaded value is reused "
       "several times and the index arithmetic and loop overhead are amortised."},
      {"warp-primitives",
       "Use warp-level primitives: exchange values between lanes with __shfl_sync and "
       "__shfl_down_sync, reduce within a warp before touching shared or global memory, and "
       "replace shared-memory round trips and __syncthreads where the lanes of one warp suffice."},
      {"occupancy",
       "Hide latency: lower the registers and shared memory each thread needs so that more warps "
       "fit on an SM, add __launch_bounds__ for the launched block size, unroll loops of constant "
       "trip count, and keep several independent loads in flight per thread."},
      {"algorithm",
       "Change the algorithm rather than its schedule: remove redundant work, reorder or fuse "
       "loops, or replace a multi-pass structure by a single pass, computing the same results "
       "with fewer memory accesses or operations."},
  };
  return List;
}

namespace {

bool isSpace(char C) { return C == ' ' || C == '\t' || C == '\n' || C == '\r'; }

/// The bytes of S, with C0 and C1 control characters (other than spaces)
/// and DEL removed and every run of whitespace folded into one space.
std::string foldText(StringRef S) {
  std::string Out;
  bool Space = false;
  for (size_t I = 0; I < S.size(); ++I) {
    unsigned char C = S[I];
    if (isSpace(char(C)) || C == '\v' || C == '\f') {
      Space = !Out.empty();
      continue;
    }
    if (C < 0x20 || C == 0x7f)
      continue;
    // C1 controls U+0080..U+009F are 0xC2 0x80..0x9F in UTF-8.
    if (C == 0xc2 && I + 1 < S.size() && (unsigned char)S[I + 1] >= 0x80 &&
        (unsigned char)S[I + 1] <= 0x9f) {
      ++I;
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += char(C);
  }
  return Out;
}

/// S cut to at most Max bytes, at the last space before the cut when there
/// is one in its second half, never inside a UTF-8 sequence.
std::string cutAt(std::string S, size_t Max) {
  if (S.size() <= Max)
    return S;
  size_t End = Max;
  while (End > 0 && ((unsigned char)S[End] & 0xc0) == 0x80)
    --End;
  size_t Space = S.rfind(' ', End);
  if (Space != std::string::npos && Space > Max / 2)
    End = Space;
  S.resize(End);
  while (!S.empty() && S.back() == ' ')
    S.pop_back();
  return S;
}

} // namespace

std::optional<std::string> cleanInstruction(StringRef Reply, size_t MaxBytes, std::string *Why) {
  auto Refuse = [&](std::string Reason) -> std::optional<std::string> {
    if (Why)
      *Why = std::move(Reason);
    return std::nullopt;
  };
  if (Reply.contains("<<<<<<<") || Reply.contains(">>>>>>>"))
    return Refuse("the reply holds edit blocks, not an instruction");
  // Fenced code is not part of an instruction: drop it (an unterminated
  // fence drops the rest).
  std::string Prose;
  StringRef Rest = Reply;
  while (true) {
    size_t Open = Rest.find("```");
    Prose += Rest.substr(0, Open).str();
    if (Open == StringRef::npos)
      break;
    size_t Close = Rest.find("```", Open + 3);
    if (Close == StringRef::npos)
      break;
    Prose += ' ';
    Rest = Rest.substr(Close + 3);
  }
  std::string Text = foldText(Prose);
  // A leading label or quotes add nothing.
  StringRef T = StringRef(Text).trim();
  for (StringRef Label : {"Instruction:", "Combined instruction:", "Approach:"})
    if (T.starts_with_insensitive(Label))
      T = T.drop_front(Label.size()).trim();
  if (T.size() >= 2 && ((T.front() == '"' && T.back() == '"') || (T.front() == '\'' && T.back() == '\'')))
    T = T.drop_front().drop_back().trim();
  Text = cutAt(T.str(), MaxBytes);
  if (Text.size() < 20)
    return Refuse(Text.empty() ? "the reply is empty"
                               : "the reply is too short to be an instruction: '" + Text + "'");
  return Text;
}

MetaPrompts::MetaPrompts(uint64_t Seed) : Seed(Seed), State(Seed) {
  for (const auto &[Name, Text] : builtinInstructions()) {
    Instruction I;
    I.Id = unsigned(Pool.size() + 1);
    I.Name = Name;
    I.Text = Text;
    Pool.push_back(std::move(I));
  }
}

double MetaPrompts::uniform() {
  // splitmix64: the same sequence for a seed on every platform.
  uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
  Z ^= Z >> 31;
  return double(Z >> 11) * 0x1.0p-53;
}

double MetaPrompts::sampleBeta(unsigned A, unsigned B) {
  // Beta(A, B) for whole A, B is the A-th smallest of A + B - 1 uniform
  // draws. Large counts are scaled down to keep a pick cheap; the mean
  // stays, the spread narrows no further than 256 draws allow.
  constexpr unsigned Cap = 256;
  if (A + B - 1 > Cap) {
    double Scale = double(Cap) / double(A + B);
    A = std::max(1u, unsigned(std::lround(A * Scale)));
    B = std::max(1u, unsigned(std::lround(B * Scale)));
  }
  std::vector<double> U(A + B - 1);
  for (double &X : U)
    X = uniform();
  std::nth_element(U.begin(), U.begin() + (A - 1), U.end());
  return U[A - 1];
}

const Instruction &MetaPrompts::pick() {
  Instruction *Best = nullptr;
  double BestDraw = -1;
  for (Instruction &I : Pool) {
    if (I.Dropped)
      continue;
    // A kept variant is a win; one of 2x counts twice, of 4x or more
    // three times.
    unsigned Bonus = 0;
    if (I.Kept)
      Bonus = unsigned(std::min<double>(2.0 * I.Kept, std::floor(I.LogGain / std::log(2.0))));
    unsigned Wins = I.Kept + Bonus, Losses = I.Rejected + I.Unhelpful;
    double Draw = sampleBeta(1 + Wins, 1 + Losses);
    if (Draw > BestDraw) {
      BestDraw = Draw;
      Best = &I;
    }
  }
  // drop() never leaves the pool empty, so there is always one.
  ++Best->Asked;
  return *Best;
}

void MetaPrompts::credit(unsigned Id, Verdict V, double Speedup) {
  if (Id == 0 || Id > Pool.size())
    return;
  Instruction &I = Pool[Id - 1];
  switch (V) {
  case Verdict::Accepted:
  case Verdict::Superseded:
    ++I.Kept;
    if (Speedup > 1 && std::isfinite(Speedup))
      I.LogGain += std::log(Speedup);
    break;
  case Verdict::Rejected:
    ++I.Rejected;
    break;
  case Verdict::Slower:
  case Verdict::NotFaster:
    ++I.Unhelpful;
    break;
  case Verdict::Unmeasured:
    ++I.Unmeasured;
    break;
  }
}

unsigned MetaPrompts::activeCount() const {
  return unsigned(std::count_if(Pool.begin(), Pool.end(),
                                [](const Instruction &I) { return !I.Dropped; }));
}

std::vector<unsigned> MetaPrompts::drop() {
  std::vector<Instruction *> Losers;
  for (Instruction &I : Pool)
    if (!I.Dropped && I.Kept == 0 && I.judged() >= DropAfter)
      Losers.push_back(&I);
  std::stable_sort(Losers.begin(), Losers.end(), [](const Instruction *A, const Instruction *B) {
    return A->judged() > B->judged();
  });
  std::vector<unsigned> Out;
  unsigned Active = activeCount();
  for (Instruction *I : Losers) {
    if (Active <= MinPool)
      break;
    I->Dropped = true;
    --Active;
    Out.push_back(I->Id);
  }
  return Out;
}

const Instruction *MetaPrompts::find(unsigned Id) const {
  return Id == 0 || Id > Pool.size() ? nullptr : &Pool[Id - 1];
}

std::optional<std::pair<unsigned, unsigned>> MetaPrompts::recombinationPair() const {
  if (activeCount() >= MaxPool)
    return std::nullopt;
  std::vector<const Instruction *> Good;
  for (const Instruction &I : Pool)
    if (!I.Dropped && I.Kept > 0)
      Good.push_back(&I);
  if (Good.size() < 2)
    return std::nullopt;
  std::stable_sort(Good.begin(), Good.end(), [](const Instruction *A, const Instruction *B) {
    if (A->Kept != B->Kept)
      return A->Kept > B->Kept;
    return A->LogGain > B->LogGain;
  });
  return std::make_pair(Good[0]->Id, Good[1]->Id);
}

std::optional<unsigned> MetaPrompts::add(StringRef Name, StringRef Text,
                                         std::vector<unsigned> Parents) {
  std::string Why;
  auto Clean = cleanInstruction(Text, MaxTextBytes, &Why);
  if (!Clean) {
    Refusal = Why;
    return std::nullopt;
  }
  for (const Instruction &I : Pool)
    if (I.Text == *Clean) {
      Refusal = formatv("the reply repeats instruction {0} ({1})", I.Id, I.Name).str();
      return std::nullopt;
    }
  Instruction I;
  I.Id = unsigned(Pool.size() + 1);
  I.Name = Name.str();
  I.Text = std::move(*Clean);
  I.Parents = std::move(Parents);
  Pool.push_back(std::move(I));
  Refusal.clear();
  return Pool.back().Id;
}

StringRef recombinationSystemPrompt() {
  return "You write short guidance for a CUDA performance engineer who edits kernels to make "
         "them faster. Reply with one paragraph of plain prose: no code, no lists, no edit "
         "blocks.";
}

static std::string describe(const Instruction &I) {
  std::string S = formatv("kept {0} of {1} judged variant(s)", I.Kept, I.judged()).str();
  if (I.Kept)
    S += formatv(", mean gain {0:F2}x", std::exp(I.LogGain / I.Kept)).str();
  return S;
}

std::string recombinationPrompt(const Instruction &A, const Instruction &B) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "Here are two instructions that produced kept kernels: variants that computed the same "
        "results as the original and ran faster.\n\n"
     << "Instruction A (" << describe(A) << "):\n"
     << A.Text << "\n\n"
     << "Instruction B (" << describe(B) << "):\n"
     << B.Text << "\n\n"
     << "Write one instruction that combines them: what to do to the kernel and why it helps, "
        "keeping what made each of them work. One paragraph of at most 80 words, no code.\n";
  return S;
}

Expected<std::optional<unsigned>> MetaPrompts::recombine(ModelClient &Client, unsigned A,
                                                         unsigned B) {
  const Instruction *IA = find(A), *IB = find(B);
  if (!IA || !IB)
    return makeError("no instruction {0} in the meta-prompt pool", !IA ? A : B);
  if (A == B)
    return makeError("cannot recombine instruction {0} with itself", A);
  if (activeCount() >= MaxPool) {
    Refusal = formatv("the pool is full ({0} instructions)", MaxPool).str();
    return std::optional<unsigned>();
  }
  auto R = Client.complete(recombinationSystemPrompt(), {{"user", recombinationPrompt(*IA, *IB)}});
  if (!R)
    return R.takeError();
  std::string Name = formatv("mix-{0}", ++Mixes).str();
  return add(Name, R->Text, {A, B});
}

Json MetaPrompts::toJson() const {
  Json List = Json::array();
  for (const Instruction &I : Pool) {
    Json J = {{"id", I.Id},
              {"name", I.Name},
              {"text", I.Text},
              {"parents", I.Parents},
              {"asked", I.Asked},
              {"kept", I.Kept},
              {"rejected", I.Rejected},
              {"unhelpful", I.Unhelpful},
              {"unmeasured", I.Unmeasured},
              {"log_gain", I.LogGain}};
    if (I.Kept)
      J["mean_gain"] = std::exp(I.LogGain / I.Kept);
    J["dropped"] = I.Dropped;
    List.push_back(std::move(J));
  }
  return Json{{"seed", Seed}, {"instructions", std::move(List)}};
}

} // namespace forge::agent
