//===- Search/ArchiveSvg.cpp - The archive drawn as a grid ----------------===//
#include "forge/Search/ArchiveSvg.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace forge::search {

std::string escapeXml(StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (char C : S) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&apos;";
      break;
    default:
      // Control characters are not allowed in XML 1.0 text.
      if (static_cast<unsigned char>(C) < 0x20 && C != '\t' && C != '\n')
        Out += ' ';
      else
        Out += C;
    }
  }
  return Out;
}

std::string formatMicros(double Ns) {
  double Us = Ns / 1000;
  if (Us < 100)
    return formatv("{0:f2} us", Us).str();
  if (Us < 10000)
    return formatv("{0:f1} us", Us).str();
  return formatv("{0:f0} us", Us).str();
}

namespace {
constexpr int CellW = 86, CellH = 44, LeftW = 150, TopH = 78, Pad = 10;

/// Speedup over the original as a fill: red growing to half the speed,
/// white at parity, green growing with log2 up to 16x.
std::string fillFor(double Speedup) {
  if (!(Speedup > 0))
    return "#e8e8e8";
  auto Mix = [](int A, int B, double T) { return int(std::lround(A + (B - A) * T)); };
  if (Speedup < 1) {
    double T = std::min(1.0, -std::log2(Speedup)); // full red at half the speed
    return formatv("#{0:x-2}{1:x-2}{2:x-2}", Mix(0xff, 0xf4, T), Mix(0xff, 0xa5, T),
                   Mix(0xff, 0xa5, T))
        .str();
  }
  double T = std::min(1.0, std::log2(Speedup) / 4);
  return formatv("#{0:x-2}{1:x-2}{2:x-2}", Mix(0xf4, 0x1a, T), Mix(0xfb, 0x98, T),
                 Mix(0xf0, 0x50, T))
      .str();
}

std::string clip(StringRef S, size_t N) {
  if (S.size() <= N)
    return S.str();
  return S.take_front(N - 1).str() + "~";
}
} // namespace

std::string renderArchiveSvg(const Archive &A, const SvgOptions &O) {
  const int Cols = NumWorkBands * NumOccupancyBands;
  const int Rows = NumMemoryStrategies * NumVectorWidths;
  const int W = LeftW + Cols * CellW + 2 * Pad;
  const int H = TopH + Rows * CellH + 2 * Pad + 56;
  const Variant *Orig = A.original();
  const Variant *Best = A.best();

  std::string S;
  raw_string_ostream OS(S);
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  OS << formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n",
                W, H);
  OS << formatv("<title>{0}</title>\n", escapeXml(O.Title));
  OS << formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"14\" font-weight=\"bold\">{2}</text>\n",
                Pad, Pad + 14,
                escapeXml(formatv("{0}: {1} of {2} cells", O.Title, A.cellCount(), NumCells).str()));

  // Column headers: work band over occupancy band.
  for (unsigned Wk = 0; Wk < NumWorkBands; ++Wk) {
    int X = Pad + LeftW + int(Wk * NumOccupancyBands) * CellW;
    OS << formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" font-weight=\"bold\">"
                  "{2}</text>\n",
                  X + int(NumOccupancyBands) * CellW / 2, Pad + 38,
                  escapeXml(("work/thread " + workBandName(WorkBand(Wk))).str()));
    for (unsigned Oc = 0; Oc < NumOccupancyBands; ++Oc)
      OS << formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n",
                    X + int(Oc) * CellW + CellW / 2, Pad + 58,
                    escapeXml(occupancyBandName(OccupancyBand(Oc))));
  }
  // Row headers: memory strategy and vector width.
  for (unsigned M = 0; M < NumMemoryStrategies; ++M)
    for (unsigned V = 0; V < NumVectorWidths; ++V) {
      int Row = int(M * NumVectorWidths + V);
      int Y = Pad + TopH + Row * CellH;
      OS << formatv("<text x=\"{0}\" y=\"{1}\">{2}</text>\n", Pad, Y + CellH / 2 + 4,
                    escapeXml((memoryStrategyName(MemoryStrategy(M)) + ", " +
                               vectorWidthName(VectorWidth(V)))
                                  .str()));
    }

  // Cells.
  std::string Outline;
  for (unsigned Index = 0; Index < NumCells; ++Index) {
    Descriptor D = Descriptor::fromCellIndex(Index);
    int Row = int(unsigned(D.Memory) * NumVectorWidths + unsigned(D.Vector));
    int Col = int(unsigned(D.Work) * NumOccupancyBands + unsigned(D.Occupancy));
    int X = Pad + LeftW + Col * CellW, Y = Pad + TopH + Row * CellH;
    const Variant *E = A.elite(D);
    if (!E) {
      OS << formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" fill=\"#fafafa\" "
                    "stroke=\"#d0d0d0\"/>\n",
                    X, Y, CellW, CellH);
      continue;
    }
    double Speedup = Orig ? *Orig->MedianNs / *E->MedianNs : 0;
    std::string Tip = formatv("{0}: {1} ({2}), {3}, generation {4}{5}", D.key(), E->Id,
                              E->Origin, formatMicros(*E->MedianNs), E->Generation,
                              Orig ? formatv(", {0:f2}x the original", Speedup).str() : "")
                          .str();
    OS << formatv("<g><title>{0}</title>", escapeXml(Tip));
    OS << formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" fill=\"{4}\" "
                  "stroke=\"#909090\"/>",
                  X, Y, CellW, CellH, fillFor(Speedup));
    OS << formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" font-weight=\"bold\">{2}"
                  "</text>",
                  X + CellW / 2, Y + 18, escapeXml(formatMicros(*E->MedianNs)));
    OS << formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" font-size=\"9\">{2}</text>",
                  X + CellW / 2, Y + 34, escapeXml(clip(E->Origin, 16)));
    OS << "</g>\n";
    if (E == Best)
      Outline = formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" fill=\"none\" "
                        "stroke=\"#000000\" stroke-width=\"3\"><title>{4}</title></rect>\n",
                        X + 1, Y + 1, CellW - 2, CellH - 2,
                        escapeXml("fastest: " + E->Id))
                    .str();
  }
  OS << Outline; // last, so that neighbours do not paint over it

  int LegendY = Pad + TopH + Rows * CellH + 24;
  OS << formatv("<text x=\"{0}\" y=\"{1}\">{2}</text>\n", Pad, LegendY,
                escapeXml(Orig ? "colour: speedup over the original (" +
                                     formatMicros(*Orig->MedianNs) +
                                     "); red slower, green faster (deepest at 16x); outlined: "
                                     "the fastest"
                               : std::string("no original in the archive: cells uncoloured")));
  OS << formatv("<text x=\"{0}\" y=\"{1}\">{2}</text>\n", Pad, LegendY + 16,
                "rows: memory strategy, vector width; columns: work per thread, then occupancy band");
  OS << "</svg>\n";
  return S;
}

} // namespace forge::search
