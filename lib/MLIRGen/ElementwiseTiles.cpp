//===- ElementwiseTiles.cpp - Tile operations as element loops ------------===//
//
// Two tile operations that TileLang lowers to SIMT loops over the elements
// of a box, which tilec writes as exactly the T.Parallel loop the user
// could have written, so that the SIMT lowering distributes it like any
// element-wise loop:
//
// * T.copy between two global tensors: every thread of the block moves
//   elements straight from one tensor to the other, converting the dtype,
//
//     for i, j in T.Parallel(64, 128):
//         if in_bounds(dst):
//             dst[o0 + i, o1 + j] = src[...] if in_bounds(src) else 0
//
//   (source elements outside the tensor read as zero, as a copy into
//   shared memory or a fragment does);
// * T.atomic_add(dst_tile, src_tile): one atomic add per element,
//
//     for i, j in T.Parallel(64, 128):
//         if in_bounds(dst):
//             T.atomic_add(dst[o0 + i, o1 + j], src[...])
//
//   (TileLang vectorizes them where the hardware has vector atomics; tilec
//   issues scalar ones);
// * T.fill / T.clear of a region of a shared buffer (`T.fill(s_count[0],
//   0)`): TileLang fills the box with a parallel loop over it,
//
//     for i in T.Parallel(1):
//         s_count[o0 + i] = value
//
//   and of a region of a fragment (`T.fill(acc[4:12, :], 0)`), with the
//   loop over the whole fragment, guarded to the region, so that it follows
//   the fragment's layout (TileLang partitions the fill by that layout):
//
//     for i, j in T.Parallel(16, 64):
//         if 4 <= i < 12:
//             acc[i, j] = value
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using llvm::SMRange;

namespace tilec::mlirgen {

namespace {

/// The element indices of one side of the copy and whether they are inside
/// its tensor, for the loop's induction variables `ivs` (one per copied
/// dimension of extent > 1, in order).
struct SideAccess {
  SmallVector<mlir::Value> indices;
  mlir::Value inBounds; // null: always inside
};

} // namespace

static FailureOr<SideAccess> accessOf(Elaborator &e, const Region &r,
                                      ArrayRef<mlir::Value> ivs, SMRange range,
                                      Location l) {
  OpBuilder &b = e.builder;
  SideAccess out;
  size_t k = 0;
  auto memrefType = cast<MemRefType>(r.buffer->memref.getType());
  for (size_t d = 0; d < r.extents.size(); ++d) {
    int64_t extent = r.extents[d];
    mlir::Value ix;
    // A box at offset 0 is indexed by the loop variable itself, as the
    // T.Parallel loop over a whole fragment is (layout inference matches
    // the fragment's layout to such a loop).
    if (extent != 1 && r.offsets[d].isIntLike() && r.offsets[d].getInt() == 0) {
      ix = ivs[k++];
    } else {
      FailureOr<mlir::Value> off = e.toIndex(r.offsets[d], range);
      if (failed(off))
        return failure();
      ix = *off;
      if (extent != 1)
        ix = arith::AddIOp::create(b, l, ix, ivs[k++]);
    }
    out.indices.push_back(ix);
    // A box whose end is known to be inside the tensor needs no check.
    std::optional<int64_t> dim = r.buffer->staticDim(d);
    if (dim && r.offsets[d].isIntLike() &&
        r.offsets[d].getInt() + extent <= *dim && r.offsets[d].getInt() >= 0)
      continue;
    mlir::Value size =
        memrefType.isDynamicDim(d)
            ? (mlir::Value)memref::DimOp::create(b, l, r.buffer->memref, d)
            : (mlir::Value)arith::ConstantIndexOp::create(b, l, *dim);
    mlir::Value ok = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                           ix, size);
    out.inBounds =
        out.inBounds ? arith::AndIOp::create(b, l, out.inBounds, ok) : ok;
  }
  // A tensor with a T.Layout index map stores the element elsewhere.
  if (failed(e.remapIndices(*r.buffer, out.indices, range)))
    return failure();
  return out;
}

