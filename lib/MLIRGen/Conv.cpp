//===- Conv.cpp - tensor views and T.im2col -------------------------------===//
//
// TileLang's convolution examples run a conv2d as a GEMM: the filter and
// the output are read through views of another shape
// (`T.Tensor((KH * KW * C, F), dtype, kernel.data)`), and each pipelined
// step gathers a (pixels x reduction) tile of the NHWC input with
// `T.im2col`.
//
// A view is a memref.reinterpret_cast of the tensor argument to the new
// row-major shape, tagged `tile.view`: element accesses and tile copies
// take it like any global tensor (tile-guard-global-accesses guards it by
// its own extents), and TMA, which describes a kernel argument's own shape,
// leaves it alone.
//
// T.im2col is elaborated as the T.Parallel loop it means over the shared
// tile, each element a guarded load (zero outside the image: the padding,
// rows past N * OH * OW, columns past KH * KW * C). TileLang's Hopper
// lowering is a TMA im2col load of the same elements; this form is target
// independent and any kernel size, stride or channel count works.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"
#include "ValueArith.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using llvm::SMRange;
using llvm::Twine;

namespace tilec::mlirgen {

FailureOr<Value> Elaborator::tensorView(const std::vector<Value> &shape,
                                        DType dtype, const Arg &data,
                                        const CallArgs &args) {
  if (failed(requireKernel(args)))
    return failure();
  if (!data.value.is(Value::Buffer) || !data.value.getBuffer().isData) {
    error(data.range, "the data of a `T.Tensor` view must be a tensor "
                      "parameter's `.data`, got `" +
                          data.value.repr() + "`");
    return failure();
  }
  const BufferObject &base = data.value.getBuffer();
  if (base.dtype != dtype) {
    error(args.range, "a `T.Tensor` view of `" + base.name + "` (" +
                          base.dtype.name() +
                          ") must keep its dtype, "
                          "got " +
                          dtype.name());
    return failure();
  }
  // A static view may not reach past a static tensor.
  auto count = [](const std::vector<Value> &s) -> std::optional<int64_t> {
    int64_t n = 1;
    for (const Value &d : s) {
      if (!d.is(Value::Int))
        return std::nullopt;
      n *= d.getInt();
    }
    return n;
  };
  std::optional<int64_t> want = count(shape), have = count(base.shape);
  if (want && have && *want > *have) {
    error(args.range, "a `T.Tensor` view of " + Twine(*want) +
                          " elements is larger than `" + base.name +
                          "`, which has " + Twine(*have));
    return failure();
  }
  Location l = loc(args.range.Start);
  SmallVector<OpFoldResult> sizes, strides(shape.size());
  SmallVector<int64_t> staticShape;
  for (const Value &d : shape) {
    if (d.is(Value::Int)) {
      sizes.push_back(builder.getIndexAttr(d.getInt()));
      staticShape.push_back(d.getInt());
      continue;
    }
    FailureOr<mlir::Value> v = toIndex(d, args.range);
    if (failed(v))
      return failure();
    sizes.push_back(*v);
    staticShape.push_back(ShapedType::kDynamic);
  }
  // Row-major strides, constant while the sizes to their right are.
  OpFoldResult running = builder.getIndexAttr(1);
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    strides[d] = running;
    if (d == 0)
      break;
    std::optional<int64_t> a = getConstantIntValue(running);
    std::optional<int64_t> c = getConstantIntValue(sizes[d]);
    if (a && c) {
      running = builder.getIndexAttr(*a * *c);
      continue;
    }
    auto asValue = [&](OpFoldResult f) -> mlir::Value {
      if (auto v = dyn_cast<mlir::Value>(f))
        return v;
      return constIndex(*getConstantIntValue(f));
    };
    running =
        arith::MulIOp::create(builder, l, asValue(running), asValue(sizes[d]))
            .getResult();
  }
  auto type = MemRefType::get(staticShape, irType(dtype));
  auto view = memref::ReinterpretCastOp::create(
      builder, l, type, base.memref, builder.getIndexAttr(0), sizes, strides);
  view->setAttr("tile.view", builder.getUnitAttr());
  auto buf = std::make_shared<BufferObject>();
  buf->name = "T.Tensor view of " + base.name;
  buf->scope = MemScope::Global;
  buf->dtype = dtype;
  buf->shape = shape;
  buf->memref = view;
  buf->loc = args.range.Start;
  return Value::buffer(buf);
}

