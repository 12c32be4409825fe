//===- DiagnosticParserTest.cpp - nvcc, host and ptxas messages -----------===//
//
// The fixtures in Inputs/ are stderr of real CUDA 13.0 (V13.0.88) runs on the
// sources in Inputs/src/.
//
//===----------------------------------------------------------------------===//
#include "BuildTestUtil.h"
#include "forge/Build/DiagnosticParser.h"

using namespace forge::build;
using namespace forge::build::testing;

namespace {

CompilerDiagnostic diag(std::string File, unsigned Line, unsigned Column,
                        DiagSeverity Sev, std::string Message, std::string Tool,
                        std::string Code = "") {
  CompilerDiagnostic D;
  D.File = std::move(File);
  D.Line = Line;
  D.Column = Column;
  D.Severity = Sev;
  D.Message = std::move(Message);
  D.Tool = std::move(Tool);
  D.Code = std::move(Code);
  return D;
}

void expectDiags(const std::vector<CompilerDiagnostic> &Got,
                 const std::vector<CompilerDiagnostic> &Want) {
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t I = 0; I < Want.size(); ++I)
    EXPECT_EQ(Got[I], Want[I]) << "diagnostic " << I << ": got '"
                               << Got[I].format() << "', want '"
                               << Want[I].format() << "'";
}

TEST(DiagnosticParser, FrontEndError) {
  expectDiags(parseDiagnostics(fixture("nvcc-error.txt")),
              {diag("err.cu", 5, 0, DiagSeverity::Error,
                    "identifier \"x\" is undefined", "nvcc")});
}

TEST(DiagnosticParser, FrontEndWarningWithNumberAndRemark) {
  auto Diags = parseDiagnostics(fixture("nvcc-warning.txt"));
  expectDiags(Diags, {diag("warn.cu", 2, 0, DiagSeverity::Warning,
                           "variable \"y\" was declared but never referenced",
                           "nvcc", "177-D")});
  EXPECT_FALSE(Diags[0].isError());
  EXPECT_EQ(Diags[0].format(), "warn.cu:2: warning: variable \"y\" was "
                               "declared but never referenced");
}

TEST(DiagnosticParser, NvccFatal) {
  expectDiags(parseDiagnostics(fixture("nvcc-fatal-arch.txt")),
              {diag("", 0, 0, DiagSeverity::Fatal,
                    "Unsupported gpu architecture 'compute_95'", "nvcc")});
  expectDiags(parseDiagnostics(fixture("nvcc-fatal-cubin-multi.txt")),
              {diag("", 0, 0, DiagSeverity::Fatal,
                    "Option '--cubin' is not allowed when compiling for "
                    "multiple GPU code instances",
                    "nvcc")});
}

TEST(DiagnosticParser, HostPreprocessorWarningThenFrontEndError) {
  expectDiags(parseDiagnostics(fixture("host-warning-and-nvcc-error.txt")),
              {diag("multi.cu", 2, 2, DiagSeverity::Warning,
                    "#warning this file is old [-Wcpp]", "host"),
               diag("multi.cu", 7, 0, DiagSeverity::Error,
                    "identifier \"undefined_fn\" is undefined", "nvcc")});
}

TEST(DiagnosticParser, HostFatalMissingInclude) {
  expectDiags(parseDiagnostics(fixture("host-missing-include.txt")),
              {diag("missing.cu", 1, 10, DiagSeverity::Fatal,
                    "nothere.h: No such file or directory", "host")});
}

TEST(DiagnosticParser, HostErrorSkipsContextLines) {
  // "attr.cu: In function 'int main()':" and the source echo are context.
  expectDiags(parseDiagnostics(fixture("host-attribute-error.txt")),
              {diag("attr.cu", 2, 23, DiagSeverity::Error,
                    "call to \xE2\x80\x98" "forbidden\xE2\x80\x99 declared with "
                    "attribute error: do not call",
                    "host")});
}

TEST(DiagnosticParser, TemplateInstantiationNote) {
  expectDiags(
      parseDiagnostics(fixture("nvcc-template-error.txt")),
      {diag("inc/hdr.cuh", 3, 0, DiagSeverity::Error,
            "expression must have class type but it has type \"float\"",
            "nvcc"),
       diag("tmplerr.cu", 4, 0, DiagSeverity::Note,
            "instantiation of \"T twice(T) [with T=float]\"", "nvcc")});
}

