//===- IndexLimits.cpp - What kernels' index arithmetic can count ---------===//
//
// Each kernel's index arithmetic is 32 or 64 bits wide, a decision recorded
// on its prim_func as `tile.index_bits` (decideIndexWidths, below; the
// proof is tilec/Support/IndexWidth.h). A size a kernel cannot count must
// not reach it silently:
// - a global tensor with a static element count past INT32_MAX makes its
//   kernel 64-bit; under -findex-bits=32 it is a located error where its
//   shape is written (its offsets would wrap: `shl.b32`), as is an on-chip
//   buffer that large (those never get 64-bit offsets);
// - in a 32-bit kernel, a tensor with T.dynamic dimensions gets
//   launch-header checks that its element count stays within INT32_MAX
//   (each symbol alone is checked against INT32_MAX; `m * K` past it
//   wrapped, a dynamic GEMM with K = 1024 broke at m >= 2^21), and an index
//   expression of T.dynamic symbols the kernel computes (`m * n`,
//   `(m + 63)`) a check that its value fits in 32 bits. A 64-bit kernel
//   needs neither (symbols are int32 launch arguments, so their products
//   fit in 64 bits).
// The checks are kept on the prim_func as `tile.checks` (pairs of the
// symbol they are about and a C++ condition over the symbols; an index
// limit carries a third element, "index") and become the launch function's
// checks (header::Function::checks). Each condition is evaluated in
// int64_t after the ones before it passed, which keeps the host arithmetic
// itself from overflowing: symbols are at most INT32_MAX, and each product
// multiplies a checked value by at most INT32_MAX more.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <climits>

using namespace mlir;
using llvm::Twine;

