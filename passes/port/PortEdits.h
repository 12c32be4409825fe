//===- PortEdits.h - Source ranges the port passes' fix-its edit -*- C++ -*-===//
///
/// \file
/// Helpers shared by the port passes that delete or replace whole
/// statements.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_PORTEDITS_H
#define FORGE_PASSES_PORT_PORTEDITS_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"

namespace forge::passes {

/// The range that deletes the statement [Begin, AfterSemi) (AfterSemi just
/// past its ';'), with its line when nothing else is written on it.
clang::CharSourceRange statementWithLine(const clang::SourceManager &SM,
                                         clang::SourceLocation Begin,
                                         clang::SourceLocation AfterSemi);

} // namespace forge::passes

#endif