TEST(DiagnosticParser, ContinuationNotesAndInstantiationChain) {
  expectDiags(
      parseDiagnostics(fixture("nvcc-overload-notes.txt")),
      {diag("overload.cu", 4, 0, DiagSeverity::Error,
            "no instance of overloaded function \"f\" matches the argument "
            "list; argument types are: (float)",
            "nvcc"),
       diag("overload.cu", 2, 0, DiagSeverity::Note,
            "number of parameters of function \"f(int *, int)\" does not "
            "match the call",
            "nvcc", "3322-D"),
       diag("overload.cu", 1, 0, DiagSeverity::Note,
            "function \"f(int *)\" does not match because argument #1 does "
            "not match parameter",
            "nvcc", "3326-D"),
       // "at line N" without "of FILE" is in the file of the error.
       diag("overload.cu", 5, 0, DiagSeverity::Note,
            "instantiation of \"void g(T) [with T=float]\"", "nvcc"),
       diag("overload.cu", 8, 0, DiagSeverity::Note,
            "instantiation of \"void h(T) [with T=float]\"", "nvcc")});
}

TEST(DiagnosticParser, PtxasSharedMemoryErrorIgnoresInfoLines) {
  expectDiags(parseDiagnostics(fixture("ptxas-too-much-smem.txt")),
              {diag("", 0, 0, DiagSeverity::Error,
                    "Entry function '_Z3bigPf' uses too much shared data "
                    "(0x12000 bytes, 0xc000 max)",
                    "ptxas")});
}

TEST(DiagnosticParser, PtxasWarning) {
  expectDiags(parseDiagnostics(fixture("resource-rdc-sm100f.txt")),
              {diag("", 0, 0, DiagSeverity::Warning,
                    "For profile sm_100f adjusting per thread register count "
                    "of 16 to lower bound of 24",
                    "ptxas")});
}

TEST(DiagnosticParser, NvlinkError) {
  expectDiags(parseDiagnostics(fixture("nvlink-undefined.txt")),
              {diag("", 0, 0, DiagSeverity::Error,
                    "Undefined reference to '_Z3extv' in "
                    "'/tmp/tmpxft_000010eb_00000000-11_link.o'",
                    "nvlink")});
}

TEST(DiagnosticParser, PtxasErrorAtPtxLineMapsToSource) {
  auto Diags = parseDiagnostics(fixture("ptxas-wgmma.txt"));
  ASSERT_EQ(Diags.size(), 2u);
  EXPECT_EQ(Diags[0].Tool, "ptxas");
  EXPECT_EQ(Diags[0].Severity, DiagSeverity::Error);
  EXPECT_EQ(Diags[0].Message,
            "Instruction 'wgmma.fence' not supported on .target 'sm_90'");
  EXPECT_EQ(Diags[0].PtxFile, "/tmp/rec/keep/wgmma.ptx");
  EXPECT_EQ(Diags[0].PtxLine, 31u);
  EXPECT_EQ(Diags[0].File, "");
  EXPECT_EQ(Diags[1], diag("", 0, 0, DiagSeverity::Fatal,
                           "Ptx assembly aborted due to errors", "ptxas"));

  std::string Ptx = fixture("wgmma.ptx");
  std::vector<std::string> Asked;
  unsigned Mapped =
      mapPtxDiagnostics(Diags, [&](llvm::StringRef Path)
                                   -> std::optional<std::string> {
        Asked.push_back(Path.str());
        return Ptx;
      });
  EXPECT_EQ(Mapped, 1u);
  EXPECT_EQ(Asked, std::vector<std::string>{"/tmp/rec/keep/wgmma.ptx"});
  // The inline asm is on line 3, column 3 of the source (Inputs/src/wgmma.cu).
  EXPECT_EQ(Diags[0].File, "/tmp/rec/wgmma.cu");
  EXPECT_EQ(Diags[0].Line, 3u);
  EXPECT_EQ(Diags[0].Column, 3u);
  EXPECT_EQ(Diags[0].format(), "/tmp/rec/wgmma.cu:3:3: error: Instruction "
                               "'wgmma.fence' not supported on .target 'sm_90'");
}

