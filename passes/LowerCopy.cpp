//===- LowerCopy.cpp - tile-lower-simt: tile.copy and tile.fill -----------===//
//
// A copy moves the box of one buffer into the box of another; the boxes
// agree once unit extents are dropped (the "squeezed" shape), so element c
// of the squeezed box is src[src_off + expand(c)] -> dst[dst_off +
// expand(c)], converted to the destination's element type.
//
// - Fragment <-> global/shared: the fragment's layout says which elements
//   each thread holds. Registers are taken in groups of `vec`, the layout's
//   run of registers holding consecutive elements of the last dimension
//   (capped at 16 bytes of the other buffer). A group is one vector.load /
//   vector.store when its start is provably a multiple of `vec` elements
//   (static strides, offsets of known divisibility, the 16-byte aligned
//   base the launch header guarantees): the access gets that alignment and
//   becomes ld/st.global.v4 (or .v2); otherwise scalar accesses side by
//   side. Elements of a global box past the tensor's end read as zero and
//   are not stored: one guard per vector when the last extent is a
//   multiple of `vec`, per element otherwise. Threads holding replicated
//   copies of an element do not all store it: only those whose replica
//   thread bits are zero.
// - Fragment <-> fragment with the same layout: a register copy.
// - Involving a local buffer: each thread copies the whole box itself.
// - Shared -> global with a `#tile.tma_store` decision (sm_90a epilogues):
//   TMA stores by one thread (LowerTmaStore.cpp).
// - Otherwise (global/shared <-> global/shared): a strided T.Parallel loop
//   over the squeezed box. When both sides' vectors start at provable
//   multiples of `vec` (and a bounds check decides a whole vector), thread
//   t moves vector t of each step with one aligned vector.load/store per
//   side; otherwise `vec` scalar elements per thread per step.
// tile.fill writes every register of a fragment, every element of a local
// buffer, or runs a strided loop over a global or shared buffer.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLayouts.h"
#include "GemmLowering.h"
#include "SIMTLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

int64_t elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

/// Booleans are a byte each in memory (T.bool tensors, like TileLang's),
/// but a vector of i1 is bit-packed: their copies move one element at a
/// time (a vector<8xi1> load read 8 booleans from one byte).
bool packedBits(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  Type element = memref ? memref.getElementType() : type;
  return element.isInteger(1);
}

/// A box of a buffer: what one side of a copy names.
struct Box {
  Value buffer;
  SmallVector<Value> offsets;
  SmallVector<int64_t> extents;

  MemRefType type() const { return cast<MemRefType>(buffer.getType()); }
  /// The dimensions of non-unit extent.
  SmallVector<int> squeezedDims() const {
    SmallVector<int> dims;
    for (auto [d, extent] : llvm::enumerate(extents))
      if (extent != 1)
        dims.push_back(int(d));
    return dims;
  }
  /// Buffer indices of squeezed coordinate `coord`.
  SmallVector<Value> indices(OpBuilder &b, Location loc,
                             ValueRange coord) const {
    SmallVector<Value> result(offsets);
    for (auto [i, d] : llvm::enumerate(squeezedDims()))
      result[d] =
          isZero(offsets[d])
              ? coord[i]
              : Value(arith::AddIOp::create(b, loc, offsets[d], coord[i]));
    return result;
  }
  static bool isZero(Value v) { return matchPattern(v, m_Zero()); }
  /// Where element `index` of the buffer is stored: a shared buffer a
  /// wgmma reads carries its canonical swizzle (`tile.swizzle`), which
  /// every access goes through. A vector of at most 16 aligned bytes stays
  /// contiguous: the swizzle permutes whole 16-byte units.
  SmallVector<Value> placed(OpBuilder &b, Location loc,
                            ArrayRef<Value> index) const {
    Operation *alloc = buffer.getDefiningOp();
    if (!alloc || type().getRank() != 2 ||
        !alloc->hasAttr(gemm::kSharedLayoutAttr))
      return SmallVector<Value>(index);
    XorSwizzle swizzle = gemm::readSwizzle(alloc);
    int64_t atom = gemm::readSwizzleAtom(alloc);
    if (!swizzle.bits && !atom)
      return SmallVector<Value>(index);
    return SmallVector<Value>(gemm::swizzledIndices(
        b, loc, type().getShape(), swizzle, atom, index[0], index[1]));
  }
};

/// Whether element `indices` (and, with `lastExtra`, the next `lastExtra`
/// elements along the last dimension) lies inside a global tensor; null
/// when the box provably does.
Value inBounds(OpBuilder &b, Location loc, const Box &box,
               ArrayRef<Value> indices) {
  if (!isGlobalBuffer(box.buffer))
    return nullptr;
  MemRefType type = box.type();
  Value result;
  for (auto [d, index] : llvm::enumerate(indices)) {
    int64_t size = type.getShape()[d];
    APInt offset;
    if (!ShapedType::isDynamic(size) &&
        matchPattern(box.offsets[d], m_ConstantInt(&offset)) &&
        offset.getSExtValue() >= 0 &&
        offset.getSExtValue() + box.extents[d] <= size)
      continue;
    Value bound =
        ShapedType::isDynamic(size)
            ? Value(memref::DimOp::create(b, loc, box.buffer, int64_t(d)))
            : constIndex(b, loc, size);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, bound);
    result =
        result ? Value(arith::AndIOp::create(b, loc, result, inside)) : inside;
  }
  return result;
}

/// `then` under `cond` (if any), yielding its values, or `otherwise`'s.
SmallVector<Value>
guardedValues(OpBuilder &b, Location loc, Value cond, TypeRange types,
              function_ref<SmallVector<Value>(OpBuilder &)> then,
              function_ref<SmallVector<Value>(OpBuilder &)> otherwise) {
  if (!cond)
    return then(b);
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  OpBuilder thenB = OpBuilder::atBlockEnd(ifOp.thenBlock());
  scf::YieldOp::create(thenB, loc, then(thenB));
  OpBuilder elseB = OpBuilder::atBlockEnd(ifOp.elseBlock());
  scf::YieldOp::create(elseB, loc, otherwise(elseB));
  return SmallVector<Value>(ifOp.getResults());
}