namespace tilec::mlirgen {

static constexpr const char *kIndexMax = "2147483647";

std::string Elaborator::elementCountProblem(llvm::StringRef what,
                                            llvm::ArrayRef<Value> shape,
                                            bool wide) {
  int64_t count = 1;
  bool overflow = false;
  for (const Value &d : shape)
    if (d.isIntLike() && d.getInt() > 0)
      overflow |= __builtin_mul_overflow(count, d.getInt(), &count);
  int64_t limit = wide ? kMaxElements64 : kMaxElements32;
  if (!overflow && count <= limit)
    return "";
  std::string dims;
  for (const Value &d : shape)
    dims += (dims.empty() ? "" : ", ") +
            (d.is(Value::Symbol) ? d.getSymbol().name : d.repr());
  bool dynamic = llvm::any_of(shape, [](const Value &d) {
    return d.is(Value::Symbol);
  });
  return (Twine(what) + " of shape (" + dims + ") has " +
          (overflow ? std::string("more than 2^63")
                    : std::to_string(count)) +
          (dynamic ? " elements in its static dimensions alone" : " elements") +
          (wide ? Twine(", more than the 2^59 that 64-bit byte offsets can "
                        "address")
                : Twine(", more than the ") + kIndexMax +
                      " that kernels' 32-bit element offsets can address")
      ).str();
}

/// The identifiers of a host expression (C++ over the symbols).
static SmallVector<StringRef> identifiersOf(StringRef expr) {
  SmallVector<StringRef> out;
  for (size_t i = 0; i < expr.size();) {
    char c = expr[i];
    if (llvm::isAlpha(c) || c == '_') {
      size_t j = i;
      while (j < expr.size() && (llvm::isAlnum(expr[j]) || expr[j] == '_'))
        ++j;
      out.push_back(expr.slice(i, j));
      i = j;
    } else if (llvm::isDigit(c)) {
      while (i < expr.size() && llvm::isAlnum(expr[i]))
        ++i;
    } else {
      ++i;
    }
  }
  return out;
}

void Elaborator::addLaunchCheck(func::FuncOp func, llvm::StringRef symbol,
                                llvm::StringRef condition, bool indexLimit) {
  MLIRContext *ctx = func.getContext();
  SmallVector<Attribute> checks;
  if (auto old = func->getAttrOfType<ArrayAttr>("tile.checks")) {
    for (Attribute a : old) {
      auto pair = cast<ArrayAttr>(a);
      if (cast<StringAttr>(pair[1]).getValue() == condition)
        return;
    }
    llvm::append_range(checks, old.getValue());
  }
  SmallVector<Attribute, 3> entry = {StringAttr::get(ctx, symbol),
                                     StringAttr::get(ctx, condition)};
  if (indexLimit)
    entry.push_back(StringAttr::get(ctx, "index"));
  checks.push_back(ArrayAttr::get(ctx, entry));
  func->setAttr("tile.checks", ArrayAttr::get(ctx, checks));
}

void Elaborator::addTensorSizeChecks(func::FuncOp func,
                                     llvm::ArrayRef<Value> shape) {
  // A 64-bit symbol makes the kernel 64-bit: its checks are of 2^59.
  if (addWideTensorChecks(func, shape))
    return;
  int64_t statics = 1;
  SmallVector<std::string> symbols;
  for (const Value &d : shape) {
    if (d.is(Value::Symbol))
      symbols.push_back(d.getSymbol().name);
    else if (d.isIntLike())
      statics *= d.getInt(); // at most INT32_MAX: elementCountProblem
  }
  if (symbols.empty() || (symbols.size() == 1 && statics == 1))
    return; // a lone symbol is checked against INT32_MAX already
  // The running product, one check per factor: `m * n <= MAX` then
  // `m * n * 64 <= MAX` (statics last, so each step is checked first).
  std::string product;
  for (const std::string &s : symbols) {
    product = product.empty() ? s : product + " * " + s;
    if (product != symbols.front())
      addLaunchCheck(func, symbols.front(),
                     product + " <= " + std::string(kIndexMax),
                     /*indexLimit=*/true);
  }
  if (statics != 1)
    addLaunchCheck(func, symbols.front(),
                   product + " * " + std::to_string(statics) +
                       " <= " + std::string(kIndexMax),
                   /*indexLimit=*/true);
}

void Elaborator::noteHostIndex(const Value &v) {
  if (!traced || !v.is(Value::Runtime) || !v.getRuntime().isIndex)
    return;
  StringRef expr = v.getRuntime().hostExpr;
  if (expr.empty())
    return;
  // Only expressions of the function's symbols: the header checks nothing
  // else (scalar parameters, std::max...).
  llvm::StringSet<> names;
  for (auto &entry : traced->symbols)
    names.insert(entry.first->name);
  SmallVector<StringRef> ids = identifiersOf(expr);
  if (ids.empty() ||
      !llvm::all_of(ids, [&](StringRef id) { return names.contains(id); }))
    return;
  std::string condition = expr.str() + " <= " + kIndexMax;
  // Symbols are positive: only subtracting a symbolic term can go below
  // INT32_MIN (`m - n`, not `(m + 64) - 1`).
  bool symbolicSubtrahend = false;
  for (size_t i = expr.find('-'); i != StringRef::npos;
       i = expr.find('-', i + 1)) {
    StringRef rest = expr.drop_front(i + 1).ltrim();
    if (!rest.empty() && !llvm::isDigit(rest.front()))
      symbolicSubtrahend = true;
  }
  if (symbolicSubtrahend)
    condition =
        "-" + std::string(kIndexMax) + " - 1 <= " + expr.str() + " && " +
        condition;
  addLaunchCheck(traced->func, ids.front(), condition, /*indexLimit=*/true);
}

void Elaborator::decideIndexWidths() {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(tile::TileDialect::getKernelFuncAttrName()))
      continue;
    std::vector<TensorDims> tensors;
    std::vector<std::string> names;
    for (auto [k, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref)
        continue;
      TensorDims dims;
      for (int64_t d : memref.getShape())
        dims.push_back(ShapedType::isDynamic(d) ? std::nullopt
                                                : std::optional<int64_t>(d));
      tensors.push_back(std::move(dims));
      auto name = func.getArgAttrOfType<StringAttr>(k, "tile.name");
      names.push_back(name ? name.str() : "arg" + std::to_string(k));
    }
    // A T.make_tensor tensor is indexed like an argument (PointerTensors.cpp).
    func.walk([&](tile::MakeTensorOp op) {
      TensorDims dims;
      for (int64_t d : op.getType().getShape())
        dims.push_back(d);
      tensors.push_back(std::move(dims));
      names.push_back("a T.make_tensor tensor");
    });
    IndexWidthDecision d = decideIndexWidth(tensors, names, options.indexBits);
    // A 64-bit symbol or loop bound (WideIndex.cpp; never under
    // -findex-bits=32, which reported them).
    if (auto why = func->getAttrOfType<StringAttr>("tile.wide_index");
        why && d.bits == 32) {
      d.bits = 64;
      d.reason = why.str();
      d.needsLaunchChecks = false;
    }
    func->setAttr("tile.index_bits", builder.getI64IntegerAttr(d.bits));
    auto checks = func->getAttrOfType<ArrayAttr>("tile.checks");
    if (d.bits != 64 || !checks)
      continue;
    SmallVector<Attribute> kept;
    for (Attribute a : checks)
      if (cast<ArrayAttr>(a).size() < 3)
        kept.push_back(a);
    if (kept.empty())
      func->removeAttr("tile.checks");
    else
      func->setAttr("tile.checks", builder.getArrayAttr(kept));
  }
}

} // namespace tilec::mlirgen

