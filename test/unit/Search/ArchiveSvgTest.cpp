//===- ArchiveSvgTest.cpp - The archive grid as well-formed SVG -----------===//
#include "SearchTestUtil.h"
#include "forge/Search/ArchiveSvg.h"
#include "gtest/gtest.h"
#include <cctype>
#include <cstring>
#include <regex>
#include <set>

using namespace forge;
using namespace forge::search;
using namespace forge::search::test;

namespace {

/// A small well-formedness check: one root, tags nested and closed in
/// order, attributes quoted and unique, entities known, no stray '<' or
/// '&'. Returns "" when well-formed, else what is wrong.
std::string xmlProblem(const std::string &S) {
  size_t I = 0;
  std::vector<std::string> Stack;
  unsigned Roots = 0;
  auto Entity = [&](size_t At) {
    static const char *Known[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (const char *K : Known)
      if (S.compare(At, strlen(K), K) == 0)
        return true;
    return false;
  };
  auto Name = [&](size_t &P) {
    size_t B = P;
    while (P < S.size() && (isalnum((unsigned char)S[P]) || S[P] == '-' || S[P] == '_' ||
                            S[P] == ':' || S[P] == '.'))
      ++P;
    return S.substr(B, P - B);
  };
  if (S.compare(0, 5, "<?xml") == 0) {
    I = S.find("?>");
    if (I == std::string::npos)
      return "unterminated declaration";
    I += 2;
  }
  while (I < S.size()) {
    if (S[I] == '&') {
      if (!Entity(I))
        return "bad entity at " + std::to_string(I);
      ++I;
      continue;
    }
    if (S[I] == '>')
      return "stray '>' at " + std::to_string(I);
    if (S[I] != '<') {
      if (Stack.empty() && !isspace((unsigned char)S[I]))
        return "text outside the root at " + std::to_string(I);
      ++I;
      continue;
    }
    ++I;
    bool Closing = I < S.size() && S[I] == '/';
    if (Closing)
      ++I;
    std::string N = Name(I);
    if (N.empty())
      return "tag without a name at " + std::to_string(I);
    if (Closing) {
      if (Stack.empty() || Stack.back() != N)
        return "'</" + N + ">' does not close '" + (Stack.empty() ? "" : Stack.back()) + "'";
      Stack.pop_back();
      if (I >= S.size() || S[I] != '>')
        return "bad closing tag " + N;
      ++I;
      continue;
    }
    std::set<std::string> Attrs;
    while (true) {
      while (I < S.size() && isspace((unsigned char)S[I]))
        ++I;
      if (I >= S.size())
        return "unterminated tag " + N;
      if (S[I] == '>' || S.compare(I, 2, "/>") == 0)
        break;
      std::string A = Name(I);
      if (A.empty() || I >= S.size() || S[I] != '=')
        return "bad attribute in " + N + " at " + std::to_string(I);
      if (!Attrs.insert(A).second)
        return "duplicate attribute " + A;
      ++I;
      if (I >= S.size() || S[I] != '"')
        return "unquoted attribute " + A;
      size_t End = S.find('"', I + 1);
      if (End == std::string::npos)
        return "unterminated attribute " + A;
      for (size_t K = I + 1; K < End; ++K) {
        if (S[K] == '<')
          return "'<' in attribute " + A;
        if (S[K] == '&' && !Entity(K))
          return "bad entity in attribute " + A;
      }
      I = End + 1;
    }
    if (Stack.empty() && ++Roots > 1)
      return "second root element " + N;
    if (S[I] == '/') {
      I += 2;
    } else {
      Stack.push_back(N);
      ++I;
    }
  }
  if (!Stack.empty())
    return "unclosed '" + Stack.back() + "'";
  if (Roots != 1)
    return "no root element";
  return "";
}

TEST(ArchiveSvg, TheCheckerCatchesBrokenXml) {
  EXPECT_EQ(xmlProblem("<a><b x=\"1\"/>t &amp; u</a>"), "");
  EXPECT_NE(xmlProblem("<a><b></a></b>"), "");
  EXPECT_NE(xmlProblem("<a>x & y</a>"), "");
  EXPECT_NE(xmlProblem("<a x=1></a>"), "");
  EXPECT_NE(xmlProblem("<a></a><b></b>"), "");
  EXPECT_NE(xmlProblem("<a>"), "");
}

Archive sample() {
  Archive A;
  A.insert(variant("orig", {}, "original", 2000, cell("global", "1", "scalar", ">=75 %")));
  A.insert(variant("t1", {"orig"}, "expert:transpose-tile", 1234.5,
                   cell("shared", "1", "scalar", ">=75 %"), 1));
  A.insert(variant("v4", {"t1"}, "expert:vectorize<float4>&more", 500,
                   cell("shared", "4-7", "4-wide", "50-75 %"), 2));
  A.insert(variant("slow", {"orig"}, "model", 3000, cell("register", "8+", "2-wide", "<25 %"), 1));
  return A;
}

TEST(ArchiveSvg, WellFormedWithEveryCellsTime) {
  Archive A = sample();
  SvgOptions O;
  O.Title = "transpose <sm_90> & co";
  std::string Svg = renderArchiveSvg(A, O);
  EXPECT_EQ(xmlProblem(Svg), "") << Svg;
  EXPECT_NE(Svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  for (const Variant *E : A.elites())
    EXPECT_NE(Svg.find(">" + formatMicros(*E->MedianNs) + "<"), std::string::npos)
        << E->Id << " " << formatMicros(*E->MedianNs);
  EXPECT_NE(Svg.find(">2.00 us<"), std::string::npos);
  EXPECT_NE(Svg.find(">1.23 us<"), std::string::npos);
  EXPECT_NE(Svg.find(">0.50 us<"), std::string::npos);
  EXPECT_NE(Svg.find(">3.00 us<"), std::string::npos);
  // Origins, escaped and clipped; the title escaped.
  EXPECT_NE(Svg.find(">expert:transpos~<"), std::string::npos);
  EXPECT_NE(Svg.find("(expert:transpose-tile)"), std::string::npos); // in full in the tooltip
  EXPECT_NE(Svg.find("expert:vectorize&lt;float4&gt;&amp;more"), std::string::npos);
  EXPECT_NE(Svg.find("transpose &lt;sm_90&gt; &amp; co"), std::string::npos);
  EXPECT_EQ(Svg.find("<sm_90>"), std::string::npos);
  // 144 cells, 4 filled.
  EXPECT_NE(Svg.find("4 of 144 cells"), std::string::npos);
  std::regex Rect("<rect ");
  auto N = std::distance(std::sregex_iterator(Svg.begin(), Svg.end(), Rect), std::sregex_iterator());
  EXPECT_EQ(N, 144 + 1); // every cell, plus the winner's outline
  // One outline, on the fastest (v4).
  size_t Outline = Svg.find("stroke-width=\"3\"");
  ASSERT_NE(Outline, std::string::npos);
  EXPECT_EQ(Svg.find("stroke-width=\"3\"", Outline + 1), std::string::npos);
  EXPECT_NE(Svg.find("fastest: v4"), std::string::npos);
  // Faster than the original is green, slower red.
  EXPECT_NE(Svg.find("4.00x the original"), std::string::npos); // 2000 / 500
  EXPECT_NE(Svg.find("0.67x the original"), std::string::npos);
}

TEST(ArchiveSvg, EmptyArchiveIsStillAGrid) {
  Archive A;
  std::string Svg = renderArchiveSvg(A);
  EXPECT_EQ(xmlProblem(Svg), "") << Svg;
  EXPECT_NE(Svg.find("0 of 144 cells"), std::string::npos);
  EXPECT_EQ(Svg.find("stroke-width=\"3\""), std::string::npos);
}

TEST(ArchiveSvg, Formatting) {
  EXPECT_EQ(formatMicros(1234.5), "1.23 us");
  EXPECT_EQ(formatMicros(543210), "543.2 us");
  EXPECT_EQ(formatMicros(25e6), "25000 us");
  EXPECT_EQ(escapeXml("a<b>&\"c'\x01"), "a&lt;b&gt;&amp;&quot;c&apos; ");
}

} // namespace
