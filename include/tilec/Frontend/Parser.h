//===- Parser.h - Recursive-descent parser for .tile files ------*- C++ -*-===//
//
// The parser follows grammar/tile.ebnf (the subset of Python's grammar that
// .tile files accept); its functions are named after the grammar's rules.
// It stops at the first syntax error, as Python does, after reporting it
// with its location, what was expected and what was found, and a note at the
// opening bracket or block header when that helps.
//
// Python constructs outside the subset (try/except, global, async,
// yield, dict and set comprehensions, ...) parse far enough to be named in a
// clear "`try` statements ... are not supported in .tile files" error. List
// comprehensions and generator expressions are in the subset (autotuning
// configuration lists are written with them).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_PARSER_H
#define TILEC_FRONTEND_PARSER_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"

#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace tilec {

/// Deepest nesting of expressions (parentheses, unary operators, lambdas,
/// conditional expressions) the parser follows before it reports an error
/// instead of recursing further. Matches CPython's "too many nested
/// parentheses" limit; the indentation limit is Lexer::kMaxIndentDepth.
constexpr unsigned kMaxExprNesting = 200;

/// Tallest expression tree accepted (`a + a + ... + a` is a left-deep tree
/// built without recursion, so it needs a limit of its own). Bounding the
/// height is what makes every recursive walk over the AST safe.
constexpr unsigned kMaxExprHeight = 1000;

/// Most `elif` arms one `if` statement may have. Elaboration turns each arm
/// on a runtime condition into an `scf.if` nested in the previous one's
/// `else` region, and every later walk over that IR recurses through the
/// nesting; like the indentation limit, this bounds it. No kernel comes
/// near it (10,000 arms overflowed the stack before the limit existed).
constexpr unsigned kMaxElifBranches = 200;

/// Parses buffer `bufferId` of `sourceMgr` as a .tile module. Returns null
/// after reporting the first lexical or syntax error through `diag`.
std::unique_ptr<ast::Module> parseModule(llvm::SourceMgr &sourceMgr,
                                         unsigned bufferId,
                                         DiagnosticEngine &diag);

} // namespace tilec

#endif // TILEC_FRONTEND_PARSER_H
