//===- LoopExits.cpp - `break` / `continue` in device loops ---------------===//
//
// TileLang lets a T.serial loop `break` on a run-time condition
// (DeepSeek's top-k selector: `if l_new_topk <= 0: break`). A tile.for has
// no early exit, so the exits become flags: `break` sets a local i1
// `broken`, `continue` a local i1 `skipped` (cleared at the top of each
// iteration); the body runs under `if not broken`, and in every block the
// statements after one that may have exited run under
// `if not (broken or skipped)`. The remaining iterations then do nothing,
// which is what the exit means; the loop still counts them.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::mlirgen;

namespace {

mlir::Value boolConstant(OpBuilder &b, Location l, bool v) {
  return arith::ConstantIntOp::create(b, l, b.getI1Type(), v ? 1 : 0);
}

/// Whether `body` holds a `break` / `continue` of the loop it is the body
/// of: through `if` and `with` blocks, not into nested loops or functions.
void findExits(llvm::ArrayRef<ast::StmtPtr> body, bool &brk, bool &cont) {
  using K = ast::Stmt::Kind;
  for (const ast::StmtPtr &s : body) {
    switch (s->getKind()) {
    case K::Break:
      brk = true;
      break;
    case K::Continue:
      cont = true;
      break;
    case K::If: {
      auto &i = llvm::cast<ast::IfStmt>(*s);
      for (const ast::IfBranch &br : i.getBranches())
        findExits(br.body, brk, cont);
      findExits(i.getElseBody(), brk, cont);
      break;
    }
    case K::With:
      findExits(llvm::cast<ast::WithStmt>(*s).getBody(), brk, cont);
      break;
    default:
      break;
    }
  }
}

} // namespace

void Elaborator::makeLoopExitFlags(llvm::ArrayRef<ast::StmtPtr> body,
                                   LoopExit &exit, Location l) {
  bool brk = false, cont = false;
  findExits(body, brk, cont);
  auto make = [&](StringRef name) -> mlir::Value {
    auto type = tile::getBufferType({}, builder.getI1Type(),
                                    tile::MemorySpace::local);
    mlir::Value flag = tile::AllocOp::create(builder, l, type, name);
    memref::StoreOp::create(builder, l,
                            boolConstant(builder, l, false),
                            flag, ValueRange{});
    return flag;
  };
  if (brk)
    exit.broken = make("broken");
  if (cont)
    exit.skipped = make("skipped");
}

Flow Elaborator::execLoopBody(llvm::ArrayRef<ast::StmtPtr> body,
                              LoopExit &exit, Frame &frame) {
  Location l = builder.getUnknownLoc();
  if (!body.empty())
    l = loc(body.front()->getRange().Start);
  if (exit.skipped)
    memref::StoreOp::create(builder, l,
                            boolConstant(builder, l, false),
                            exit.skipped, ValueRange{});
  if (!exit.broken)
    return execBlock(body, frame);
  return execUnlessExited(body, exit, frame);
}

Flow Elaborator::execUnlessExited(llvm::ArrayRef<ast::StmtPtr> rest,
                                  LoopExit &exit, Frame &frame) {
  Location l = loc(rest.front()->getRange().Start);
  mlir::Value exited;
  for (mlir::Value flag : {exit.broken, exit.skipped}) {
    if (!flag)
      continue;
    mlir::Value v = memref::LoadOp::create(builder, l, flag, ValueRange{});
    exited = exited ? arith::OrIOp::create(builder, l, exited, v) : v;
  }
  mlir::Value stay = arith::XOrIOp::create(
      builder, l, exited, boolConstant(builder, l, true));
  auto ifOp = scf::IfOp::create(builder, l, stay, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  unsigned depth = regionDepth++;
  Flow f = execBlock(rest, frame);
  regionDepth = depth;
  // What the rest binds is seen only inside it (it runs to the block's
  // end), as after any branch on a run-time condition.
  poisonRegionBindings(*frame.scope, depth,
                       "is assigned after a `break` / `continue` that may "
                       "have run and cannot be used outside that part of the "
                       "loop body",
                       /*constantsToo=*/true);
  return f;
}

std::optional<Flow> Elaborator::execLoopExit(const ast::Stmt &stmt) {
  if (!traced || loopExits.empty() || !loopExits.back())
    return std::nullopt;
  LoopExit &exit = *loopExits.back();
  bool isBreak = stmt.getKind() == ast::Stmt::Kind::Break;
  mlir::Value flag = isBreak ? exit.broken : exit.skipped;
  if (!flag) {
    error(stmt.getRange(),
          llvm::Twine("`") + (isBreak ? "break" : "continue") +
              "` is only supported in T.serial and T.unroll loops (not "
              "T.Parallel, T.Pipelined or T.vectorized)");
    return Flow::Error;
  }
  Location l = loc(stmt.getRange().Start);
  memref::StoreOp::create(builder, l,
                          boolConstant(builder, l, true), flag,
                          ValueRange{});
  ++exit.exits;
  return Flow::Normal;
}