void guarded(OpBuilder &b, Location loc, Value cond,
             function_ref<void(OpBuilder &)> then) {
  if (!cond)
    return then(b);
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder thenB = OpBuilder::atBlockTerminator(ifOp.thenBlock());
  then(thenB);
}

Value andOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AndIOp::create(b, loc, x, y);
}

/// Whether `box`'s buffer holds `lastExtent` elements along its last
/// dimension and at least one along every other: false only for a global
/// tensor with a small dynamic extent (an empty one); null when the static
/// shape says so.
Value holdsOrigin(OpBuilder &b, Location loc, const Box &box,
                  int64_t lastExtent) {
  if (!isGlobalBuffer(box.buffer))
    return nullptr;
  MemRefType type = box.type();
  Value result;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!ShapedType::isDynamic(type.getShape()[d]))
      continue;
    int64_t need = d == type.getRank() - 1 ? lastExtent : 1;
    Value size = memref::DimOp::create(b, loc, box.buffer, d);
    result = andOf(b, loc, result,
                   arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         size, constIndex(b, loc, need)));
  }
  return result;
}

/// `type` (an element, or a vector along the last dimension) at `index`
/// of `box`, zero where `cond` (if any) is false, without a branch: an
/// access outside reads the buffer's origin instead and a select drops
/// it. The origin must exist (holdsOrigin). A branch per element, as
/// guardedValues makes, left ptxas ~700 blocks in the fragment copy of a
/// 128 x 128 tile over dynamic shapes, and it fell back to 32 registers
/// and 11 KB of spills (fusedmoe's shared expert, session 13).
Value maskedLoad(OpBuilder &b, Location loc, const Box &box,
                 ArrayRef<Value> index, Value cond, Type type,
                 llvm::MaybeAlign align) {
  SmallVector<Value> at(index);
  if (cond) {
    Value zero = constIndex(b, loc, 0);
    for (Value &i : at)
      i = arith::SelectOp::create(b, loc, cond, i, zero);
  }
  SmallVector<Value> placed = box.placed(b, loc, at);
  Value loaded =
      isa<VectorType>(type)
          ? Value(vector::LoadOp::create(b, loc, type, box.buffer, placed,
                                         false, align))
          : Value(memref::LoadOp::create(b, loc, box.buffer, placed));
  if (!cond)
    return loaded;
  Value zero =
      isa<VectorType>(type)
          ? Value(arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type)))
          : zeroOf(b, loc, type);
  return arith::SelectOp::create(b, loc, cond, loaded, zero);
}

/// Whether box element offsets that are multiples of `vec` along the last
/// dimension start at an element offset that is a multiple of `vec` in
/// the buffer: the last offset and every outer stride (static) are.
bool alignedStarts(const Box &box, int64_t vec) {
  MemRefType type = box.type();
  if (knownDivisor(box.offsets.back()) % vec != 0)
    return false;
  int64_t stride = 1;
  for (int64_t d = type.getRank() - 1; d > 0; --d) {
    int64_t extent = type.getShape()[d];
    if (ShapedType::isDynamic(extent))
      return false;
    stride *= extent;
    if (stride % vec != 0)
      return false;
  }
  return true;
}

/// Whether a bounds check of a vector's first element decides the whole
/// vector of `vec` elements along the last dimension (or no check is
/// needed there).
bool uniformGuard(const Box &box, int64_t vec) {
  if (!isGlobalBuffer(box.buffer))
    return true;
  MemRefType type = box.type();
  int64_t last = type.getRank() - 1;
  int64_t size = type.getShape()[last];
  APInt offset;
  if (!ShapedType::isDynamic(size) &&
      matchPattern(box.offsets[last], m_ConstantInt(&offset)) &&
      offset.getSExtValue() >= 0 &&
      offset.getSExtValue() + box.extents[last] <= size)
    return true;
  return !ShapedType::isDynamic(size) && size % vec == 0 &&
         knownDivisor(box.offsets[last]) % vec == 0;
}

/// Elementwise conversion of a vector.
Value castVector(OpBuilder &b, Location loc, Value v, Type toElement) {
  auto type = cast<VectorType>(v.getType());
  if (type.getElementType() == toElement)
    return v;
  SmallVector<Value> elements;
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    elements.push_back(
        castScalar(b, loc, vector::ExtractOp::create(b, loc, v, i), toElement));
  return vector::FromElementsOp::create(
      b, loc, VectorType::get(type.getShape(), toElement), elements);
}

class CopyLowering {
public:
  explicit CopyLowering(KernelLowering &kernel) : kernel(kernel) {}

  LogicalResult lower(tile::CopyOp copy) {
    // tile-infer-layouts' decision (PlanTmaStores.cpp).
    if (auto plan = copy->getAttrOfType<tile::TmaStoreAttr>(
            tile::TmaStoreAttr::getAttrName()))
      return lowerTmaStore(kernel, copy, plan);
    Box src{copy.getSrc(), llvm::to_vector(copy.getSrcOffsets()),
            llvm::to_vector(copy.getSrcExtents())};
    Box dst{copy.getDst(), llvm::to_vector(copy.getDstOffsets()),
            llvm::to_vector(copy.getDstExtents())};
    const Fragment *srcFrag = kernel.fragment(src.buffer);
    const Fragment *dstFrag = kernel.fragment(dst.buffer);
    bool local = isSpace(src.buffer, tile::MemorySpace::local) ||
                 isSpace(dst.buffer, tile::MemorySpace::local);
    if (srcFrag && dstFrag)
      return fragmentToFragment(copy, *srcFrag, src, *dstFrag, dst);
    if ((srcFrag || dstFrag) && local)
      return copy.emitError("copies between fragments and local buffers are "
                            "not supported");
    if (srcFrag)
      return fragmentSide(copy, *srcFrag, src, dst, /*toFragment=*/false);
    if (dstFrag)
      return fragmentSide(copy, *dstFrag, dst, src, /*toFragment=*/true);
    if (local)
      return perThread(copy, src, dst);
    return strided(copy, src, dst);
  }

private:
  static bool wholeBuffer(const Box &box) {
    if (box.extents != SmallVector<int64_t>(box.type().getShape()))
      return false;
    return llvm::all_of(box.offsets, Box::isZero);
  }

