//===- Reshape.cpp - T.reshape: a buffer seen with another shape ----------===//
//
// TileLang's `T.reshape(buf, shape)` returns a buffer over the same storage
// with a new shape of the same element count (row-major both ways). tilec
// gives the view the viewed buffer's memref and remaps each element access
// through the row-major offset: `view[i, j, k]` is `buf` at the indices of
// offset `(i * d1 + j) * d2 + k` in `buf`'s shape. Every pass downstream
// then sees plain accesses of the one buffer (its pipelining, barriers and
// layouts), so nothing there needs to know of views.
//
// Tile operations (T.copy, T.gemm, T.fill, reductions) on such a view are
// refused: they address regions of one shape.
//
// A fragment's view is a `tile.reshape` op instead: each thread holds only
// the elements layout inference gives it, so the view must carry into
// inference, which lays it out as the fragment with the coordinates
// remapped (the same elements in the same registers). Tile operations
// then work on the view like on any fragment of its shape (T.reduce_sum
// over the last dimension of a gemm accumulator seen as (N, Q, H)), and
// accesses are not remapped here.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"

using namespace mlir;
using llvm::SMRange;
using llvm::Twine;

namespace tilec::mlirgen {

FailureOr<Value> Elaborator::callReshape(CallArgs &args) {
  auto b = bindArgs(args, {"src", "shape"}, 2);
  if (failed(b))
    return failure();
  const Arg &src = *(*b)[0];
  const Arg &shapeArg = *(*b)[1];
  if (!src.value.is(Value::Buffer) ||
      src.value.getBuffer().scope == MemScope::Var) {
    error(src.range,
          "`T.reshape` takes a buffer, got `" + src.value.repr() + "`");
    return failure();
  }
  const BufferObject &base = src.value.getBuffer();
  if (!base.indexMap.isNone()) {
    error(args.range, "`T.reshape` of `" + base.name +
                          "`, which has a `T.Layout` index map, is not "
                          "supported");
    return failure();
  }
  // The storage: the viewed buffer's own shape, or, for a view of a view,
  // the storage under both.
  std::vector<int64_t> storage = base.storageShape;
  if (storage.empty()) {
    for (size_t d = 0; d < base.shape.size(); ++d) {
      std::optional<int64_t> e = base.staticDim(d);
      if (!e) {
        error(src.range, "`T.reshape` of `" + base.name + "`: dimension " +
                             Twine(d) +
                             " is a run-time size; tilec reshapes buffers "
                             "of compile-time shapes");
        return failure();
      }
      storage.push_back(*e);
    }
  }
  // An int, or a tuple / list of ints (bools count, as in Python).
  std::optional<std::vector<Value>> shape;
  if (shapeArg.value.isIntLike())
    shape = std::vector<Value>{Value::integer(shapeArg.value.getInt())};
  else if (shapeArg.value.isSequence()) {
    shape.emplace();
    for (const Value &d : shapeArg.value.getElements())
      shape->push_back(d.isIntLike() ? Value::integer(d.getInt()) : d);
  }
  if (!shape || shape->empty() || llvm::any_of(*shape, [](const Value &d) {
        return !d.is(Value::Int) || d.getInt() <= 0;
      })) {
    error(shapeArg.range, "the shape of `T.reshape` must be a tuple of "
                          "positive compile-time integers, got `" +
                              shapeArg.value.repr() + "`" +
                              constHint(shapeArg.value));
    return failure();
  }
  int64_t from = 1, to = 1;
  for (int64_t e : storage)
    from *= e;
  for (const Value &d : *shape)
    to *= d.getInt();
  if (from != to) {
    error(shapeArg.range, "`T.reshape` keeps the element count: `" + base.name +
                              "` has " + Twine(from) +
                              " elements, the shape `" + shapeArg.value.repr() +
                              "` has " + Twine(to));
    note(base.loc, "`" + base.name + "` declared here");
    return failure();
  }
  auto view = std::make_shared<BufferObject>(base);
  view->name = pendingName.empty() ? base.name : pendingName;
  view->shape = *shape;
  view->loc = args.range.Start;
  if (base.scope == MemScope::Fragment)
    return reshapeFragment(view, base.name, storage, shapeArg);
  view->storageShape = std::move(storage);
  return Value::buffer(view);
}

FailureOr<Value>
Elaborator::reshapeFragment(std::shared_ptr<BufferObject> view,
                            StringRef baseName, ArrayRef<int64_t> storage,
                            const Arg &shapeArg) {
  // The layout's remap is linear over the bits of the coordinates only
  // where every extent is a power of two (the (N, Q * H) -> (N, Q, H)
  // split of a bit field); with another extent the view's elements would
  // not sit in the registers a layout can name.
  SmallVector<int64_t> to;
  for (const Value &d : view->shape)
    to.push_back(d.getInt());
  for (int64_t e : llvm::concat<const int64_t>(storage, to))
    if (!llvm::isPowerOf2_64(uint64_t(e))) {
      error(shapeArg.range,
            "`T.reshape` of the fragment `" + baseName +
                "`: tilec views fragments whose extents, and the new "
                "shape's, are powers of two (the view's layout is the "
                "fragment's with the coordinate bits regrouped), got " +
                Twine(e));
      return failure();
    }
  // A view of a view is one of the allocation.
  mlir::Value source = view->memref;
  if (auto inner = source.getDefiningOp<tile::ReshapeOp>())
    source = inner.getSource();
  auto type = tile::getBufferType(
      to, cast<MemRefType>(source.getType()).getElementType(),
      tile::MemorySpace::fragment);
  auto op = tile::ReshapeOp::create(builder, loc(view->loc), type, source,
                                    builder.getStringAttr(view->name),
                                    tile::FragmentAttr());
  view->memref = op.getResult();
  return Value::buffer(view);
}

LogicalResult Elaborator::remapReshape(const BufferObject &view,
                                       SmallVectorImpl<mlir::Value> &idx,
                                       SMRange range) {
  // Row-major offset in the view's shape...
  Value linear = wrapRuntime(idx[0], DType::Int32, true);
  for (size_t d = 1; d < idx.size(); ++d) {
    FailureOr<Value> scaled = runtimeBinary(
        BinaryOpLike::Mul, linear, Value::integer(*view.staticDim(d)), range);
    if (failed(scaled))
      return failure();
    FailureOr<Value> sum =
        runtimeBinary(BinaryOpLike::Add, *scaled,
                      wrapRuntime(idx[d], DType::Int32, true), range);
    if (failed(sum))
      return failure();
    linear = *sum;
  }
  // ...and its indices in the storage's.
  SmallVector<mlir::Value> out(view.storageShape.size());
  int64_t inner = 1;
  for (size_t d = view.storageShape.size(); d-- > 0;) {
    int64_t extent = view.storageShape[d];
    FailureOr<Value> q = runtimeBinary(BinaryOpLike::FloorDiv, linear,
                                       Value::integer(inner), range);
    if (failed(q))
      return failure();
    FailureOr<Value> r = d == 0 ? q
                                : runtimeBinary(BinaryOpLike::Mod, *q,
                                                Value::integer(extent), range);
    if (failed(r))
      return failure();
    FailureOr<mlir::Value> v = toIndex(*r, range);
    if (failed(v))
      return failure();
    out[d] = *v;
    inner *= extent;
  }
  idx.assign(out.begin(), out.end());
  return success();
}

LogicalResult Elaborator::refuseReshapeView(const BufferObject &buf,
                                            SMRange range, const Twine &what) {
  // A T.ptr table holds addresses, not data a tile operation could move
  // or compute on (PointerTensors.cpp).
  if (buf.dtype.isPointer()) {
    error(range, what + ": `" + buf.name +
                     "` is a table of device addresses (`T.ptr`); index one "
                     "element and pass it to `T.make_tensor`");
    return failure();
  }
  if (buf.storageShape.empty())
    return success();
  error(range, what + ": `" + buf.name +
                   "` is a `T.reshape` view; tilec supports element "
                   "accesses of views only (index it in a loop, or use "
                   "the viewed buffer)");
  return failure();
}

LogicalResult Elaborator::refuseFragmentView(const BufferObject &buf,
                                             SMRange range, const Twine &what) {
  auto view = buf.memref ? buf.memref.getDefiningOp<tile::ReshapeOp>()
                         : tile::ReshapeOp();
  if (!view)
    return success();
  // A gemm pins its accumulator's layout and reads its operands whole, a
  // layout annotation decides one: both belong on the allocation, whose
  // layout the view follows.
  error(range, what + ": `" + buf.name +
                   "` is a `T.reshape` view of a fragment; use the viewed "
                   "fragment");
  note(buf.loc, "the view is made here");
  return failure();
}

} // namespace tilec::mlirgen
