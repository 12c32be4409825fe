//===- PortEdits.cpp - Source ranges the port passes' fix-its edit --------===//
#include "PortEdits.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {

CharSourceRange statementWithLine(const SourceManager &SM, SourceLocation Begin,
                                  SourceLocation AfterSemi) {
  StringRef Buf = SM.getBufferData(SM.getFileID(Begin));
  unsigned B = SM.getFileOffset(Begin), E = SM.getFileOffset(AfterSemi);
  unsigned LineB = B, LineE = E;
  while (LineB > 0 && (Buf[LineB - 1] == ' ' || Buf[LineB - 1] == '\t'))
    --LineB;
  while (LineE < Buf.size() && (Buf[LineE] == ' ' || Buf[LineE] == '\t' || Buf[LineE] == '\r'))
    ++LineE;
  if ((LineB == 0 || Buf[LineB - 1] == '\n') && LineE < Buf.size() && Buf[LineE] == '\n')
    return CharSourceRange::getCharRange(Begin.getLocWithOffset(int(LineB) - int(B)),
                                         AfterSemi.getLocWithOffset(int(LineE) - int(E) + 1));
  return CharSourceRange::getCharRange(Begin, AfterSemi);
}

} // namespace forge::passes
