//===- UnifiedDiff.cpp - Line diffs in unified format ---------------------===//
//
// The diff is Myers' O(ND) algorithm in its linear-space form (the "middle
// snake" bisection, as in GNU diff's compareseq): memory stays O(N+M) even
// when two files of thousands of lines share nothing.
//
//===----------------------------------------------------------------------===//

#include "forge/Patch/UnifiedDiff.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <climits>
#include <vector>

using namespace llvm;

namespace forge::patch {
namespace {

/// Lines keep their "\n", so a last line without one differs from the same
/// text with one, which is what "\ No newline at end of file" needs.
std::vector<StringRef> splitLines(StringRef Text) {
  std::vector<StringRef> Lines;
  while (!Text.empty()) {
    size_t NL = Text.find('\n');
    size_t Len = NL == StringRef::npos ? Text.size() : NL + 1;
    Lines.push_back(Text.take_front(Len));
    Text = Text.drop_front(Len);
  }
  return Lines;
}

/// Marks the lines of A that are deleted and the lines of B that are
/// inserted by a shortest edit script. Lines are compared as interned ids.
class LineDiff {
public:
  LineDiff(const std::vector<unsigned> &A, const std::vector<unsigned> &B)
      : A(A), B(B), Deleted(A.size()), Inserted(B.size()) {
    size_t Diags = A.size() + B.size() + 3;
    Fwd.resize(Diags);
    Bwd.resize(Diags);
    Offset = int(B.size()) + 1;
    compare(0, int(A.size()), 0, int(B.size()));
  }

  const std::vector<unsigned> &A, &B;
  std::vector<bool> Deleted, Inserted;

private:
  // Furthest-reaching x per diagonal k = x - y, indexed by k + Offset.
  std::vector<int> Fwd, Bwd;
  int Offset;

  int &fwd(int K) { return Fwd[K + Offset]; }
  int &bwd(int K) { return Bwd[K + Offset]; }

  void compare(int XOff, int XLim, int YOff, int YLim) {
    while (XOff < XLim && YOff < YLim && A[XOff] == B[YOff])
      ++XOff, ++YOff;
    while (XOff < XLim && YOff < YLim && A[XLim - 1] == B[YLim - 1])
      --XLim, --YLim;
    if (XOff == XLim) {
      for (int Y = YOff; Y < YLim; ++Y)
        Inserted[Y] = true;
      return;
    }
    if (YOff == YLim) {
      for (int X = XOff; X < XLim; ++X)
        Deleted[X] = true;
      return;
    }
    // Both sides are non-empty and differ at both ends, so D >= 2 and the
    // split point lies strictly inside: both halves are smaller problems.
    auto [XMid, YMid] = middle(XOff, XLim, YOff, YLim);
    compare(XOff, XMid, YOff, YMid);
    compare(XMid, XLim, YMid, YLim);
  }

