//===- EditBlocks.cpp - SEARCH/REPLACE edit blocks ------------------------===//
#include "forge/Agent/EditBlocks.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace forge;
using namespace forge::agent;

namespace {

/// A marker line: at least five of C (git uses seven), then Word, nothing
/// else but blanks.
bool isMarker(llvm::StringRef Line, char C, llvm::StringRef Word) {
  Line = Line.trim();
  size_t N = 0;
  while (N < Line.size() && Line[N] == C)
    ++N;
  if (N < 5)
    return false;
  return Line.drop_front(N).trim() == Word;
}

bool isDivider(llvm::StringRef Line) {
  Line = Line.trim();
  return Line.size() >= 5 && Line.find_first_not_of('=') == llvm::StringRef::npos;
}

/// A line that names a file before a block: a path ending in a source or
/// header extension, possibly in backticks or after "File:".
std::string fileName(llvm::StringRef Line) {
  Line = Line.trim();
  Line.consume_front("File:");
  Line.consume_front("file:");
  Line = Line.trim().trim('`').trim('*').trim();
  if (Line.empty() || Line.contains(' '))
    return "";
  llvm::StringRef Ext = llvm::sys::path::extension(Line);
  for (llvm::StringRef E : {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".inc"})
    if (Ext == E)
      return Line.str();
  return "";
}

std::string joinLines(llvm::ArrayRef<llvm::StringRef> Lines) {
  std::string Out;
  for (size_t I = 0; I < Lines.size(); ++I)
    Out += (I ? "\n" : "") + Lines[I].str();
  return Out;
}

/// Line starts of Text (offset of each line), with the line texts.
struct LineTable {
  std::vector<size_t> Start;
  std::vector<llvm::StringRef> Lines;
  explicit LineTable(llvm::StringRef Text) {
    size_t Pos = 0;
    while (Pos <= Text.size()) {
      size_t End = Text.find('\n', Pos);
      if (End == llvm::StringRef::npos)
        End = Text.size();
      Start.push_back(Pos);
      Lines.push_back(Text.slice(Pos, End).rtrim('\r'));
      Pos = End + 1;
    }
  }
  unsigned lineOf(size_t Offset) const {
    auto It = std::upper_bound(Start.begin(), Start.end(), Offset);
    return unsigned(It - Start.begin());
  }
};

} // namespace

llvm::Expected<std::vector<EditBlock>>
forge::agent::parseEditBlocks(llvm::StringRef Reply) {
  LineTable T(Reply);
  std::vector<EditBlock> Blocks;
  for (size_t I = 0; I < T.Lines.size(); ++I) {
    if (!isMarker(T.Lines[I], '<', "SEARCH"))
      continue;
    EditBlock B;
    B.Line = unsigned(I + 1);
    // The file: the nearest non-blank line above, skipping a code fence.
    for (size_t J = I; J-- > 0;) {
      llvm::StringRef L = T.Lines[J].trim();
      if (L.empty() || L.starts_with("```"))
        continue;
      B.File = fileName(L);
      break;
    }
    size_t Divider = 0, End = 0;
    for (size_t J = I + 1; J < T.Lines.size(); ++J) {
      if (isMarker(T.Lines[J], '<', "SEARCH"))
        break;
      if (!Divider && isDivider(T.Lines[J])) {
        Divider = J;
        continue;
      }
      if (isMarker(T.Lines[J], '>', "REPLACE")) {
        End = J;
        break;
      }
    }
    if (!End)
      return makeError("the SEARCH block at line {0} of the reply has no "
                       "'>>>>>>> REPLACE' line",
                       B.Line);
    if (!Divider)
      return makeError("the SEARCH block at line {0} of the reply has no "
                       "'=======' line between its SEARCH and REPLACE parts",
                       B.Line);
    llvm::ArrayRef<llvm::StringRef> Lines(T.Lines);
    B.Search = joinLines(Lines.slice(I + 1, Divider - I - 1));
    B.Replace = joinLines(Lines.slice(Divider + 1, End - Divider - 1));
    if (llvm::StringRef(B.Search).trim().empty())
      return makeError("the SEARCH block at line {0} of the reply has no "
                       "SEARCH text: give the text to replace",
                       B.Line);
    Blocks.push_back(std::move(B));
    I = End;
  }
  if (Blocks.empty())
    return makeError("no SEARCH/REPLACE block in the reply");
  return Blocks;
}

namespace {

/// Where Search occurs in Text: exact matches, else line-by-line matches
/// that ignore indentation and trailing blanks. Each match is an offset
/// range of Text.
std::vector<std::pair<size_t, size_t>> findMatches(llvm::StringRef Text,
                                                   llvm::StringRef Search) {
  std::vector<std::pair<size_t, size_t>> Out;
  for (size_t P = Text.find(Search); P != llvm::StringRef::npos;
       P = Text.find(Search, P + 1))
    Out.push_back({P, P + Search.size()});
  if (!Out.empty())
    return Out;
  LineTable File(Text), Want(Search);
  size_t N = Want.Lines.size();
  if (N == 0 || N > File.Lines.size())
    return Out;
  for (size_t I = 0; I + N <= File.Lines.size(); ++I) {
    bool Match = true;
    for (size_t K = 0; K < N && Match; ++K)
      Match = File.Lines[I + K].trim() == Want.Lines[K].trim();
    if (Match) {
      size_t Begin = File.Start[I];
      size_t Last = I + N - 1;
      size_t End = File.Start[Last] + File.Lines[Last].size();
      Out.push_back({Begin, End});
    }
  }
  return Out;
}

} // namespace

