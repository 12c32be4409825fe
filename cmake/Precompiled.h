//===- cmake/Precompiled.h - The headers most sources include ---*- C++ -*-===//
///
/// \file
/// Precompiled once per build (FORGE_PCH, the top-level CMakeLists.txt) and
/// reused by every library, tool and test that links Clang: parsing Clang's
/// AST headers was about 60 % of each source file's compile time. Sources
/// still include what they use; this list only makes that cheap. Keep it to
/// headers that many sources include, and out of it those that declare
/// names clang and llvm both have (clang/Frontend/CompilerInstance.h brings
/// llvm::Type, ArrayType and PointerType next to clang's: sources that use
/// both namespaces would see them ambiguous).
///
//===----------------------------------------------------------------------===//
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <nlohmann/json.hpp>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>