  LogicalResult fragmentToFragment(tile::CopyOp copy, const Fragment &from,
                                   const Box &src, const Fragment &to,
                                   const Box &dst) {
    if (!wholeBuffer(src) || !wholeBuffer(dst) || !(from.layout == to.layout)) {
      if (succeeded(routedRegisters(copy, from, src, to, dst)))
        return success();
      return copy.emitError()
             << "copying fragment `" << from.name << "` into `" << to.name
             << "` needs a layout conversion, which is not implemented yet";
    }
    OpBuilder b(copy);
    for (int64_t k = 0; k < from.layout.numRegisters(); ++k)
      kernel.storeRegister(b, copy.getLoc(), to, k,
                           kernel.loadRegister(b, copy.getLoc(), from, k));
    copy.erase();
    return success();
  }

  /// A copy of a box of one fragment into a whole other fragment where
  /// every thread already holds what it receives (FlashDecoding's
  /// `T.copy(lse_local[k, :], lse_local_split)`, with `lse_local`'s rows in
  /// registers and its columns where `lse_local_split` has them): each
  /// destination register takes one source register, the same on every
  /// thread; along at most one run-time offset of a unit source extent the
  /// source registers must be evenly spaced (register `base + stride * k`,
  /// as RuntimeRegisters.cpp indexes). Failure (nothing emitted) where a
  /// value would have to move between threads.
  LogicalResult routedRegisters(tile::CopyOp copy, const Fragment &from,
                                const Box &src, const Fragment &to,
                                const Box &dst) {
    if (!wholeBuffer(dst))
      return failure();
    const Layout &in = from.layout, &out = to.layout;
    SmallVector<int> srcDims = src.squeezedDims();
    SmallVector<int> dstDims = dst.squeezedDims();
    if (srcDims.size() != dstDims.size())
      return failure();
    for (auto [s, d] : llvm::zip(srcDims, dstDims))
      if (src.extents[s] != dst.extents[d])
        return failure();
    SmallVector<int64_t> offsets(src.offsets.size(), 0);
    int runtimeDim = -1;
    for (auto [d, offset] : llvm::enumerate(src.offsets)) {
      APInt value;
      if (matchPattern(offset, m_ConstantInt(&value))) {
        offsets[d] = value.getSExtValue();
        continue;
      }
      if (runtimeDim >= 0 || src.extents[d] != 1)
        return failure();
      runtimeDim = int(d);
    }
    int64_t values = runtimeDim < 0 ? 1 : in.shape()[runtimeDim];
    int64_t threads = std::min(in.spannedThreads(), out.spannedThreads());
    // route[r][v]: the source register for destination register r at
    // run-time offset v (-1: r holds no element).
    SmallVector<SmallVector<int64_t>> route(out.numRegisters());
    for (int64_t r = 0; r < out.numRegisters(); ++r) {
      route[r].assign(values, -1);
      for (int64_t v = 0; v < values; ++v) {
        for (int64_t t = 0; t < threads; ++t) {
          uint64_t e = out.elementAt(r, t);
          if (!out.isInside(e))
            continue;
          SmallVector<int64_t> coord = out.unflatten(e);
          SmallVector<int64_t> at(offsets);
          if (runtimeDim >= 0)
            at[runtimeDim] = v;
          for (auto [s, d] : llvm::zip(srcDims, dstDims))
            at[s] += coord[d];
          int64_t reg = in.findRegister(t, in.flatten(at));
          if (reg < 0 || (route[r][v] >= 0 && route[r][v] != reg))
            return failure();
          route[r][v] = reg;
        }
      }
    }
    SmallVector<int64_t> stride(out.numRegisters(), 0);
    for (auto [r, regs] : llvm::enumerate(route)) {
      if (regs[0] < 0)
        continue;
      if (values > 1)
        stride[r] = regs[1] - regs[0];
      for (int64_t v = 0; v < values; ++v)
        if (regs[v] != regs[0] + v * stride[r])
          return failure();
    }
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    Value runtime;
    if (runtimeDim >= 0) {
      runtime = src.offsets[runtimeDim];
      if (!runtime.getType().isIndex())
        runtime = arith::IndexCastOp::create(b, loc, b.getIndexType(), runtime);
    }
    for (auto [r, regs] : llvm::enumerate(route)) {
      if (regs[0] < 0)
        continue;
      Value value;
      if (!runtime || stride[r] == 0) {
        value = kernel.loadRegister(b, loc, from, regs[0]);
      } else {
        Value reg = arith::AddIOp::create(
            b, loc, constIndex(b, loc, regs[0]),
            arith::MulIOp::create(b, loc, runtime,
                                  constIndex(b, loc, stride[r])));
        value = memref::LoadOp::create(b, loc, from.registers, ValueRange{reg});
      }
      kernel.storeRegister(b, loc, to, int64_t(r), value);
    }
    copy.erase();
    return success();
  }