  /// A point on a shortest edit path, found by running the search from both
  /// corners until the paths meet.
  std::pair<int, int> middle(int XOff, int XLim, int YOff, int YLim) {
    const int DMin = XOff - YLim, DMax = XLim - YOff;
    const int FMid = XOff - YOff, BMid = XLim - YLim;
    int FMin = FMid, FMax = FMid, BMin = BMid, BMax = BMid;
    const bool Odd = (FMid - BMid) & 1;
    fwd(FMid) = XOff;
    bwd(BMid) = XLim;
    for (;;) {
      // Forward: extend the range of diagonals by one, with sentinels.
      if (FMin > DMin)
        fwd(--FMin - 1) = -1;
      else
        ++FMin;
      if (FMax < DMax)
        fwd(++FMax + 1) = -1;
      else
        --FMax;
      for (int K = FMax; K >= FMin; K -= 2) {
        int Lo = fwd(K - 1), Hi = fwd(K + 1);
        int X = Lo >= Hi ? Lo + 1 : Hi;
        int Y = X - K;
        while (X < XLim && Y < YLim && A[X] == B[Y])
          ++X, ++Y;
        fwd(K) = X;
        if (Odd && BMin <= K && K <= BMax && bwd(K) <= X)
          return {X, Y};
      }
      // Backward.
      if (BMin > DMin)
        bwd(--BMin - 1) = INT_MAX;
      else
        ++BMin;
      if (BMax < DMax)
        bwd(++BMax + 1) = INT_MAX;
      else
        --BMax;
      for (int K = BMax; K >= BMin; K -= 2) {
        int Lo = bwd(K - 1), Hi = bwd(K + 1);
        int X = Lo < Hi ? Lo : Hi - 1;
        int Y = X - K;
        while (X > XOff && Y > YOff && A[X - 1] == B[Y - 1])
          --X, --Y;
        bwd(K) = X;
        if (!Odd && FMin <= K && K <= FMax && X <= fwd(K))
          return {X, Y};
      }
    }
  }
};

/// A run of changed lines: [OldBegin, OldEnd) replaced by [NewBegin, NewEnd).
struct Change {
  size_t OldBegin, OldEnd, NewBegin, NewEnd;
};

/// "l,n" as GNU diff prints it: "l" alone when n is 1, and for an empty
/// range the line before it.
void printRange(raw_ostream &OS, size_t Begin, size_t Count) {
  if (Count == 1) {
    OS << Begin + 1;
    return;
  }
  OS << (Count == 0 ? Begin : Begin + 1) << ',' << Count;
}

void printLine(raw_ostream &OS, char Tag, StringRef Line) {
  OS << Tag << Line;
  if (!Line.ends_with("\n"))
    OS << "\n\\ No newline at end of file\n";
}

} // namespace

std::string unifiedDiff(StringRef OldText, StringRef NewText,
                        StringRef OldLabel, StringRef NewLabel,
                        unsigned Context) {
  if (OldText == NewText)
    return "";
  std::vector<StringRef> OldLines = splitLines(OldText);
  std::vector<StringRef> NewLines = splitLines(NewText);

  DenseMap<StringRef, unsigned> Ids;
  auto intern = [&](const std::vector<StringRef> &Lines) {
    std::vector<unsigned> Out;
    Out.reserve(Lines.size());
    for (StringRef L : Lines)
      Out.push_back(Ids.try_emplace(L, unsigned(Ids.size())).first->second);
    return Out;
  };
  std::vector<unsigned> A = intern(OldLines), B = intern(NewLines);
  LineDiff D(A, B);

  std::vector<Change> Changes;
  for (size_t I = 0, J = 0; I < A.size() || J < B.size();) {
    if (I < A.size() && J < B.size() && !D.Deleted[I] && !D.Inserted[J]) {
      ++I, ++J;
      continue;
    }
    Change C{I, I, J, J};
    while (I < A.size() && D.Deleted[I])
      ++I;
    while (J < B.size() && D.Inserted[J])
      ++J;
    C.OldEnd = I;
    C.NewEnd = J;
    Changes.push_back(C);
  }

  std::string Out;
  raw_string_ostream OS(Out);
  OS << "--- " << OldLabel << "\n+++ " << NewLabel << "\n";
  for (size_t First = 0; First < Changes.size();) {
    // A hunk takes every following change whose gap to the last one is
    // small enough for the two contexts to touch.
    size_t Last = First;
    while (Last + 1 < Changes.size() &&
           Changes[Last + 1].OldBegin - Changes[Last].OldEnd <= 2 * Context)
      ++Last;
    const Change &F = Changes[First], &L = Changes[Last];
    size_t Lead = std::min<size_t>(Context, F.OldBegin);
    size_t Trail = std::min<size_t>(Context, A.size() - L.OldEnd);
    size_t OldBegin = F.OldBegin - Lead, NewBegin = F.NewBegin - Lead;
    size_t OldEnd = L.OldEnd + Trail, NewEnd = L.NewEnd + Trail;

    OS << "@@ -";
    printRange(OS, OldBegin, OldEnd - OldBegin);
    OS << " +";
    printRange(OS, NewBegin, NewEnd - NewBegin);
    OS << " @@\n";
    size_t I = OldBegin;
    for (size_t C = First; C <= Last; ++C) {
      const Change &Ch = Changes[C];
      for (; I < Ch.OldBegin; ++I)
        printLine(OS, ' ', OldLines[I]);
      for (size_t K = Ch.OldBegin; K < Ch.OldEnd; ++K)
        printLine(OS, '-', OldLines[K]);
      for (size_t K = Ch.NewBegin; K < Ch.NewEnd; ++K)
        printLine(OS, '+', NewLines[K]);
      I = Ch.OldEnd;
    }
    for (; I < OldEnd; ++I)
      printLine(OS, ' ', OldLines[I]);
    First = Last + 1;
  }
  return Out;
}

} // namespace forge::patch