llvm::Expected<patch::PatchSet>
forge::agent::applyEditBlocks(llvm::ArrayRef<EditBlock> Blocks,
                              llvm::StringRef MainFile,
                              llvm::ArrayRef<std::string> OtherFiles,
                              const patch::ContentsProvider &Contents,
                              llvm::StringRef Origin) {
  patch::PatchSet Set;
  for (size_t BI = 0; BI < Blocks.size(); ++BI) {
    const EditBlock &B = Blocks[BI];
    std::string Where = "block " + std::to_string(BI + 1) + " (line " +
                        std::to_string(B.Line) + " of the reply)";
    std::string File = MainFile.str();
    if (!B.File.empty()) {
      auto Same = [&](llvm::StringRef Known) {
        return Known == B.File ||
               (!llvm::StringRef(B.File).contains('/') &&
                llvm::sys::path::filename(Known) == B.File) ||
               Known.ends_with("/" + B.File);
      };
      if (Same(MainFile)) {
        File = MainFile.str();
      } else {
        auto It = llvm::find_if(OtherFiles, Same);
        if (It == OtherFiles.end())
          return makeError("{0}: it edits {1}, which is not a file of this "
                           "optimisation ({2})",
                           Where, B.File, MainFile);
        File = *It;
      }
    }
    auto Text = Contents(File);
    if (!Text)
      return Text.takeError();
    auto Matches = findMatches(*Text, B.Search);
    llvm::StringRef First = llvm::StringRef(B.Search).trim().split('\n').first;
    if (Matches.empty())
      return makeError("{0}: its SEARCH text is not in {1} (it begins "
                       "'{2}')",
                       Where, File, First.take_front(80));
    if (Matches.size() > 1) {
      LineTable L(*Text);
      std::vector<std::string> At;
      for (const auto &M : Matches)
        At.push_back(std::to_string(L.lineOf(M.first)));
      return makeError("{0}: its SEARCH text is ambiguous, it matches {1} "
                       "places in {2} (lines {3}); include more context",
                       Where, Matches.size(), File, llvm::join(At, ", "));
    }
    auto [Begin, End] = Matches.front();
    if (auto E = Set.add(clang::tooling::Replacement(File, unsigned(Begin),
                                                     unsigned(End - Begin),
                                                     B.Replace),
                         Origin))
      return makeError("{0}: {1}", Where, llvm::toString(std::move(E)));
  }
  return Set;
}

llvm::Expected<std::string> forge::agent::applyEditText(llvm::StringRef Edits,
                                                        llvm::StringRef File,
                                                        llvm::StringRef Source,
                                                        llvm::StringRef Origin) {
  auto Blocks = parseEditBlocks(Edits);
  if (!Blocks)
    return Blocks.takeError();
  patch::ContentsProvider Contents = [&](llvm::StringRef) -> llvm::Expected<std::string> {
    return Source.str();
  };
  auto Set = applyEditBlocks(*Blocks, File, {}, Contents, Origin);
  if (!Set)
    return Set.takeError();
  return Set->applyTo(patch::PatchSet::normalizePath(File), Source);
}

//===----------------------------------------------------------------------===//
// Rendering edits as blocks
//===----------------------------------------------------------------------===//

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// Edits sorted by offset (an insertion before a replacement at the same
/// offset), checked against Source.
Expected<std::vector<SourceEdit>> sortedEdits(StringRef Source, ArrayRef<SourceEdit> Edits) {
  std::vector<SourceEdit> Out(Edits.begin(), Edits.end());
  llvm::stable_sort(Out, [](const SourceEdit &A, const SourceEdit &B) {
    return std::make_pair(A.Offset, A.Length) < std::make_pair(B.Offset, B.Length);
  });
  for (size_t I = 0; I < Out.size(); ++I) {
    const SourceEdit &E = Out[I];
    if (size_t(E.Offset) + E.Length > Source.size())
      return makeError("an edit at offset {0} (length {1}) reaches past the end of the "
                       "source ({2} bytes)",
                       E.Offset, E.Length, Source.size());
    if (I == 0)
      continue;
    const SourceEdit &P = Out[I - 1];
    if (P.Offset + P.Length > E.Offset ||
        (P.Length == 0 && E.Length == 0 && P.Offset == E.Offset))
      return makeError("edits at offsets {0} and {1} overlap", P.Offset, E.Offset);
  }
  return Out;
}