FailureOr<Value> Elaborator::im2col(CallArgs &args) {
  if (failed(requireKernel(args)))
    return failure();
  auto b = bindArgs(args,
                    {"img", "col", "nhw_step", "c_step", "kernel", "stride",
                     "dilation", "pad", "eviction_policy"},
                    5);
  if (failed(b))
    return failure();
  FailureOr<std::shared_ptr<BufferObject>> img =
      toBuffer(*(*b)[0], "the image of `T.im2col`");
  FailureOr<std::shared_ptr<BufferObject>> col =
      toBuffer(*(*b)[1], "the destination of `T.im2col`");
  if (failed(img) || failed(col))
    return failure();
  const BufferObject &src = **img, &dst = **col;
  if (src.scope != MemScope::Global || src.shape.size() != 4) {
    error((*b)[0]->range, "the image of `T.im2col` must be a 4-D (N, H, W, "
                          "C) global tensor, got `" +
                              src.name + "`");
    return failure();
  }
  if (dst.scope != MemScope::Shared || dst.shape.size() != 2 ||
      !dst.staticDim(0) || !dst.staticDim(1)) {
    error((*b)[1]->range, "the destination of `T.im2col` must be a 2-D "
                          "shared buffer (pixels x reduction), got `" +
                              dst.name + "`");
    return failure();
  }
  if (src.dtype != dst.dtype) {
    error(args.range, "`T.im2col` copies " + src.dtype.name() + " `" +
                          src.name + "` into " + dst.dtype.name() + " `" +
                          dst.name + "`: the dtypes must match");
    return failure();
  }
  SMRange r = args.range;
  std::vector<Value> ints;
  const char *names[] = {"nhw_step", "c_step",   "kernel",
                         "stride",   "dilation", "pad"};
  for (int k = 2; k < 8; ++k) {
    Value v = (*b)[k] ? (*b)[k]->value
                      : Value::integer(k == 7 ? 0 : 1); // stride, dilation 1
    if (v.is(Value::Buffer) && v.getBuffer().scope == MemScope::Var) {
      FailureOr<Value> s = toScalar(v, r);
      if (failed(s))
        return failure();
      v = *s;
    }
    if (v.is(Value::Symbol)) {
      FailureOr<Value> m = materialize(v, r);
      if (failed(m))
        return failure();
      v = *m;
    }
    if (!(v.isIntLike() || v.is(Value::Runtime))) {
      error((*b)[k] ? (*b)[k]->range : r,
            "`" + Twine(names[k - 2]) +
                "` of `T.im2col` must be an integer, "
                "got `" +
                v.repr() + "`");
      return failure();
    }
    if (k >= 4 && k <= 6 && v.isIntLike() && v.getInt() <= 0) {
      error((*b)[k]->range,
            "`" + Twine(names[k - 2]) + "` of `T.im2col` must be positive");
      return failure();
    }
    if (k == 7 && v.isIntLike() && v.getInt() < 0) {
      error((*b)[k]->range, "`pad` of `T.im2col` must not be negative");
      return failure();
    }
    ints.push_back(v);
  }
  const Value &nhwStep = ints[0], &cStep = ints[1], &kernel = ints[2],
              &stride = ints[3], &dilation = ints[4], &pad = ints[5];

  ValueArith va(*this, r);
  using K = ast::BinOpKind;
  auto dim = [&](unsigned d) -> Value {
    const Value &s = src.shape[d];
    if (s.is(Value::Symbol)) {
      FailureOr<Value> m = materialize(s, r);
      if (failed(m)) {
        va.fail();
        return Value::integer(1);
      }
      return *m;
    }
    return s;
  };
  Value n = dim(0), h = dim(1), w = dim(2), c = dim(3);
  // The output extents, as TileLang's conv shapes compute them.
  auto outDim = [&](const Value &in) {
    Value span =
        va.bin(K::Mul, dilation, va.bin(K::Sub, kernel, Value::integer(1)));
    Value e = va.bin(
        K::Sub,
        va.bin(K::Sub,
               va.bin(K::Add, in, va.bin(K::Mul, pad, Value::integer(2))),
               span),
        Value::integer(1));
    return va.bin(K::Add, va.bin(K::FloorDiv, e, stride), Value::integer(1));
  };
  Value oh = outDim(h), ow = outDim(w);
  int64_t rows = *dst.staticDim(0), cols = *dst.staticDim(1);
  if (va.failed())
    return failure();

  Location l = loc(r.Start);
  OpBuilder::InsertionGuard guard(builder);
  auto par = tile::ParallelOp::create(builder, l, {rows, cols});
  builder.setInsertionPoint(par.getBody()->getTerminator());
  unsigned depth = regionDepth++;
  Value p = wrapRuntime(par.getBody()->getArgument(0), DType::Int32, true);
  Value q = wrapRuntime(par.getBody()->getArgument(1), DType::Int32, true);
  // Row: the output pixel (n, oh, ow); column: the filter tap (kh, kw) and
  // channel, in the (KH, KW, C) order of the flattened filter.
  Value m = va.bin(K::Add, va.bin(K::Mul, nhwStep, Value::integer(rows)), p);
  Value k = va.bin(K::Add, va.bin(K::Mul, cStep, Value::integer(cols)), q);
  Value pix = va.bin(K::Mul, oh, ow);
  Value ni = va.bin(K::FloorDiv, m, pix);
  Value oy = va.bin(K::Mod, va.bin(K::FloorDiv, m, ow), oh);
  Value ox = va.bin(K::Mod, m, ow);
  Value ch = va.bin(K::Mod, k, c);
  Value kx = va.bin(K::Mod, va.bin(K::FloorDiv, k, c), kernel);
  Value ky = va.bin(K::FloorDiv, k, va.bin(K::Mul, c, kernel));
  Value y = va.bin(K::Add, va.bin(K::Sub, va.bin(K::Mul, oy, stride), pad),
                   va.bin(K::Mul, ky, dilation));
  Value x = va.bin(K::Add, va.bin(K::Sub, va.bin(K::Mul, ox, stride), pad),
                   va.bin(K::Mul, kx, dilation));
  Value zero = Value::integer(0);
  std::vector<Value> conds = {
      va.op(BinaryOpLike::Lt, ni, n),   va.op(BinaryOpLike::Lt, ky, kernel),
      va.op(BinaryOpLike::Ge, y, zero), va.op(BinaryOpLike::Lt, y, h),
      va.op(BinaryOpLike::Ge, x, zero), va.op(BinaryOpLike::Lt, x, w)};
  Value cond = conds[0];
  for (size_t i = 1; i < conds.size(); ++i)
    cond = va.op(BinaryOpLike::And, cond, conds[i]);
  if (va.failed()) {
    regionDepth = depth;
    return failure();
  }
  FailureOr<Value> v = lazySelect(
      cond, r,
      [&]() -> FailureOr<Value> {
        auto s = std::make_shared<sema::SubscriptObject>();
        s->base = Value::buffer(*img);
        s->indices = {ni, y, x, ch};
        s->indexRanges.assign(4, r);
        s->loc = r.Start;
        return toScalar(Value::subscript(s), r);
      },
      [&]() -> FailureOr<Value> { return castTo(zero, dst.dtype, r); });
  regionDepth = depth;
  if (failed(v))
    return failure();
  FailureOr<mlir::Value> ir = toIR(*v, irType(dst.dtype), r);
  if (failed(ir))
    return failure();
  memref::StoreOp::create(
      builder, l, *ir, dst.memref,
      ValueRange{par.getBody()->getArgument(0), par.getBody()->getArgument(1)});
  return Value::none();
}

} // namespace tilec::mlirgen
