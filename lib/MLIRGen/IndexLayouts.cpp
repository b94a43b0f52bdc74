//===- IndexLayouts.cpp - T.Layout(shape, lambda) on global tensors -------===//
//
// `T.Layout(shape, lambda i, j, ...: [e0, e1, ...])` maps a logical index
// to a physical one; annotated on a global tensor it says where element
// (i, j, ...) lives: at the row-major offset of (e0, e1, ...) in the
// physical shape, whose extents TileLang bounds from the expressions
// (`4 * (l % 8) + (d % 8) // 2` spans 32). TileLang's bwd attention kernels
// write dQ in such an order (matching the mma fragment, so atomics are
// contiguous) and a postprocess kernel reads it back in the same order.
//
// tilec honors the map on global tensors: every element access (load,
// store, atomic) and every global-to-global T.copy goes through it. The
// lambda runs at compile time on the access's index values; the physical
// offset is delinearized over the tensor's own (static) shape, so the
// memref keeps its type. Maps on shared buffers and fragments, and tile
// copies between a mapped tensor and on-chip memory, are located errors.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using llvm::SMRange;
using llvm::Twine;

namespace tilec::mlirgen {

namespace {
struct Interval {
  int64_t lo, hi;
};
} // namespace

/// Bounds of a lambda body expression over its parameters' ranges, as
/// TileLang's analyzer bounds a layout's outputs. Names other than the
/// parameters must be compile-time integers of the closure.
static std::optional<Interval>
bound(Elaborator &e, const ast::Expr &x,
      const llvm::StringMap<Interval> &params, Frame &closure,
      std::string &why) {
  if (auto *i = llvm::dyn_cast<ast::IntExpr>(&x)) {
    std::optional<int64_t> v = i->getInt64();
    if (!v)
      return std::nullopt;
    return Interval{*v, *v};
  }
  if (auto *n = llvm::dyn_cast<ast::NameExpr>(&x)) {
    auto it = params.find(n->getName());
    if (it != params.end())
      return it->second;
  }
  if (auto *b = llvm::dyn_cast<ast::BinOpExpr>(&x)) {
    std::optional<Interval> l = bound(e, *b->getLHS(), params, closure, why);
    std::optional<Interval> r = bound(e, *b->getRHS(), params, closure, why);
    if (!l || !r)
      return std::nullopt;
    switch (b->getOp()) {
    case ast::BinOpKind::Add:
      return Interval{l->lo + r->lo, l->hi + r->hi};
    case ast::BinOpKind::Sub:
      return Interval{l->lo - r->hi, l->hi - r->lo};
    case ast::BinOpKind::Mul: {
      int64_t c[] = {l->lo * r->lo, l->lo * r->hi, l->hi * r->lo,
                     l->hi * r->hi};
      return Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case ast::BinOpKind::FloorDiv:
      if (r->lo == r->hi && r->lo > 0 && l->lo >= 0)
        return Interval{l->lo / r->lo, l->hi / r->lo};
      break;
    case ast::BinOpKind::Mod:
      if (r->lo == r->hi && r->lo > 0 && l->lo >= 0) {
        if (l->hi / r->lo == l->lo / r->lo)
          return Interval{l->lo % r->lo, l->hi % r->lo};
        return Interval{0, r->lo - 1};
      }
      break;
    default:
      break;
    }
    why = "only + - * and // or % by a positive constant can be bounded";
    return std::nullopt;
  }
  // A closure constant (`lambda i: i // blk`).
  if (llvm::isa<ast::NameExpr, ast::AttributeExpr>(&x)) {
    FailureOr<Value> v = e.eval(x, closure);
    if (failed(v))
      return std::nullopt; // the error is out
    if (v->isIntLike())
      return Interval{v->getInt(), v->getInt()};
  }
  why = "it is not integer arithmetic on the lambda's parameters";
  return std::nullopt;
}

LogicalResult Elaborator::annotateIndexMap(BufferObject &buf,
                                           const sema::LayoutObject &lay,
                                           SMRange range) {
  if (buf.scope != MemScope::Global) {
    error(range, "a `T.Layout` index map on " + spelling(buf.scope) +
                     " buffer `" + buf.name +
                     "` is not honored: tilec chooses the layouts of on-chip "
                     "buffers itself (T.annotate_layout accepts "
                     "make_swizzled_layout for shared memory); index maps "
                     "are honored on global tensors");
    return failure();
  }
  const Value &fnValue = lay.args[1];
  const ast::LambdaExpr *lambda =
      fnValue.is(Value::Function) ? fnValue.getFunction().lambda : nullptr;
  if (!lambda) {
    error(range, "the layout function of `T.Layout` must be a lambda");
    return failure();
  }
  SmallVector<int64_t> logical;
  for (size_t d = 0; d < buf.shape.size(); ++d) {
    std::optional<int64_t> n = buf.staticDim(d);
    if (!n) {
      error(range, "a `T.Layout` index map on `" + buf.name +
                       "` needs its shape at compile time; dimension " +
                       Twine(d) + " is `" + buf.shape[d].repr() + "`");
      return failure();
    }
    logical.push_back(*n);
  }
  if (lambda->getParams().size() != logical.size()) {
    error(range, "the layout function of `T.Layout` takes " +
                     Twine(lambda->getParams().size()) +
                     " indices but `" + buf.name + "` has " +
                     Twine(logical.size()) + " dimensions");
    return failure();
  }
  llvm::StringMap<Interval> params;
  for (size_t d = 0; d < logical.size(); ++d)
    params[lambda->getParams()[d].name] = {0, logical[d] - 1};
  const ast::Expr *body = lambda->getBody();
  llvm::ArrayRef<ast::ExprPtr> outs;
  if (auto *l = llvm::dyn_cast<ast::ListExpr>(body))
    outs = l->getElts();
  else if (auto *t = llvm::dyn_cast<ast::TupleExpr>(body))
    outs = t->getElts();
  if (outs.empty()) {
    error(range, "the layout function of `T.Layout` must return a list of "
                 "index expressions");
    return failure();
  }
  Frame closure{fnValue.getFunction().closure, Value(), "lambda"};
  SmallVector<int64_t> physical;
  for (const ast::ExprPtr &o : outs) {
    std::string why;
    std::optional<Interval> iv = bound(*this, *o, params, closure, why);
    if (hadError)
      return failure();
    if (!iv || iv->lo < 0) {
      error(o->getRange(), "cannot bound this output of the `T.Layout` "
                           "index map of `" + buf.name + "`" +
                               (why.empty() ? Twine(": it may be negative")
                                            : Twine(": ") + why));
      return failure();
    }
    physical.push_back(iv->hi + 1);
  }
  int64_t nLogical = 1, nPhysical = 1;
  for (int64_t x : logical)
    nLogical *= x;
  for (int64_t x : physical)
    nPhysical *= x;
  if (nLogical != nPhysical) {
    error(range, "the `T.Layout` index map of `" + buf.name + "` maps " +
                     Twine(nLogical) + " elements into a physical shape of " +
                     Twine(nPhysical) + "; tilec honors index maps that "
                     "permute a tensor's elements");
    return failure();
  }
  buf.indexMap = fnValue;
  buf.physicalShape.assign(physical.begin(), physical.end());
  return success();
}

LogicalResult Elaborator::remapIndices(const BufferObject &buf,
                                       SmallVectorImpl<mlir::Value> &idx,
                                       SMRange range) {
  if (!buf.storageShape.empty())
    return remapReshape(buf, idx, range);
  if (buf.indexMap.isNone())
    return success();
  CallArgs args;
  args.range = range;
  args.callee = "the T.Layout index map";
  for (mlir::Value i : idx)
    args.positional.push_back({wrapRuntime(i, DType::Int32, true), range});
  FailureOr<Value> out =
      callFunction(const_cast<sema::FunctionObject &>(buf.indexMap.getFunction()),
                   args);
  if (failed(out))
    return failure();
  if (!out->isSequence() ||
      out->getElements().size() != buf.physicalShape.size()) {
    error(range, "the `T.Layout` index map of `" + buf.name +
                     "` returned `" + out->repr() + "`");
    return failure();
  }
  // Row-major offset in the physical shape, then indices of that offset in
  // the tensor's own shape (the same memory, another view of it).
  Value linear = Value::integer(0);
  int64_t stride = 1;
  const std::vector<Value> &elts = out->getElements();
  for (size_t k = elts.size(); k-- > 0;) {
    FailureOr<Value> term = runtimeBinary(BinaryOpLike::Mul, elts[k],
                                          Value::integer(stride), range);
    if (failed(term))
      return failure();
    FailureOr<Value> sum =
        runtimeBinary(BinaryOpLike::Add, linear, *term, range);
    if (failed(sum))
      return failure();
    linear = *sum;
    stride *= buf.physicalShape[k];
  }
  SmallVector<mlir::Value> logical(idx.size());
  int64_t inner = 1;
  for (size_t d = idx.size(); d-- > 0;) {
    int64_t extent = *buf.staticDim(d);
    FailureOr<Value> q = runtimeBinary(BinaryOpLike::FloorDiv, linear,
                                       Value::integer(inner), range);
    if (failed(q))
      return failure();
    FailureOr<Value> r =
        runtimeBinary(BinaryOpLike::Mod, *q, Value::integer(extent), range);
    if (failed(r))
      return failure();
    FailureOr<mlir::Value> v = toIndex(*r, range);
    if (failed(v))
      return failure();
    logical[d] = *v;
    inner *= extent;
  }
  idx.assign(logical.begin(), logical.end());
  return success();
}

} // namespace tilec::mlirgen