//===----------------------------------------------------------------------===//
// T.serial past the 32-bit loop index
//===----------------------------------------------------------------------===//
//
// `for i in T.serial(1 << 31)` (or bounds past int32) would wrap the 32-bit
// loop index (it ran 0 times; (1 << 32) + 5 ran 5 times). Counting in 64
// bits is local and cheap: an outer loop over chunks of 2^30 iterations and
// an inner loop over one chunk, both with 32-bit indices, and
// i = start + (chunk * 2^30 + k) * step computed in int64. The loop
// variable is then an int64 value (an index past int32 can only address a
// buffer that is rejected for its size anyway).

namespace tilec::mlirgen {

std::optional<int64_t> Elaborator::wideLoopTrips(const sema::LoopSpec &spec) {
  if (!spec.start.isIntLike() || !spec.stop.isIntLike() ||
      !spec.step.isIntLike() || spec.step.getInt() <= 0)
    return std::nullopt;
  int64_t start = spec.start.getInt(), stop = spec.stop.getInt();
  int64_t step = spec.step.getInt();
  if (stop <= start)
    return std::nullopt;
  __int128 trips = ((__int128)stop - start + step - 1) / step;
  __int128 after = start + trips * step;
  auto fits = [](__int128 v) { return v >= INT32_MIN && v <= INT32_MAX; };
  if (fits(start) && fits(stop) && fits(after))
    return std::nullopt;
  return trips > INT64_MAX ? INT64_MAX : int64_t(trips);
}

mlir::Value Elaborator::buildWideLoop(const sema::LoopSpec &spec,
                                      Location l) {
  constexpr int64_t chunk = int64_t(1) << 30;
  int64_t trips = *wideLoopTrips(spec);
  int64_t chunks = (trips + chunk - 1) / chunk; // <= INT32_MAX: kMaxWideTrips
  Type i64 = builder.getI64Type();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(builder, l, v).getResult();
  };
  auto wide = [&](int64_t v) {
    return arith::ConstantIntOp::create(builder, l, i64, v).getResult();
  };
  auto outer = tile::ForOp::create(builder, l, tile::LoopKind::serial,
                                   index(0), index(chunks), index(1));
  builder.setInsertionPoint(outer.getBody()->getTerminator());
  // This chunk's first iteration and length: min(2^30, trips - first).
  mlir::Value hi =
      arith::IndexCastOp::create(builder, l, i64, outer.getInductionVar());
  mlir::Value first = arith::MulIOp::create(builder, l, hi, wide(chunk));
  mlir::Value left = arith::SubIOp::create(builder, l, wide(trips), first);
  mlir::Value length = arith::MinSIOp::create(builder, l, left, wide(chunk));
  mlir::Value ub = arith::IndexCastOp::create(builder, l,
                                              builder.getIndexType(), length);
  auto inner = tile::ForOp::create(builder, l, tile::LoopKind::serial,
                                   index(0), ub, index(1));
  builder.setInsertionPoint(inner.getBody()->getTerminator());
  mlir::Value lo =
      arith::IndexCastOp::create(builder, l, i64, inner.getInductionVar());
  mlir::Value k = arith::AddIOp::create(builder, l, first, lo);
  mlir::Value scaled =
      arith::MulIOp::create(builder, l, k, wide(spec.step.getInt()));
  return arith::AddIOp::create(builder, l, wide(spec.start.getInt()), scaled);
}

} // namespace tilec::mlirgen