TEST(DiagnosticParser, PtxUnavailableLeavesDiagnosticUnmapped) {
  auto Diags = parseDiagnostics(fixture("ptxas-wgmma.txt"));
  EXPECT_EQ(mapPtxDiagnostics(
                Diags, [](llvm::StringRef) { return std::optional<std::string>(); }),
            0u);
  EXPECT_EQ(Diags[0].File, "");
  EXPECT_EQ(Diags[0].format(),
            "/tmp/rec/keep/wgmma.ptx:31: error: Instruction 'wgmma.fence' not "
            "supported on .target 'sm_90'");
}

TEST(DiagnosticParser, SyntheticForms) {
  std::string Log = "k.cu:12: error: no column here\r\n"
                    "k.cu(9): catastrophic error: cannot open source file "
                    "\"x.h\"\n"
                    "cc1plus: fatal error: k.cu: No such file or directory\n"
                    "k.cu(4): remark #550-D: variable \"t\" was set\n"
                    "nvcc error   : 'cicc' died due to signal 9 (Kill signal)\n"
                    "1 error detected in the compilation of \"k.cu\".\n"
                    "compilation terminated.\n";
  expectDiags(parseDiagnostics(Log),
              {diag("k.cu", 12, 0, DiagSeverity::Error, "no column here",
                    "host"),
               diag("k.cu", 9, 0, DiagSeverity::Fatal,
                    "cannot open source file \"x.h\"", "nvcc"),
               diag("", 0, 0, DiagSeverity::Fatal,
                    "k.cu: No such file or directory", "host"),
               diag("k.cu", 4, 0, DiagSeverity::Remark,
                    "variable \"t\" was set", "nvcc", "550-D"),
               diag("", 0, 0, DiagSeverity::Error,
                    "'cicc' died due to signal 9 (Kill signal)", "nvcc")});
  EXPECT_TRUE(parseDiagnostics("").empty());
}

TEST(PtxLineMap, FunctionBoundariesInlinedAtAndFileTimestamps) {
  std::string Ptx = ".version 9.0\n"                                   // 1
                    ".target sm_90\n"                                  // 2
                    ".visible .entry _Z1aPf(\n"                        // 3
                    ")\n{\n"                                           // 4-5
                    "\t.loc\t2 10 5\n"                                 // 6
                    "\tmov.u32 %r1, 1;\n"                              // 7
                    "\t.loc\t1 3 7, function_name $L__info_string0, "
                    "inlined_at 2 11 9\n"                              // 8
                    "\tadd.s32 %r1, %r1, 1;\n"                         // 9
                    "}\n"                                              // 10
                    ".visible .entry _Z1bPf(\n"                        // 11
                    ")\n{\n"                                           // 12-13
                    "\tret;\n"                                         // 14
                    "}\n"                                              // 15
                    "\t.file\t1 \"/src/h.cuh\", 1700000000, 120\n"     // 16
                    "\t.file\t2 \"/src/k.cu\"\n";                      // 17
  PtxLineMap Map(Ptx);
  ASSERT_TRUE(Map.hasLineInfo());
  EXPECT_FALSE(Map.lookup(4).has_value()); // Before any .loc.
  auto L7 = Map.lookup(7);
  ASSERT_TRUE(L7.has_value());
  EXPECT_EQ(L7->File, "/src/k.cu");
  EXPECT_EQ(L7->Line, 10u);
  EXPECT_EQ(L7->Column, 5u);
  auto L9 = Map.lookup(9); // The innermost (inlined) location.
  ASSERT_TRUE(L9.has_value());
  EXPECT_EQ(L9->File, "/src/h.cuh");
  EXPECT_EQ(L9->Line, 3u);
  EXPECT_EQ(L9->Column, 7u);
  // _Z1bPf has no .loc of its own: do not borrow _Z1aPf's.
  EXPECT_FALSE(Map.lookup(14).has_value());
  EXPECT_FALSE(PtxLineMap(".version 9.0\nret;\n").hasLineInfo());
}

} // namespace
