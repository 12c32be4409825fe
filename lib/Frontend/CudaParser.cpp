//===- Frontend/CudaParser.cpp --------------------------------------------===//
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/CompileDatabase.h"
#include "forge/Frontend/PrefixCache.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;
using namespace llvm;

namespace forge::frontend {

//===----------------------------------------------------------------------===//
// ParseDiagnostics
//===----------------------------------------------------------------------===//

ParseDiagnostics::ParseDiagnostics(raw_ostream *OS, bool ShowWarnings)
    : ShowWarnings(ShowWarnings) {
  if (OS) {
    PrinterOpts = std::make_unique<DiagnosticOptions>();
    PrinterOpts->ShowColors = false;
    Printer = std::make_unique<TextDiagnosticPrinter>(*OS, *PrinterOpts);
  }
}

ParseDiagnostics::~ParseDiagnostics() = default;

void ParseDiagnostics::BeginSourceFile(const LangOptions &LO, const Preprocessor *PP) {
  if (Printer)
    Printer->BeginSourceFile(LO, PP);
}

void ParseDiagnostics::EndSourceFile() {
  if (Printer)
    Printer->EndSourceFile();
}

void ParseDiagnostics::finish() {
  if (Printer)
    Printer->finish();
}

/// Errors that nvcc only warns about. The line must show '__shared__' for
/// the dynamic-initialisation error, which nvcc still rejects on __device__.
static bool nvccAccepts(const Diagnostic &Info) {
  unsigned ID = Info.getID();
  if (ID == diag::err_shared_var_init)
    return true;
  if (ID == diag::err_dynamic_var_init && Info.hasSourceManager() &&
      Info.getLocation().isValid()) {
    const SourceManager &SM = Info.getSourceManager();
    SourceLocation L = SM.getExpansionLoc(Info.getLocation());
    bool Invalid = false;
    StringRef Buf = SM.getBufferData(SM.getFileID(L), &Invalid);
    if (Invalid)
      return false;
    unsigned Off = SM.getFileOffset(L);
    size_t Begin = Buf.rfind('\n', Off);
    Begin = Begin == StringRef::npos ? 0 : Begin + 1;
    size_t End = Buf.find('\n', Off);
    return Buf.slice(Begin, End).contains("__shared__");
  }
  return false;
}

void ParseDiagnostics::HandleDiagnostic(DiagnosticsEngine::Level Level,
                                        const Diagnostic &Info) {
  if (Level == DiagnosticsEngine::Note) {
    if (LastShown && Printer)
      Printer->HandleDiagnostic(Level, Info);
    return;
  }
  bool IsError = Level >= DiagnosticsEngine::Error;
  if (IsError) {
    ++RawErrors;
    if (OnError)
      OnError(Info);
  }
  if (IsError && nvccAccepts(Info)) {
    Level = DiagnosticsEngine::Warning;
    IsError = false;
    ++Downgraded;
  }
  if (!IsError && !ShowWarnings) {
    LastShown = false;
    return;
  }
  // The same file is parsed for the host and the device; say each thing once.
  SmallString<256> Msg;
  Info.FormatDiagnostic(Msg);
  std::string Where;
  if (Info.hasSourceManager() && Info.getLocation().isValid()) {
    PresumedLoc P = Info.getSourceManager().getPresumedLoc(
        Info.getSourceManager().getExpansionLoc(Info.getLocation()));
    if (P.isValid())
      Where = (Twine(P.getFilename()) + ":" + Twine(P.getLine()) + ":" +
               Twine(P.getColumn()))
                  .str();
  }
  std::string Key = Where + "|" + std::to_string(int(Level)) + "|" + Msg.str().str();
  if (!Seen.insert(Key).second) {
    LastShown = false;
    return;
  }
  if (IsError && Explains && Explains(Msg, Info)) {
    ++Explained;
    LastShown = false;
    return;
  }
  LastShown = true;
  if (IsError) {
    ++Errors;
    ErrorKeys.push_back(Key);
    if (RedactOtherFiles && Info.hasSourceManager() && Info.getLocation().isValid() &&
        !Info.getSourceManager().isWrittenInMainFile(
            Info.getSourceManager().getExpansionLoc(Info.getLocation())))
      ErrorMessages.push_back(RedactedDiagnostic.str());
    else
      ErrorMessages.push_back(Where.empty() ? Msg.str().str()
                                            : Where + ": " + Msg.str().str());
  }
  DiagnosticConsumer::HandleDiagnostic(Level, Info);
  if (Printer)
    Printer->HandleDiagnostic(Level, Info);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

bool isUserLocation(const SourceManager &SM, SourceLocation Loc) {
  if (Loc.isInvalid())
    return false;
  Loc = SM.getExpansionLoc(Loc);
  if (SM.isInSystemHeader(Loc))
    return false;
  if (SM.isWrittenInMainFile(Loc))
    return true;
  StringRef Name = SM.getFilename(Loc);
  if (Name.empty() || Name.starts_with(PreludeDir) || Name.starts_with("<"))
    return false;
  return true;
}

namespace {
class FactsRecorder : public PPCallbacks {
public:
  FactsRecorder(const SourceManager &SM, PreprocessorFacts &Facts)
      : SM(SM), Facts(Facts) {}
  void SourceRangeSkipped(SourceRange Range, SourceLocation EndifLoc) override {
    if (isUserLocation(SM, Range.getBegin()))
      Facts.Skipped.push_back(Range);
  }
  void FileChanged(SourceLocation Loc, FileChangeReason Reason, SrcMgr::CharacteristicKind,
                   FileID) override {
    if (Reason != EnterFile || !isUserLocation(SM, Loc))
      return;
    if (OptionalFileEntryRef F = SM.getFileEntryRefForID(SM.getFileID(Loc))) {
      SmallString<256> Path(F->getName());
      sys::fs::make_absolute(Path);
      sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
      Facts.Files.insert(Path.str().str());
    }
  }

private:
  const SourceManager &SM;
  PreprocessorFacts &Facts;
};

class CallbackConsumer : public ASTConsumer {
public:
  CallbackConsumer(CompilerInstance &CI, ASTCallback OnAST, PreprocessorFacts &Facts)
      : CI(CI), OnAST(OnAST), Facts(Facts) {}
  void HandleTranslationUnit(ASTContext &Ctx) override { OnAST(Ctx, CI, Facts); }

private:
  CompilerInstance &CI;
  ASTCallback OnAST;
  PreprocessorFacts &Facts;
};

class CallbackAction : public ASTFrontendAction {
public:
  CallbackAction(ASTCallback OnAST, const std::function<void(CompilerInstance &)> &OnBegin)
      : OnAST(OnAST), OnBegin(OnBegin) {}
  bool BeginInvocation(CompilerInstance &CI) override {
    usePrecompiledPrefix(CI);
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    // Clang's "N errors generated when compiling for ..." count goes here:
    // the drivers print their own counts, which add up.
    CI.setVerboseOutputStream(llvm::nulls());
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<FactsRecorder>(CI.getSourceManager(), Facts));
    if (OnBegin)
      OnBegin(CI);
    return std::make_unique<CallbackConsumer>(CI, OnAST, Facts);
  }

private:
  ASTCallback OnAST;
  const std::function<void(CompilerInstance &)> &OnBegin;
  PreprocessorFacts Facts;
};
} // namespace

Error checkCudaInput(StringRef Path) {
  sys::fs::file_status St;
  if (auto EC = sys::fs::status(Path, St))
    return makeError("cannot open '{0}': {1}", Path, EC.message());
  if (St.type() == sys::fs::file_type::directory_file)
    return makeError("'{0}' is a directory, not a CUDA source file", Path);
  StringRef Ext = sys::path::extension(Path);
  // .c: C, which nvcc hands to the host compiler (a .c that includes cuda.h
  // uses the driver API).
  static const char *const Known[] = {".cu",  ".cuh", ".c",   ".cpp", ".cc", ".cxx", ".c++",
                                      ".h",   ".hpp", ".hh",  ".hxx", ".inl", ".inc"};
  if (!is_contained(Known, Ext.lower()))
    return makeError("'{0}' is not a CUDA, C++ or C source file (expected .cu, .cuh, "
                     ".cpp, .c, .h or similar)",
                     Path);
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return makeError("cannot read '{0}': {1}", Path, Buf.getError().message());
  if ((*Buf)->getBuffer().contains('\0'))
    return makeError("'{0}' is not a text file", Path);
  return Error::success();
}

Error checkKernelInput(StringRef Path, StringRef BuildDir, ArrayRef<std::string> ExtraArgs) {
  if (!isCUnit(Path, compileCommandIn(BuildDir, Path), ExtraArgs))
    return Error::success();
  if (Error E = checkCudaInput(Path))
    return E;
  return makeError("'{0}' is a C unit (nvcc compiles it with the host compiler): it has no "
                   "kernels",
                   Path);
}

Error parseCuda(const Toolchain &TC, const ParseOptions &Opts, const ParseRequest &Req,
                ParseDiagnostics &Diags, ASTCallback OnAST) {
  SmallString<256> Abs(Req.File);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, true);
  if (!Req.Contents)
    if (Error E = checkCudaInput(Abs))
      return E;

