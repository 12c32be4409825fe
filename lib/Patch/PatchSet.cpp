//===- PatchSet.cpp - Edits to many files from many passes ----------------===//

#include "forge/Patch/PatchSet.h"
#include "forge/Patch/UnifiedDiff.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstdint>

using namespace llvm;
using clang::tooling::Replacement;
using clang::tooling::Replacements;

namespace forge::patch {

char ConflictError::ID;

ContentsProvider diskContents() {
  return [](StringRef File) { return forge::readFile(File); };
}

std::string Edit::originText() const { return join(Origins, ", "); }

/// Keeps messages readable when an edit carries a whole function body.
static std::string quoteText(StringRef Text) {
  constexpr size_t Max = 40;
  std::string Out;
  raw_string_ostream OS(Out);
  OS << '"';
  printEscapedString(Text.take_front(Max), OS);
  if (Text.size() > Max)
    OS << "...";
  OS << '"';
  return Out;
}

static std::string describe(const Replacement &R) {
  std::string Out;
  raw_string_ostream OS(Out);
  unsigned Begin = R.getOffset(), End = Begin + R.getLength();
  if (R.getLength() == 0)
    OS << "inserts " << quoteText(R.getReplacementText()) << " at "
       << R.getFilePath() << ":" << Begin;
  else if (R.getReplacementText().empty())
    OS << "deletes " << R.getFilePath() << ":" << Begin << "-" << End;
  else
    OS << "replaces " << R.getFilePath() << ":" << Begin << "-" << End
       << " with " << quoteText(R.getReplacementText());
  return Out;
}

void ConflictError::log(raw_ostream &OS) const {
  OS << "conflicting edits to '" << File << "': '" << NewOrigin << "' "
     << describe(New) << ", which overlaps the edit from '" << ExistingOrigin
     << "' that " << describe(Existing);
}

std::string PatchSet::normalizePath(StringRef File) {
  SmallString<256> P(File);
  sys::path::remove_dots(P, /*remove_dot_dot=*/false);
  return std::string(P);
}

/// True when applying A and B in either order could give different text.
static bool overlaps(const Replacement &A, const Replacement &B) {
  uint64_t ABegin = A.getOffset(), AEnd = ABegin + A.getLength();
  uint64_t BBegin = B.getOffset(), BEnd = BBegin + B.getLength();
  if (A.getLength() == 0 && B.getLength() == 0)
    return ABegin == BBegin;
  if (A.getLength() == 0)
    return BBegin < ABegin && ABegin < BEnd;
  if (B.getLength() == 0)
    return ABegin < BBegin && BBegin < AEnd;
  return ABegin < BEnd && BBegin < AEnd;
}

static bool sameEdit(const Replacement &A, const Replacement &B) {
  return A.getOffset() == B.getOffset() && A.getLength() == B.getLength() &&
         A.getReplacementText() == B.getReplacementText();
}

static bool editLess(const Edit &A, const Edit &B) {
  const Replacement &L = A.Replacement, &R = B.Replacement;
  if (L.getOffset() != R.getOffset())
    return L.getOffset() < R.getOffset();
  return L.getLength() < R.getLength();
}

Error PatchSet::addEdit(const Edit &E, StringRef Origin) {
  std::string Key = normalizePath(E.Replacement.getFilePath());
  std::vector<Edit> &Edits = Files[Key];
  // Edits are sorted and disjoint, so few neighbours can overlap, but a
  // linear scan keeps this obviously right; sets hold tens of edits.
  for (Edit &Old : Edits) {
    if (sameEdit(Old.Replacement, E.Replacement)) {
      for (const std::string &O : E.Origins)
        if (!is_contained(Old.Origins, O))
          Old.Origins.push_back(O);
      return Error::success();
    }
  }
  for (const Edit &Old : Edits) {
    if (overlaps(Old.Replacement, E.Replacement)) {
      Replacement New(Key, E.Replacement.getOffset(), E.Replacement.getLength(),
                      E.Replacement.getReplacementText());
      return make_error<ConflictError>(Key, New, Origin.str(),
                                       Old.Replacement, Old.originText());
    }
  }
  Edit Stored = E;
  Stored.Replacement =
      Replacement(Key, E.Replacement.getOffset(), E.Replacement.getLength(),
                  E.Replacement.getReplacementText());
  Edits.insert(std::upper_bound(Edits.begin(), Edits.end(), Stored, editLess),
               std::move(Stored));
  return Error::success();
}

Error PatchSet::add(const Replacement &R, StringRef Origin) {
  if (!R.isApplicable())
    return makeError("the edit from '{0}' has no file", Origin);
  Edit E;
  E.Replacement = R;
  E.Origins.push_back(Origin.str());
  return addEdit(E, Origin);
}

Error PatchSet::add(const PatchSet &Other) {
  PatchSet Merged = *this;
  for (const auto &[File, Edits] : Other.Files)
    for (const Edit &E : Edits)
      if (Error Err = Merged.addEdit(E, E.originText()))
        return Err;
  *this = std::move(Merged);
  return Error::success();
}

std::vector<std::string> PatchSet::files() const {
  std::vector<std::string> Out;
  for (const auto &KV : Files)
    Out.push_back(KV.first);
  return Out;
}

ArrayRef<Edit> PatchSet::editsFor(StringRef File) const {
  auto It = Files.find(normalizePath(File));
  if (It == Files.end())
    return {};
  return It->second;
}

Replacements PatchSet::replacementsFor(StringRef File) const {
  Replacements Out;
  for (const Edit &E : editsFor(File))
    // Cannot fail: add() keeps the edits disjoint in tooling's sense too.
    cantFail(Out.add(E.Replacement));
  return Out;
}

size_t PatchSet::size() const {
  size_t N = 0;
  for (const auto &KV : Files)
    N += KV.second.size();
  return N;
}

Expected<std::string> PatchSet::applyTo(StringRef File,
                                        StringRef OriginalContents) const {
  ArrayRef<Edit> Edits = editsFor(File);
  for (const Edit &E : Edits) {
    uint64_t End =
        uint64_t(E.Replacement.getOffset()) + E.Replacement.getLength();
    if (End > OriginalContents.size())
      return makeError("the edit from '{0}' that {1} is out of range: '{2}' "
                       "has {3} bytes",
                       E.originText(), describe(E.Replacement), File,
                       OriginalContents.size());
  }
  // Spliced here rather than by tooling::applyAllReplacements: its
  // SourceManager reports a file that starts with a UTF-16 or UTF-32 byte
  // order mark to a DiagnosticsEngine without a consumer, and crashes (found
  // by fuzz-edit-blocks). The edits are disjoint and in offset order, an
  // insertion before a replacement at its offset, as the rewriter does.
  std::string Out;
  Out.reserve(OriginalContents.size());
  size_t Pos = 0;
  for (const Replacement &R : replacementsFor(File)) {
    Out.append(OriginalContents.substr(Pos, R.getOffset() - Pos));
    Out.append(R.getReplacementText());
    Pos = R.getOffset() + R.getLength();
  }
  Out.append(OriginalContents.substr(Pos));
  return Out;
}

/// The path shown in a diff label: relative where possible, since
/// `patch -p1` strips one leading component.
static std::string diffPath(StringRef File, StringRef RelativeTo) {
  StringRef P = File;
  if (!RelativeTo.empty()) {
    SmallString<256> Base(RelativeTo);
    sys::path::remove_dots(Base);
    StringRef B = Base;
    B = B.rtrim('/');
    if (P.starts_with(B) && P.size() > B.size() && P[B.size()] == '/')
      P = P.drop_front(B.size() + 1);
  }
  return P.ltrim('/').str();
}

Expected<std::string> PatchSet::diff(const ContentsProvider &Contents,
                                     unsigned Context,
                                     StringRef RelativeTo) const {
  std::string Out;
  for (const auto &[File, Edits] : Files) {
    Expected<std::string> Old = Contents(File);
    if (!Old)
      return Old.takeError();
    Expected<std::string> New = applyTo(File, *Old);
    if (!New)
      return New.takeError();
    std::string Label = diffPath(File, RelativeTo);
    Out += unifiedDiff(*Old, *New, "a/" + Label, "b/" + Label, Context);
  }
  return Out;
}

Replacement makeReplacement(StringRef File, unsigned Offset, unsigned Length,
                            StringRef Text) {
  return Replacement(File, Offset, Length, Text);
}

Expected<unsigned> offsetForLineColumn(StringRef Contents, unsigned Line,
                                       unsigned Column) {
  if (Line == 0 || Column == 0)
    return makeError("line and column are 1-based, got {0}:{1}", Line, Column);
  size_t LineStart = 0;
  for (unsigned L = 1; L < Line; ++L) {
    size_t NL = Contents.find('\n', LineStart);
    if (NL == StringRef::npos)
      return makeError("line {0} is past the end of the text ({1} lines)",
                       Line, L);
    LineStart = NL + 1;
  }
  size_t LineEnd = Contents.find('\n', LineStart);
  if (LineEnd == StringRef::npos)
    LineEnd = Contents.size();
  if (Column - 1 > LineEnd - LineStart)
    return makeError("column {0} is past the end of line {1} ({2} bytes)",
                     Column, Line, LineEnd - LineStart);
  return unsigned(LineStart + Column - 1);
}

Expected<std::pair<unsigned, unsigned>>
lineColumnForOffset(StringRef Contents, unsigned Offset) {
  if (Offset > Contents.size())
    return makeError("offset {0} is past the end of the text ({1} bytes)",
                     Offset, Contents.size());
  StringRef Before = Contents.take_front(Offset);
  unsigned Line = 1 + Before.count('\n');
  size_t LastNL = Before.rfind('\n');
  unsigned Column =
      LastNL == StringRef::npos ? Offset + 1 : unsigned(Offset - LastNL);
  return std::make_pair(Line, Column);
}

Expected<Replacement> makeReplacementAt(StringRef File, StringRef Contents,
                                        unsigned Line, unsigned Column,
                                        unsigned Length, StringRef Text) {
  Expected<unsigned> Offset = offsetForLineColumn(Contents, Line, Column);
  if (!Offset)
    return makeError("{0}:{1}:{2}: {3}", File, Line, Column,
                     toString(Offset.takeError()));
  if (uint64_t(*Offset) + Length > Contents.size())
    return makeError("{0}:{1}:{2}: {3} bytes from here run past the end of "
                     "the file",
                     File, Line, Column, Length);
  return makeReplacement(File, *Offset, Length, Text);
}

} // namespace forge::patch