  /// How many registers to move per access, and whether that access can
  /// be a vector op with the vector's alignment.
  std::pair<int64_t, bool> vectorWidth(const Fragment &frag, const Box &fragBox,
                                       const Box &other) {
    const Layout &layout = frag.layout;
    SmallVector<int> fragDims = fragBox.squeezedDims();
    SmallVector<int> otherDims = other.squeezedDims();
    int64_t fragLast = int64_t(layout.rank()) - 1;
    int64_t otherLast = other.type().getRank() - 1;
    if (fragDims.empty() || fragDims.back() != fragLast || otherDims.empty() ||
        otherDims.back() != otherLast || packedBits(other.type()))
      return {1, false};
    Type element = other.type().getElementType();
    int64_t vec = std::min(layout.contiguousRegisters(),
                           std::max<int64_t>(1, 16 / elementBytes(element)));
    // Every group must start at a multiple of vec along the last dim,
    // for every thread.
    auto aligned = [&](int64_t v) {
      if (layout.threadMask(fragLast) & (v - 1))
        return false;
      for (int64_t r = 0; r < layout.numRegisters(); r += v)
        if (layout.unflatten(layout.regFlat(r))[fragLast] % v != 0)
          return false;
      return true;
    };
    while (vec > 1 && !aligned(vec))
      vec /= 2;
    if (vec == 1)
      return {1, false};
    return {vec, alignedStarts(other, vec)};
  }