  auto Overlay = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
  auto Memory = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  Overlay->pushOverlay(Memory);
  Memory->addFile((Twine(PreludeDir) + "/" + PreludeName).str(), 0,
                  MemoryBuffer::getMemBufferCopy(nvccCompatPrelude()));
  Memory->addFile((Twine(PreludeDir) + "/" + PrefixMainName).str(), 0,
                  MemoryBuffer::getMemBufferCopy(""));
  if (!TC.OmpHeader.empty())
    if (auto Omp = MemoryBuffer::getFile(TC.OmpHeader))
      Memory->addFile((Twine(PreludeDir) + "/" + OmpDir + "/omp.h").str(), 0,
                      MemoryBuffer::getMemBufferCopy((*Omp)->getBuffer()));
  if (Req.Contents)
    Memory->addFile(Abs, 0, MemoryBuffer::getMemBufferCopy(*Req.Contents));
  for (const auto &[Path, Text] : Req.Overlay)
    if (Path != Abs.str())
      Memory->addFile(Path, 0, MemoryBuffer::getMemBufferCopy(Text));
  // Clang's CUDA wrapper includes "cuda.h" (for CUDA_VERSION and the driver
  // types) before anything else, and the user's -I directories come before
  // the toolkit's: a project header named cuda.h (Rodinia's util/cuda/cuda.h)
  // stood in for the toolkit's and the parse failed, where nvcc, which
  // includes no cuda.h by itself, builds the file. Beside the wrapper, where
  // its quoted include looks first, a cuda.h forwards to the toolkit's; the
  // user's own "cuda.h" still resolves as nvcc resolves it.
  if (TC.hasCuda() && !TC.ResourceDir.empty()) {
    SmallString<256> Toolkit(TC.CudaPath);
    sys::path::append(Toolkit, "include", "cuda.h");
    SmallString<256> BesideWrapper(TC.ResourceDir);
    sys::path::append(BesideWrapper, "include", "cuda.h");
    if (sys::fs::exists(Toolkit) && !sys::fs::exists(BesideWrapper))
      Memory->addFile(BesideWrapper, 0,
                      MemoryBuffer::getMemBufferCopy("#include \"" + Toolkit.str().str() + "\"\n"));
  }

  auto Files = makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), Overlay);
  // Clang names the file as the user wrote it (diagnostics print that), except
  // for in-memory contents, which live at the absolute path.
  std::vector<std::string> Cmd =
      buildClangCommand(TC, Opts, Req.Contents ? StringRef(Abs) : StringRef(Req.File), Req.S);
  tooling::ToolInvocation Inv(Cmd, std::make_unique<CallbackAction>(OnAST, Req.OnBegin),
                              Files.get());
  Inv.setDiagnosticConsumer(&Diags);
  unsigned ErrorsBefore = Diags.rawErrors();
  bool OK = Inv.run();
  // ToolInvocation::run() is false both when the driver failed and when the
  // code had errors; only the first is a failure of the parse itself.
  if (!OK && Diags.rawErrors() == ErrorsBefore)
    return makeError("clang could not parse '{0}' (command: {1})", Req.File,
                     join(Cmd, " "));
  return Error::success();
}

} // namespace forge::frontend
