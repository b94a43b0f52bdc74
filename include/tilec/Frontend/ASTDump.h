//===- ASTDump.h - Textual dump of a .tile syntax tree ----------*- C++ -*-===//
//
// `tilec --emit=ast` output: one node per line, indented two spaces per
// level, `line:col` of the node's start, fields labelled the way Python's
// `ast` module names them. Deterministic (no addresses, no hash order), so
// lit tests can FileCheck it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FRONTEND_ASTDUMP_H
#define TILEC_FRONTEND_ASTDUMP_H

#include "tilec/Frontend/AST.h"

#include "llvm/Support/raw_ostream.h"

namespace tilec {

void dumpAST(const ast::Module &module, llvm::raw_ostream &os);

/// Dumps one expression or statement (line:col from `module`'s buffer),
/// starting at indentation level `indent`.
void dumpAST(const ast::Module &module, const ast::Expr &expr,
             llvm::raw_ostream &os, unsigned indent = 0);
void dumpAST(const ast::Module &module, const ast::Stmt &stmt,
             llvm::raw_ostream &os, unsigned indent = 0);

/// Python-style shortest round-trip spelling of a float (`1.0`, `1e-30`).
std::string formatFloat(double value);

} // namespace tilec

#endif // TILEC_FRONTEND_ASTDUMP_H
