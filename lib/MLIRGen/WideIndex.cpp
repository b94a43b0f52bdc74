//===- WideIndex.cpp - 64-bit T.dynamic sizes and run-time loop bounds ----===//
//
// Two things a 32-bit kernel cannot count, which make its prim_func 64-bit
// (`tile.index_bits = 64`, decided in IndexLimits.cpp) instead of wrapping:
// - a 64-bit T.dynamic size, `T.dynamic("n", "int64")`: its launch argument
//   is an int64 on the device too (`tile.symbol_bits = 64`), the launch
//   function accepts it in [1, 2^59] and checks that every tensor it sizes
//   has at most 2^59 elements (byte offsets stay within int64);
// - a loop bound computed from a run-time int64 or uint32 value (a length
//   read from an int64 tensor): the 32-bit loop index truncated it.
// Under -findex-bits=32 both are located errors: that option promises
// 32-bit index arithmetic, which cannot hold them.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Support/IndexWidth.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using llvm::Twine;

namespace tilec::mlirgen {

void Elaborator::setSymbolArg(func::FuncOp func, unsigned argNo,
                              const sema::SymbolObject &sym) {
  func.setArgAttr(argNo, "tile.symbol", builder.getStringAttr(sym.name));
  if (sym.dtype.bits() != 64)
    return;
  func.setArgAttr(argNo, "tile.symbol_bits", builder.getI64IntegerAttr(64));
  requireWideIndex(func, "`" + sym.name + "` is a 64-bit T.dynamic size");
}

void Elaborator::requireWideIndex(func::FuncOp func, StringRef why) {
  if (!func->hasAttr("tile.wide_index"))
    func->setAttr("tile.wide_index", builder.getStringAttr(why));
}

LogicalResult Elaborator::noteLoopBound(mlir::Value bound, SMRange range) {
  // Bounds reach the loop as `index`; the cast says what they were.
  mlir::Value from;
  bool zeroExtended = false;
  if (auto c = bound.getDefiningOp<arith::IndexCastOp>())
    from = c.getIn();
  else if (auto c = bound.getDefiningOp<arith::IndexCastUIOp>()) {
    from = c.getIn();
    zeroExtended = true;
  }
  if (!from || !from.getType().isIntOrIndex() || from.getType().isIndex())
    return success();
  // An int64 that is itself a widened index (`T.int64(i)`) fits.
  if (auto back = from.getDefiningOp<arith::IndexCastOp>())
    if (back.getIn().getType().isIndex())
      return success();
  unsigned bits = from.getType().getIntOrFloatBitWidth();
  if (bits < 32 || (bits == 32 && !zeroExtended))
    return success();
  std::string what = "a loop bound of type " +
                     std::string(zeroExtended ? "uint" : "int") +
                     std::to_string(bits);
  if (options.indexBits == IndexBits::Bits32) {
    error(range, what + " does not fit the 32-bit loop index of "
                        "-findex-bits=32 (it would be truncated); cast it "
                        "with T.int32(...) or drop -findex-bits=32");
    return failure();
  }
  requireWideIndex(traced->func, what + " (a 32-bit loop index would "
                                        "truncate it)");
  return success();
}

bool Elaborator::addWideTensorChecks(func::FuncOp func,
                                     llvm::ArrayRef<Value> shape) {
  if (!llvm::any_of(shape, [](const Value &d) {
        return d.is(Value::Symbol) && d.getSymbol().dtype.bits() == 64;
      }))
    return false;
  // Division form: each factor against 2^59 / (the product before it), so
  // the host arithmetic never overflows int64 (each symbol is at most 2^59
  // itself, the range check).
  const std::string limit = std::to_string(kMaxElements64);
  std::string product, first;
  int64_t statics = 1;
  for (const Value &d : shape) {
    if (d.isIntLike()) {
      statics *= d.getInt(); // at most 2^59: elementCountProblem
      continue;
    }
    if (!d.is(Value::Symbol))
      continue;
    const std::string &s = d.getSymbol().name;
    if (product.empty()) {
      product = first = s;
      continue;
    }
    addLaunchCheck(func, first, s + " <= " + limit + " / (" + product + ")");
    product += " * " + s;
  }
  if (statics != 1)
    addLaunchCheck(func, first,
                   product + " <= " + limit + " / " + std::to_string(statics));
  return true;
}

} // namespace tilec::mlirgen