  /// A copy of a box of a fragment (`T.copy(acc_o[:valid_h, :], O_shared)`,
  /// FlashDecoding): every register whose element lies in the box moves,
  /// one element at a time; the test of its coordinates against the box
  /// is folded where they are constants. Registers outside the box keep
  /// their values (into a fragment) or are not stored (out of it).
  LogicalResult partialFragmentSide(tile::CopyOp copy, const Fragment &frag,
                                    const Box &fragBox, const Box &other,
                                    bool toFragment) {
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    const Layout &layout = frag.layout;
    Type otherElement = other.type().getElementType();
    SmallVector<int> fragDims = fragBox.squeezedDims();
    ArrayRef<int64_t> shape = fragBox.type().getShape();
    Value storeOnce;
    if (!toFragment)
      if (int64_t mask = layout.replicaThreadMask())
        storeOnce = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq,
            arith::AndIOp::create(b, loc, kernel.layoutThreadId(layout),
                                  constIndex(b, loc, mask)),
            constIndex(b, loc, 0));
    for (int64_t r = 0; r < layout.numRegisters(); ++r) {
      SmallVector<Value> coord = kernel.coords(b, loc, layout, r);
      // Inside the box, and the coordinates relative to its corner.
      Value inBox;
      SmallVector<Value> relative;
      for (auto [d, c] : llvm::enumerate(coord)) {
        Value off = fragBox.offsets[d];
        bool fromZero = Box::isZero(off);
        Value rel = fromZero ? c : Value(arith::SubIOp::create(b, loc, c, off));
        if (llvm::is_contained(fragDims, int(d)))
          relative.push_back(rel);
        if (fromZero && fragBox.extents[d] == shape[d])
          continue;
        // rel in [0, extent): one unsigned compare.
        inBox = andOf(
            b, loc, inBox,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rel,
                                  constIndex(b, loc, fragBox.extents[d])));
      }
      SmallVector<Value> index = other.indices(b, loc, relative);
      Value cond = inBounds(b, loc, other, index);
      if (toFragment) {
        Value old = kernel.loadRegister(b, loc, frag, r);
        Value loaded = guardedValues(
            b, loc, inBox, old.getType(),
            [&](OpBuilder &gb) -> SmallVector<Value> {
              Value in = guardedValues(
                  gb, loc, cond, otherElement,
                  [&](OpBuilder &lb) -> SmallVector<Value> {
                    return {memref::LoadOp::create(
                        lb, loc, other.buffer, other.placed(lb, loc, index))};
                  },
                  [&](OpBuilder &lb) -> SmallVector<Value> {
                    return {zeroOf(lb, loc, otherElement)};
                  })[0];
              return {castScalar(gb, loc, in, old.getType())};
            },
            [&](OpBuilder &) -> SmallVector<Value> { return {old}; })[0];
        kernel.storeRegister(b, loc, frag, r, loaded);
      } else {
        Value value = castScalar(b, loc, kernel.loadRegister(b, loc, frag, r),
                                 otherElement);
        guarded(b, loc, andOf(b, loc, andOf(b, loc, inBox, cond), storeOnce),
                [&](OpBuilder &gb) {
                  memref::StoreOp::create(gb, loc, value, other.buffer,
                                          other.placed(gb, loc, index));
                });
      }
    }
    copy.erase();
    return success();
  }

  /// A whole fragment from `other`, `width` elements a load along the
  /// last dimension (aligned, one bounds check a vector). Elements outside
  /// a global tensor read zero through maskedLoad, branch-free; one
  /// uniform branch around the whole copy covers a tensor too small to
  /// have an origin, where every register is zero.
  void loadFragment(OpBuilder &b, Location loc, const Fragment &frag,
                    ArrayRef<int> fragDims, const Box &other, int64_t width) {
    const Layout &layout = frag.layout;
    Type otherElement = other.type().getElementType();
    auto loadAll = [&](OpBuilder &lb) {
      for (int64_t r0 = 0; r0 < layout.numRegisters(); r0 += width) {
        SmallVector<Value> fragCoord = kernel.coords(lb, loc, layout, r0);
        SmallVector<Value> squeezed;
        for (int d : fragDims)
          squeezed.push_back(fragCoord[d]);
        SmallVector<Value> index = other.indices(lb, loc, squeezed);
        Value cond = inBounds(lb, loc, other, index);
        if (width == 1) {
          kernel.storeRegister(
              lb, loc, frag, r0,
              maskedLoad(lb, loc, other, index, cond, otherElement, {}));
          continue;
        }
        auto vecType = VectorType::get({width}, otherElement);
        Value loaded =
            maskedLoad(lb, loc, other, index, cond, vecType,
                       llvm::MaybeAlign(width * elementBytes(otherElement)));
        for (int64_t v = 0; v < width; ++v)
          kernel.storeRegister(lb, loc, frag, r0 + v,
                               vector::ExtractOp::create(lb, loc, loaded, v));
      }
    };
    Value origin = holdsOrigin(b, loc, other, width);
    if (!origin)
      return loadAll(b);
    auto ifOp = scf::IfOp::create(b, loc, origin, /*withElseRegion=*/true);
    OpBuilder thenB = OpBuilder::atBlockTerminator(ifOp.thenBlock());
    loadAll(thenB);
    OpBuilder elseB = OpBuilder::atBlockTerminator(ifOp.elseBlock());
    for (int64_t r = 0; r < layout.numRegisters(); ++r)
      kernel.storeRegister(elseB, loc, frag, r,
                           zeroOf(elseB, loc, otherElement));
  }

  LogicalResult fragmentSide(tile::CopyOp copy, const Fragment &frag,
                             const Box &fragBox, const Box &other,
                             bool toFragment) {
    if (!wholeBuffer(fragBox))
      return partialFragmentSide(copy, frag, fragBox, other, toFragment);
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    const Layout &layout = frag.layout;
    auto [vec, aligned] = vectorWidth(frag, fragBox, other);
    MemRefType otherType = other.type();
    Type otherElement = otherType.getElementType();
    // One bounds check per vector needs the vector wholly in or out.
    if (!uniformGuard(other, vec))
      aligned = false;
    int64_t width = aligned ? vec : 1;
    SmallVector<int> fragDims = fragBox.squeezedDims();

    if (toFragment) {
      loadFragment(b, loc, frag, fragDims, other, width);
      copy.erase();
      return success();
    }

    // Replicas store once.
    Value storeOnce;
    if (int64_t mask = layout.replicaThreadMask()) {
      Value bits = arith::AndIOp::create(
          b, loc, kernel.layoutThreadId(layout), constIndex(b, loc, mask));
      storeOnce = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        bits, constIndex(b, loc, 0));
    }

    if (storeMatrices(copy, frag, other))
      return success();

    if (!storeOnce && width > 1 && !hasIEEEDivision()) {
      if (int64_t step = pairedStoreStep(layout, width, otherElement);
          step && alignedStarts(other, 2 * width) &&
          uniformGuard(other, 2 * width)) {
        storePairs(b, loc, frag, fragDims, other, width, step);
        copy.erase();
        return success();
      }
    }

    for (int64_t r0 = 0; r0 < layout.numRegisters(); r0 += width) {
      SmallVector<Value> fragCoord = kernel.coords(b, loc, layout, r0);
      SmallVector<Value> squeezed;
      for (int d : fragDims)
        squeezed.push_back(fragCoord[d]);
      SmallVector<Value> index = other.indices(b, loc, squeezed);
      Value cond = andOf(b, loc, inBounds(b, loc, other, index), storeOnce);
      if (width > 1) {
        auto vecType = VectorType::get({width}, otherElement);
        llvm::MaybeAlign align(width * elementBytes(otherElement));
        SmallVector<Value> elements;
        for (int64_t v = 0; v < width; ++v)
          elements.push_back(castScalar(
              b, loc, kernel.loadRegister(b, loc, frag, r0 + v), otherElement));
        Value packed =
            vector::FromElementsOp::create(b, loc, vecType, elements);
        guarded(b, loc, cond, [&](OpBuilder &gb) {
          vector::StoreOp::create(gb, loc, packed, other.buffer,
                                  other.placed(gb, loc, index), false, align);
        });
        continue;
      }
      // Scalar: one element; neighbours of a contiguous run sit next to
      // each other for LLVM's load/store vectorizer.
      Value value = castScalar(b, loc, kernel.loadRegister(b, loc, frag, r0),
                               otherElement);
      guarded(b, loc, cond, [&](OpBuilder &gb) {
        memref::StoreOp::create(gb, loc, value, other.buffer,
                                other.placed(gb, loc, index));
      });
    }
    copy.erase();
    return success();
  }

  /// stmatrix (sm_90): a whole fragment into a whole 16-bit shared tile,
  /// where the fragment is made of the mma / wgmma accumulator's 8x8
  /// tiles: register bit 0 the next column, lane bits 0-1 columns 2 and
  /// 4, lane bits 2-4 rows 1, 2, 4, every other register and warp bit a
  /// multiple of 8 rows or columns. stmatrix.x4 then stores registers 8g ..
  /// 8g + 7 of each lane (four 8x8 matrices, one 32-bit pair each) where
  /// st.shared would take 4 instructions; lane i gives the address of row
  /// i % 8 of matrix i / 8, 16 contiguous bytes also under a swizzle.
  bool storeMatrices(tile::CopyOp copy, const Fragment &frag,
                     const Box &other) {
    const Layout &layout = frag.layout;
    MemRefType type = other.type();
    tile::TargetAttr target = tile::lookupTarget(copy);
    if (!target || !target.getInfo().hasTMA() || !wholeBuffer(other) ||
        type.getRank() != 2 || !type.hasStaticShape() ||
        type.getElementTypeBitWidth() != 16 ||
        !isa<FloatType>(type.getElementType()) || layout.rank() != 2 ||
        layout.shape() != type.getShape() || layout.numLanes() != 32 ||
        layout.replicaThreadMask() || layout.numRegisters() % 8 ||
        layout.numRegisters() * layout.spannedThreads() !=
            type.getNumElements() ||
        layout.numThreads() != layout.spannedThreads() ||
        !llvm::isPowerOf2_64(uint64_t(type.getDimSize(0))) ||
        !llvm::isPowerOf2_64(uint64_t(type.getDimSize(1))) ||
        layout.regFlat(0) != 0)
      return false;
    auto at = [&](int64_t r) { return layout.unflatten(layout.regFlat(r)); };
    auto tiled = [](ArrayRef<int64_t> c) {
      return c[0] % 8 == 0 && c[1] % 8 == 0;
    };
    ArrayRef<SmallVector<int64_t>> bases = layout.threadBases();
    const int64_t laneBases[5][2] = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
    if (bases.size() < 5 || at(1) != SmallVector<int64_t>{0, 1})
      return false;
    for (size_t t = 0; t < bases.size(); ++t)
      if (t < 5 ? bases[t] !=
                      SmallVector<int64_t>{laneBases[t][0], laneBases[t][1]}
                : !tiled(bases[t]))
        return false;
    for (int64_t r = 2; r < layout.numRegisters(); r *= 2)
      if (!tiled(at(r)))
        return false;

    OpBuilder b(copy);
    Location loc = copy.getLoc();
    Type element = type.getElementType();
    auto idx = [&](int64_t v) { return constIndex(b, loc, v); };
    Value tid = kernel.threadId();
    Value lane = arith::AndIOp::create(b, loc, tid, idx(31));
    Value m1 = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, lane, idx(3)), idx(1));
    Value m2 = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, lane, idx(4)), idx(1));
    // Register 0's coordinates are the thread's: lane part below 8, warp
    // part a multiple of 8 in each dimension.
    SmallVector<Value> warpPart = kernel.coords(b, loc, layout, 0);
    for (Value &c : warpPart)
      c = arith::AndIOp::create(b, loc, c, idx(~int64_t(7)));
    SmallVector<int64_t> o2 = at(2), o4 = at(4);
    Value shared = castToWorkgroup(b, loc, other.buffer);
    auto pair = VectorType::get({2}, element);
    auto word = VectorType::get({1}, b.getI32Type());
    for (int64_t g = 0; g < layout.numRegisters(); g += 8) {
      // Matrix lane / 8 starts at at(g + 2 * (lane / 8)): XOR is linear.
      SmallVector<int64_t> o = at(g);
      SmallVector<Value> index;
      for (int d = 0; d < 2; ++d) {
        Value c = arith::XOrIOp::create(b, loc, warpPart[d], idx(o[d]));
        c = arith::XOrIOp::create(
            b, loc, c, arith::MulIOp::create(b, loc, m1, idx(o2[d])));
        c = arith::XOrIOp::create(
            b, loc, c, arith::MulIOp::create(b, loc, m2, idx(o4[d])));
        index.push_back(c);
      }
      index[0] = arith::AddIOp::create(
          b, loc, index[0], arith::AndIOp::create(b, loc, lane, idx(7)));
      Value ptr =
          sharedElementPointer(b, loc, shared, other.placed(b, loc, index),
                               kernel.getOptions().indexBitwidth);
      SmallVector<Value, 4> words;
      for (int64_t m = 0; m < 4; ++m) {
        int64_t r = g + 2 * m;
        Value v = vector::FromElementsOp::create(
            b, loc, pair,
            ValueRange{castScalar(b, loc, kernel.loadRegister(b, loc, frag, r),
                                  element),
                       castScalar(b, loc,
                                  kernel.loadRegister(b, loc, frag, r + 1),
                                  element)});
        words.push_back(vector::ExtractOp::create(
            b, loc, vector::BitCastOp::create(b, loc, word, v), 0));
      }
      deviceOps(copy).matrixStore(b, loc, ptr, words);
    }
    copy.erase();
    return true;
  }

  /// Paired stores (the mma accumulator's case): when lane bit 0 moves a
  /// thread `width` elements along the last dimension and a register bit
  /// moves it a multiple of 2 * width, the lanes of a pair swap one
  /// 32-bit group each (a shuffle) and each stores 2 * width contiguous
  /// elements: the even lane the low group and its partner's, the odd lane
  /// its partner's high group and its own. Half the store instructions,
  /// and each 32-byte sector written whole by one of them. Returns that
  /// register step, or 0 when the layout does not have this shape.
  int64_t pairedStoreStep(const Layout &layout, int64_t width, Type element) {
    if (width * elementBytes(element) != 4 || layout.numLanes() < 2 ||
        layout.replicaThreadMask())
      return 0;
    int64_t last = int64_t(layout.rank()) - 1;
    SmallVector<int64_t> lane0 = layout.threadBases()[0];
    for (int64_t d = 0; d < last; ++d)
      if (lane0[d])
        return 0;
    if (lane0[last] != width)
      return 0;
    // Every other thread and register bit keeps groups 2 * width aligned
    // along the last dimension (then XOR of bases = sum, and the even
    // lane's group starts a 2 * width run).
    for (size_t t = 1; t < layout.threadBases().size(); ++t)
      if (layout.threadBases()[t][last] % (2 * width))
        return 0;
    for (int64_t r = width; r < layout.numRegisters(); r *= 2)
      if (layout.unflatten(layout.regFlat(r))[last] % (2 * width))
        return 0;
    for (int64_t step = width; step < layout.numRegisters(); step *= 2) {
      SmallVector<int64_t> at = layout.unflatten(layout.regFlat(step));
      bool alongLast = llvm::all_of(llvm::seq<int64_t>(0, last),
                                    [&](int64_t d) { return at[d] == 0; });
      if (alongLast && at[last] % (2 * width) == 0 && at[last] > 0)
        return step;
    }
    return 0;
  }

  /// Whether the kernel divides floats with IEEE rounding (no `afn`): on
  /// NVIDIA that division has a slow path that is a subroutine call in
  /// SASS, and registers live across it are saved to the stack. Paired
  /// stores keep one group alive while the next ones are computed, which
  /// made gemm_bias_gelu's epilogue (a division per element) spill; such
  /// kernels keep the plain stores.
  bool hasIEEEDivision() {
    if (!ieeeDivision)
      ieeeDivision =
          kernel.getFunc()
              .walk([](arith::DivFOp div) {
                bool approx = bitEnumContainsAll(div.getFastmath(),
                                                 arith::FastMathFlags::afn);
                return approx ? WalkResult::advance() : WalkResult::interrupt();
              })
              .wasInterrupted();
    return *ieeeDivision;
  }

  void storePairs(OpBuilder &b, Location loc, const Fragment &frag,
                  ArrayRef<int> fragDims, const Box &other, int64_t width,
                  int64_t step) {
    const Layout &layout = frag.layout;
    Type element = other.type().getElementType();
    Type i32 = b.getI32Type();
    auto half = VectorType::get({width}, element);
    Value even = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, loc, kernel.threadId(), constIndex(b, loc, 1)),
        constIndex(b, loc, 0));
    auto group = [&](int64_t r) {
      SmallVector<Value> elements;
      for (int64_t v = 0; v < width; ++v)
        elements.push_back(castScalar(
            b, loc, kernel.loadRegister(b, loc, frag, r + v), element));
      return vector::FromElementsOp::create(b, loc, half, elements).getResult();
    };
    int64_t last = int64_t(layout.rank()) - 1;
    for (int64_t r0 = 0; r0 < layout.numRegisters(); r0 += width) {
      if (r0 & step)
        continue;
      Value lo = group(r0), hi = group(r0 | step);
      Value send = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, i32),
          arith::SelectOp::create(b, loc, even, hi, lo));
      Value word = vector::ExtractOp::create(b, loc, send, 0);
      Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
      Value lanes = arith::ConstantIntOp::create(b, loc, i32, 32);
      Value got = gpu::ShuffleOp::create(b, loc, word, one, lanes,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
      Value recv = vector::BitCastOp::create(
          b, loc, half,
          vector::FromElementsOp::create(b, loc, VectorType::get({1}, i32),
                                         ValueRange{got}));
      Value first = arith::SelectOp::create(b, loc, even, lo, recv);
      Value second = arith::SelectOp::create(b, loc, even, recv, hi);
      SmallVector<int64_t> mask =
          llvm::to_vector(llvm::seq<int64_t>(0, 2 * width));
      Value value = vector::ShuffleOp::create(b, loc, first, second, mask);
      // The even lane's group starts at its register r0, the odd lane's
      // `width` before its register r0 | step.
      SmallVector<Value> atLo = kernel.coords(b, loc, layout, r0);
      SmallVector<Value> atHi = kernel.coords(b, loc, layout, r0 | step);
      atHi[last] =
          arith::SubIOp::create(b, loc, atHi[last], constIndex(b, loc, width));
      SmallVector<Value> squeezed;
      for (int d : fragDims)
        squeezed.push_back(
            arith::SelectOp::create(b, loc, even, atLo[d], atHi[d]));
      SmallVector<Value> index = other.indices(b, loc, squeezed);
      Value cond = inBounds(b, loc, other, index);
      llvm::MaybeAlign align(2 * width * elementBytes(element));
      guarded(b, loc, cond, [&](OpBuilder &gb) {
        vector::StoreOp::create(gb, loc, value, other.buffer,
                                other.placed(gb, loc, index), false, align);
      });
    }
  }

  /// Loads src's element at squeezed `coord` (zero outside a global
  /// tensor), converts it and stores it into dst (unless outside). Either
  /// side may be a swizzled wgmma operand: both go through `placed`.
  void copyElement(OpBuilder &b, Location loc, const Box &src, const Box &dst,
                   ValueRange coord) {
    SmallVector<Value> srcIndex = src.indices(b, loc, coord);
    SmallVector<Value> dstIndex = dst.indices(b, loc, coord);
    Type srcElement = src.type().getElementType();
    Type dstElement = dst.type().getElementType();
    Value loaded = guardedValues(
        b, loc, inBounds(b, loc, src, srcIndex), srcElement,
        [&](OpBuilder &gb) -> SmallVector<Value> {
          return {memref::LoadOp::create(gb, loc, src.buffer,
                                         src.placed(gb, loc, srcIndex))};
        },
        [&](OpBuilder &gb) -> SmallVector<Value> {
          return {zeroOf(gb, loc, srcElement)};
        })[0];
    Value value = castScalar(b, loc, loaded, dstElement);
    guarded(b, loc, inBounds(b, loc, dst, dstIndex), [&](OpBuilder &gb) {
      memref::StoreOp::create(gb, loc, value, dst.buffer,
                              dst.placed(gb, loc, dstIndex));
    });
  }

  /// copyElement for the `vec` elements from squeezed `coord` along the
  /// last dimension, as one aligned vector access per side.
  void copyVector(OpBuilder &b, Location loc, const Box &src, const Box &dst,
                  ValueRange coord, int64_t vec) {
    SmallVector<Value> srcIndex = src.indices(b, loc, coord);
    SmallVector<Value> dstIndex = dst.indices(b, loc, coord);
    Type srcElement = src.type().getElementType();
    Type dstElement = dst.type().getElementType();
    auto srcType = VectorType::get({vec}, srcElement);
    Value loaded = guardedValues(
        b, loc, inBounds(b, loc, src, srcIndex), srcType,
        [&](OpBuilder &gb) -> SmallVector<Value> {
          return {vector::LoadOp::create(
              gb, loc, srcType, src.buffer, src.placed(gb, loc, srcIndex),
              false, llvm::MaybeAlign(vec * elementBytes(srcElement)))};
        },
        [&](OpBuilder &gb) -> SmallVector<Value> {
          return {arith::ConstantOp::create(gb, loc, srcType,
                                            gb.getZeroAttr(srcType))};
        })[0];
    Value value = castVector(b, loc, loaded, dstElement);
    guarded(b, loc, inBounds(b, loc, dst, dstIndex), [&](OpBuilder &gb) {
      vector::StoreOp::create(gb, loc, value, dst.buffer,
                              dst.placed(gb, loc, dstIndex), false,
                              llvm::MaybeAlign(vec * elementBytes(dstElement)));
    });
  }

  SmallVector<int64_t> squeezedShape(const Box &box) {
    SmallVector<int64_t> shape;
    for (int d : box.squeezedDims())
      shape.push_back(box.extents[d]);
    return shape;
  }

  LogicalResult perThread(tile::CopyOp copy, const Box &src, const Box &dst) {
    SmallVector<int64_t> shape = squeezedShape(src);
    int64_t total = 1;
    for (int64_t extent : shape)
      total *= extent;
    if (total > 4096)
      return copy.emitError()
             << "a copy involving a local buffer moves " << total
             << " elements per thread; at most " << 4096 << " are supported";
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    for (int64_t flat = 0; flat < total; ++flat) {
      SmallVector<Value> coord(shape.size());
      int64_t rest = flat;
      for (size_t d = shape.size(); d-- > 0;) {
        coord[d] = constIndex(b, loc, rest % shape[d]);
        rest /= shape[d];
      }
      copyElement(b, loc, src, dst, coord);
    }
    copy.erase();
    return success();
  }

  LogicalResult strided(tile::CopyOp copy, const Box &src, const Box &dst) {
    SmallVector<int64_t> shape = squeezedShape(src);
    if (shape.empty())
      shape.push_back(1);
    int64_t bytes = std::max(elementBytes(src.type().getElementType()),
                             elementBytes(dst.type().getElementType()));
    int64_t total = 1;
    for (int64_t extent : shape)
      total *= extent;
    int64_t vec = std::max<int64_t>(1, 16 / bytes);
    bool contiguous = !src.squeezedDims().empty() &&
                      src.squeezedDims().back() == src.type().getRank() - 1 &&
                      !dst.squeezedDims().empty() &&
                      dst.squeezedDims().back() == dst.type().getRank() - 1;
    if (!contiguous || packedBits(src.type()) || packedBits(dst.type()))
      vec = 1;
    while (vec > 1 &&
           (shape.back() % vec != 0 || total < vec * kernel.getThreads()))
      vec /= 2;
    if (std::optional<uint64_t> width = copy.getCoalescedWidth())
      vec = int64_t(*width);
    OpBuilder b(copy);
    if (vec > 1 && alignedStarts(src, vec) && alignedStarts(dst, vec) &&
        uniformGuard(src, vec) && uniformGuard(dst, vec)) {
      // Thread t moves vector t of each step: coalesced, and one aligned
      // vector access per side.
      SmallVector<int64_t> vectors(shape);
      vectors.back() /= vec;
      LogicalResult result = buildStridedLoop(
          kernel, b, copy.getLoc(), vectors, 1,
          [&](OpBuilder &lb, Location loc, ValueRange ivs) {
            SmallVector<Value> coord(ivs);
            coord.back() = arith::MulIOp::create(lb, loc, coord.back(),
                                                 constIndex(lb, loc, vec));
            copyVector(lb, loc, src, dst, coord, vec);
          });
      copy.erase();
      return result;
    }
    // Element by element: neighbouring threads take neighbouring elements
    // (each warp access coalesced) unless the source asks for a width.
    if (!copy.getCoalescedWidth())
      vec = 1;
    bool scalar = src.squeezedDims().empty();
    LogicalResult result =
        buildStridedLoop(kernel, b, copy.getLoc(), shape, vec,
                         [&](OpBuilder &lb, Location loc, ValueRange ivs) {
                           copyElement(lb, loc, src, dst,
                                       scalar ? ValueRange() : ValueRange(ivs));
                         });
    copy.erase();
    return result;
  }

  KernelLowering &kernel;
  /// Whether the kernel has IEEE float divisions (see hasIEEEDivision).
  std::optional<bool> ieeeDivision;
};