LogicalResult Elaborator::emitGlobalCopy(const Region &src, const Region &dst,
                                         SMRange range) {
  Location l = loc(range.Start);
  SmallVector<int64_t> extents;
  for (int64_t x : src.extents)
    if (x != 1)
      extents.push_back(x);
  if (extents.empty())
    extents.push_back(1); // one element: a loop of one point
  OpBuilder::InsertionGuard guard(builder);
  auto par = tile::ParallelOp::create(builder, l, extents);
  builder.setInsertionPoint(par.getBody()->getTerminator());
  SmallVector<mlir::Value> ivs(par.getBody()->getArguments().begin(),
                               par.getBody()->getArguments().end());
  // A single-point loop has an induction variable that is always 0 but no
  // copied dimension to add it to.
  bool onePoint = llvm::all_of(src.extents, [](int64_t x) { return x == 1; });
  ArrayRef<mlir::Value> used = onePoint ? ArrayRef<mlir::Value>() : ivs;
  FailureOr<SideAccess> s = accessOf(*this, src, used, range, l);
  FailureOr<SideAccess> d = accessOf(*this, dst, used, range, l);
  if (failed(s) || failed(d))
    return failure();

  if (d->inBounds) {
    auto ifOp = scf::IfOp::create(builder, l, d->inBounds, /*else=*/false);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  Type srcType = irType(src.buffer->dtype);
  mlir::Value v;
  if (s->inBounds) {
    auto load = scf::IfOp::create(builder, l, srcType, s->inBounds,
                                  /*else=*/true);
    OpBuilder::InsertionGuard g2(builder);
    builder.setInsertionPointToStart(load.thenBlock());
    mlir::Value in =
        memref::LoadOp::create(builder, l, src.buffer->memref, s->indices);
    scf::YieldOp::create(builder, l, in);
    builder.setInsertionPointToStart(load.elseBlock());
    mlir::Value zero = arith::ConstantOp::create(
        builder, l, srcType, builder.getZeroAttr(srcType));
    scf::YieldOp::create(builder, l, zero);
    v = load.getResult(0);
  } else {
    v = memref::LoadOp::create(builder, l, src.buffer->memref, s->indices);
  }
  FailureOr<Value> converted =
      castTo(wrapRuntime(v, src.buffer->dtype, false), dst.buffer->dtype, range);
  if (failed(converted))
    return failure();
  FailureOr<mlir::Value> out =
      toIR(*converted, irType(dst.buffer->dtype), range);
  if (failed(out))
    return failure();
  memref::StoreOp::create(builder, l, *out, dst.buffer->memref, d->indices);
  return success();
}

LogicalResult Elaborator::emitTileAtomicAdd(const Region &src,
                                            const Region &dst, SMRange range) {
  Location l = loc(range.Start);
  SmallVector<int64_t> extents;
  for (int64_t x : dst.extents)
    if (x != 1)
      extents.push_back(x);
  bool onePoint = extents.empty();
  if (onePoint)
    extents.push_back(1);
  OpBuilder::InsertionGuard guard(builder);
  auto par = tile::ParallelOp::create(builder, l, extents);
  builder.setInsertionPoint(par.getBody()->getTerminator());
  SmallVector<mlir::Value> ivs(par.getBody()->getArguments().begin(),
                               par.getBody()->getArguments().end());
  ArrayRef<mlir::Value> used = onePoint ? ArrayRef<mlir::Value>() : ivs;
  FailureOr<SideAccess> s = accessOf(*this, src, used, range, l);
  FailureOr<SideAccess> d = accessOf(*this, dst, used, range, l);
  if (failed(s) || failed(d))
    return failure();
  // A source element outside its tensor reads as zero: adding it is
  // skipping it.
  mlir::Value ok = d->inBounds;
  if (s->inBounds)
    ok = ok ? arith::AndIOp::create(builder, l, ok, s->inBounds) : s->inBounds;
  if (ok) {
    auto ifOp = scf::IfOp::create(builder, l, ok, /*else=*/false);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  mlir::Value v =
      memref::LoadOp::create(builder, l, src.buffer->memref, s->indices);
  FailureOr<Value> converted =
      castTo(wrapRuntime(v, src.buffer->dtype, false), dst.buffer->dtype, range);
  if (failed(converted))
    return failure();
  FailureOr<mlir::Value> out =
      toIR(*converted, irType(dst.buffer->dtype), range);
  if (failed(out))
    return failure();
  tile::AtomicAddOp::create(builder, l, dst.buffer->memref, d->indices, *out);
  return success();
}

LogicalResult Elaborator::emitRegionFill(const Region &box, mlir::Value value,
                                         SMRange range) {
  // `buf[i, j]` (every index a point) is a box of one element.
  Region r = box;
  for (int64_t &x : r.extents)
    x = x < 0 ? 1 : x;
  Location l = loc(range.Start);
  OpBuilder::InsertionGuard guard(builder);
  if (r.buffer->scope == MemScope::Fragment) {
    // Over the whole fragment, guarded to the region: the loop indexes the
    // fragment with its own variables, so it takes the fragment's layout and
    // each thread writes only elements it holds (a loop over the region
    // alone, at an offset, would be laid out on its own).
    SmallVector<int64_t> shape;
    for (const Value &d : r.buffer->shape)
      shape.push_back(d.getInt());
    auto par = tile::ParallelOp::create(builder, l, shape);
    builder.setInsertionPoint(par.getBody()->getTerminator());
    mlir::Value inside;
    auto both = [&](mlir::Value c) {
      inside = inside ? arith::AndIOp::create(builder, l, inside, c) : c;
    };
    for (size_t d = 0; d < shape.size(); ++d) {
      if (r.offsets[d].isIntLike() && r.offsets[d].getInt() == 0 &&
          r.extents[d] == shape[d])
        continue;
      FailureOr<mlir::Value> lo = toIndex(r.offsets[d], range);
      if (failed(lo))
        return failure();
      mlir::Value iv = par.getBody()->getArgument(d);
      mlir::Value hi = arith::AddIOp::create(
          builder, l, *lo, arith::ConstantIndexOp::create(builder, l,
                                                          r.extents[d]));
      both(arith::CmpIOp::create(builder, l, arith::CmpIPredicate::sge, iv,
                                 *lo));
      both(arith::CmpIOp::create(builder, l, arith::CmpIPredicate::slt, iv,
                                 hi));
    }
    if (inside) {
      auto ifOp = scf::IfOp::create(builder, l, inside, /*else=*/false);
      builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    memref::StoreOp::create(builder, l, value, r.buffer->memref,
                            par.getBody()->getArguments());
    return success();
  }
  SmallVector<int64_t> extents;
  for (int64_t x : r.extents)
    if (x != 1)
      extents.push_back(x);
  bool onePoint = extents.empty();
  if (onePoint)
    extents.push_back(1);
  auto par = tile::ParallelOp::create(builder, l, extents);
  builder.setInsertionPoint(par.getBody()->getTerminator());
  SmallVector<mlir::Value> ivs(par.getBody()->getArguments().begin(),
                               par.getBody()->getArguments().end());
  ArrayRef<mlir::Value> used = onePoint ? ArrayRef<mlir::Value>() : ivs;
  FailureOr<SideAccess> d = accessOf(*this, r, used, range, l);
  if (failed(d))
    return failure();
  if (d->inBounds) {
    auto ifOp = scf::IfOp::create(builder, l, d->inBounds, /*else=*/false);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  memref::StoreOp::create(builder, l, value, r.buffer->memref, d->indices);
  return success();
}

} // namespace tilec::mlirgen