/// Line starts of a text; line K spans [Start[K], end(K)).
struct Lines {
  std::vector<unsigned> Start;
  unsigned Size;
  explicit Lines(StringRef Text) : Size(unsigned(Text.size())) {
    Start.push_back(0);
    for (unsigned I = 0; I < Text.size(); ++I)
      if (Text[I] == '\n')
        Start.push_back(I + 1);
  }
  unsigned count() const { return unsigned(Start.size()); }
  unsigned lineOf(unsigned Offset) const {
    return unsigned(std::upper_bound(Start.begin(), Start.end(), Offset) - Start.begin()) - 1;
  }
  /// The end of line K, before its newline.
  unsigned end(unsigned K) const { return K + 1 < count() ? Start[K + 1] - 1 : Size; }
};

size_t occurrences(StringRef Text, StringRef Needle) {
  size_t N = 0;
  for (size_t P = Text.find(Needle); P != StringRef::npos; P = Text.find(Needle, P + 1))
    ++N;
  return N;
}

/// Whether a line would be read as a block marker by parseEditBlocks.
bool looksLikeMarker(StringRef Line) {
  Line = Line.trim();
  if (Line.size() >= 5 && Line.find_first_not_of('=') == StringRef::npos)
    return true;
  for (char C : {'<', '>'}) {
    size_t N = 0;
    while (N < Line.size() && Line[N] == C)
      ++N;
    if (N >= 5) {
      StringRef Word = Line.drop_front(N).trim();
      if (Word == "SEARCH" || Word == "REPLACE")
        return true;
    }
  }
  return false;
}

struct Group {
  unsigned First, Last; ///< lines
  std::vector<SourceEdit> Edits;
};

} // namespace

Expected<std::string> forge::agent::applySourceEdits(StringRef Source, ArrayRef<SourceEdit> Edits) {
  auto Sorted = sortedEdits(Source, Edits);
  if (!Sorted)
    return Sorted.takeError();
  std::string Out;
  unsigned Pos = 0;
  for (const SourceEdit &E : *Sorted) {
    Out += Source.slice(Pos, E.Offset);
    Out += E.Text;
    Pos = E.Offset + E.Length;
  }
  Out += Source.substr(Pos);
  return Out;
}

Expected<std::string> forge::agent::renderEditBlocks(StringRef Source, ArrayRef<SourceEdit> Edits,
                                       unsigned MergeGap) {
  auto Sorted = sortedEdits(Source, Edits);
  if (!Sorted)
    return Sorted.takeError();
  if (Sorted->empty())
    return makeError("no edits to render");
  Lines L(Source);

  std::vector<Group> Groups;
  for (SourceEdit &E : *Sorted) {
    unsigned First = L.lineOf(E.Offset), Last = L.lineOf(E.Offset + E.Length);
    if (!Groups.empty() && First <= Groups.back().Last + MergeGap + 1) {
      Groups.back().Last = std::max(Groups.back().Last, Last);
      Groups.back().Edits.push_back(std::move(E));
      continue;
    }
    Groups.push_back({First, Last, {std::move(E)}});
  }

  auto Text = [&](const Group &G) {
    return Source.slice(L.Start[G.First], L.end(G.Last));
  };
  // Extend each group until its text is unique, merge groups that come to
  // share a line, and repeat until nothing changes.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Group &G : Groups) {
      bool Below = true;
      while (Text(G).trim().empty() || occurrences(Source, Text(G)) != 1) {
        bool CanBelow = G.Last + 1 < L.count(), CanAbove = G.First > 0;
        if (!CanBelow && !CanAbove)
          return makeError("no SEARCH text around line {0} is unique in the source",
                           G.First + 1);
        if ((Below && CanBelow) || !CanAbove)
          ++G.Last;
        else
          --G.First;
        Below = !Below;
      }
    }
    for (size_t I = 1; I < Groups.size();) {
      Group &P = Groups[I - 1], &G = Groups[I];
      if (G.First <= P.Last) {
        P.Last = std::max(P.Last, G.Last);
        P.Edits.insert(P.Edits.end(), G.Edits.begin(), G.Edits.end());
        Groups.erase(Groups.begin() + I);
        Changed = true;
        continue;
      }
      ++I;
    }
  }

  std::string Out;
  for (const Group &G : Groups) {
    unsigned Begin = L.Start[G.First];
    std::vector<SourceEdit> Local = G.Edits;
    for (SourceEdit &E : Local)
      E.Offset -= Begin;
    StringRef Search = Text(G);
    auto Replace = applySourceEdits(Search, Local);
    if (!Replace)
      return Replace.takeError();
    for (StringRef Part : {Search, StringRef(*Replace)}) {
      SmallVector<StringRef, 16> PartLines;
      Part.split(PartLines, '\n');
      for (StringRef Line : PartLines)
        if (looksLikeMarker(Line))
          return makeError("line {0} of the source reads as a SEARCH/REPLACE marker",
                           G.First + 1);
    }
    if (!Out.empty())
      Out += "\n";
    Out += "<<<<<<< SEARCH\n";
    Out += Search;
    Out += "\n=======\n";
    // An empty replacement has no line at all; any other text ends in a
    // line of its own so that a final newline survives parsing.
    if (!Replace->empty())
      Out += *Replace + "\n";
    Out += ">>>>>>> REPLACE\n";
  }
  return Out;
}