LogicalResult lowerFill(KernelLowering &kernel, tile::FillOp fill) {
  OpBuilder b(fill);
  Location loc = fill.getLoc();
  Value dst = fill.getDst();
  auto type = cast<MemRefType>(dst.getType());
  Value value = castScalar(b, loc, fill.getValue(), type.getElementType());
  if (const Fragment *frag = kernel.fragment(dst)) {
    for (int64_t k = 0; k < frag->layout.numRegisters(); ++k)
      kernel.storeRegister(b, loc, *frag, k, value);
    fill.erase();
    return success();
  }
  if (!type.hasStaticShape())
    return fill.emitError("filling a dynamically shaped tensor is not "
                          "supported");
  SmallVector<int64_t> shape(type.getShape());
  if (shape.empty())
    shape.push_back(1);
  auto store = [&](OpBuilder &sb, Location l, ValueRange ivs) {
    memref::StoreOp::create(sb, l, value, dst,
                            type.getRank() ? ivs : ValueRange());
  };
  if (isSpace(dst, tile::MemorySpace::local)) {
    // Every thread fills its own buffer.
    int64_t total = type.getNumElements();
    if (total > 4096)
      return fill.emitError("local buffers of more than 4096 elements are "
                            "not supported");
    for (int64_t flat = 0; flat < total; ++flat) {
      SmallVector<Value> coord(shape.size());
      int64_t rest = flat;
      for (size_t d = shape.size(); d-- > 0;) {
        coord[d] = constIndex(b, loc, rest % shape[d]);
        rest /= shape[d];
      }
      store(b, loc, coord);
    }
    fill.erase();
    return success();
  }
  int64_t total = 1;
  for (int64_t extent : shape)
    total *= extent;
  int64_t vec = std::max<int64_t>(1, 16 / elementBytes(type.getElementType()));
  while (vec > 1 &&
         (shape.back() % vec != 0 || total < vec * kernel.getThreads()))
    vec /= 2;
  LogicalResult result = buildStridedLoop(kernel, b, loc, shape, vec, store);
  fill.erase();
  return result;
}

} // namespace

LogicalResult simt::lowerCopiesAndFills(KernelLowering &kernel) {
  SmallVector<Operation *> ops;
  kernel.getFunc().walk([&](Operation *op) {
    if (isa<tile::CopyOp, tile::FillOp>(op))
      ops.push_back(op);
  });
  CopyLowering copies(kernel);
  for (Operation *op : ops) {
    LogicalResult result = isa<tile::CopyOp>(op)
                               ? copies.lower(cast<tile::CopyOp>(op))
                               : lowerFill(kernel, cast<tile::FillOp>(op));
    if (failed(result))
      return failure();
  }
  return success();
}
