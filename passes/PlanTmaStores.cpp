//===- PlanTmaStores.cpp - tile-infer-layouts: which epilogues are TMA ----===//
//
// Decides, on chips with TMA, which shared -> global copies are TMA stores
// (`#tile.tma_store<box, swizzle>` on the tile.copy; LowerTmaStore.cpp
// follows it), and the layout of their shared sources. A copy qualifies as
// a TMA load does (PipelineTma.cpp): the destination is a kernel tensor
// argument, row-major, of at most 5 dimensions, whose innermost extent is
// static and a whole number of 16-byte units (the map's global strides);
// the source is a whole static 2-D shared buffer of the same element type
// (TMA converts nothing) whose rows run along one dimension of the
// destination box and whose columns along its innermost, at most 256 rows.
// `T.copy(..., disable_tma=True)` and `TL_DISABLE_TMA_LOWER` keep the
// threads' stores. Partial tiles need nothing: TMA writes no element past
// the tensor's edges.
//
// The source's layout: a buffer that nothing else has laid out and whose
// only other users are copies from fragments (the accumulator's epilogue:
// FlashAttention's O_shared, a GEMM's C_shared), which address it through
// its `tile.swizzle`, takes the canonical swizzle (rowMajorSwizzle: 128B
// where a row allows): the fragments' 4-byte writes of 8 rows then fall on
// 8 distinct 16-byte units of the 128-byte swizzle row, all 32 banks, where
// the plain row-major tile puts 8 rows of 256 bytes on the same banks; and
// TMA reads it in one box per swizzle atom, as the loads write operand
// tiles. A buffer already swizzled canonically keeps its swizzle; one that
// other code reads or writes element by element keeps its row-major layout
// and gets an unswizzled box (at most 256 columns). Swizzled sources start
// on the 1024-byte swizzle period (`tile.align`), as wgmma operands do.
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"
#include "GemmLowering.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::gemm;

namespace {

/// The alignment of a shared buffer TMA reads a box from.
constexpr int64_t kTmaSharedAlignment = 128;

constexpr llvm::StringLiteral kDisableTma = "tile.disable_tma_lower";

/// TileLang's TL_DISABLE_TMA_LOWER on the prim_func holding `kernel` or on
/// the module (an outlined kernel names its prim_func in `tile.func`).
bool tmaDisabled(Operation *kernel) {
  for (Operation *op = kernel; op; op = op->getParentOp())
    if (op->hasAttr(kDisableTma))
      return true;
  auto name = kernel->getAttrOfType<StringAttr>("tile.func");
  auto top = kernel->getParentOfType<ModuleOp>();
  while (top && top->getParentOfType<ModuleOp>())
    top = top->getParentOfType<ModuleOp>();
  if (!name || !top)
    return false;
  auto fn = top.lookupSymbol<func::FuncOp>(name);
  return fn && fn->hasAttr(kDisableTma);
}

bool isShared(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && tile::getMemorySpace(type) == tile::MemorySpace::shared;
}

bool fromFragment(tile::CopyOp copy) {
  auto src = cast<MemRefType>(copy.getSrc().getType());
  return tile::getMemorySpace(src) == tile::MemorySpace::fragment;
}

/// A 2-D TMA-sized shared tile of `alloc`: the geometry a store's box is
/// made of, before the swizzle is known.
struct StoreShape {
  int64_t rowDim = -1; ///< destination dimension of the rows (-1: one row)
  int64_t rows = 0, cols = 0, elemBytes = 0;
};

/// Whether `copy` can be a TMA store, and its shape; `why` says why not.
std::optional<StoreShape> storeShape(tile::CopyOp copy, std::string &why) {
  auto src = cast<MemRefType>(copy.getSrc().getType());
  auto dst = cast<MemRefType>(copy.getDst().getType());
  if (!copy.getSrc().getDefiningOp<tile::AllocOp>() || src.getRank() != 2 ||
      !src.hasStaticShape() || copy.getSrcExtents() != src.getShape() ||
      !llvm::all_of(copy.getSrcOffsets(),
                    [](Value v) { return isConstantIntValue(v, 0); })) {
    why = "the source is not a whole static 2-D shared buffer";
    return std::nullopt;
  }
  if (src.getElementType() != dst.getElementType() ||
      src.getElementTypeBitWidth() % 8) {
    why = "the element types differ (TMA converts nothing)";
    return std::nullopt;
  }
  if (!simt::tmaTensorArgument(copy.getDst())) {
    why = "the destination is not a kernel argument";
    return std::nullopt;
  }
  int64_t rank = dst.getRank();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (rank > 5 || failed(dst.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1) {
    why = "the destination is not a row-major tensor of at most 5 dimensions";
    return std::nullopt;
  }
  StoreShape shape;
  shape.rows = src.getDimSize(0);
  shape.cols = src.getDimSize(1);
  shape.elemBytes = src.getElementTypeBitWidth() / 8;
  if (dst.isDynamicDim(rank - 1) ||
      dst.getDimSize(rank - 1) * shape.elemBytes % 16 ||
      shape.cols * shape.elemBytes % 16) {
    why = "the destination's rows are not static whole 16-byte units";
    return std::nullopt;
  }
  // The box: columns along the innermost dimension, rows along one other.
  ArrayRef<int64_t> extents = copy.getDstExtents();
  for (int64_t d = 0; d + 1 < rank; ++d) {
    if (extents[d] == 1)
      continue;
    if (shape.rowDim >= 0 || extents[d] != shape.rows) {
      why = "the destination box is not the buffer's rows and columns";
      return std::nullopt;
    }
    shape.rowDim = d;
  }
  if (extents[rank - 1] != shape.cols ||
      (shape.rowDim < 0 && shape.rows != 1)) {
    why = "the destination box is not the buffer's rows and columns";
    return std::nullopt;
  }
  if (shape.rows > 256) {
    why = "the box has more than 256 rows";
    return std::nullopt;
  }
  return shape;
}

/// Whether every user of `alloc` but the TMA store candidates is a copy
/// from a fragment into it (the accessors that follow `tile.swizzle`) or
/// a T.annotate_layout.
bool onlyEpilogueUses(tile::AllocOp alloc,
                      const llvm::SmallPtrSetImpl<Operation *> &stores) {
  for (Operation *user : alloc->getUsers()) {
    if (stores.contains(user) || isa<tile::AnnotateLayoutOp>(user))
      continue;
    auto copy = dyn_cast<tile::CopyOp>(user);
    if (!copy || copy.getDst() != alloc.getResult() || !fromFragment(copy))
      return false;
  }
  return true;
}

/// Whether `swizzle` on a rows x cols tile is what TMA's swizzle modes
/// address: the canonical XOR of the mode on 16-byte units, one atom a box.
bool canonical(tile::SwizzleAttr swizzle, const StoreShape &shape) {
  if (swizzle.getMode() == tile::SwizzleMode::none)
    return true;
  int64_t bytes = int64_t(16) << int64_t(swizzle.getMode());
  int64_t width = swizzle.getAtom() ? swizzle.getAtom() : shape.cols;
  return swizzle.getBits() == int64_t(swizzle.getMode()) &&
         swizzle.getShift() == 3 &&
         (int64_t(1) << swizzle.getBase()) * shape.elemBytes == 16 &&
         width * shape.elemBytes == bytes && shape.cols % width == 0;
}

} // namespace

void gemm::planTmaStores(Operation *kernel, const TargetInfo &target) {
  if (!target.hasTMA() || tmaDisabled(kernel))
    return;
  // Candidates: copies in the kernel's own body (every thread reaches the
  // barrier the store needs), not asked to stay off TMA.
  llvm::MapVector<tile::CopyOp, StoreShape> candidates;
  llvm::SmallPtrSet<Operation *, 4> storeOps;
  kernel->walk([&](tile::CopyOp copy) {
    if (copy->getParentOp() != kernel || copy.getDisableTma() ||
        !isShared(copy.getSrc()) ||
        !tile::isGlobal(cast<MemRefType>(copy.getDst().getType())))
      return;
    std::string why;
    if (std::optional<StoreShape> shape = storeShape(copy, why)) {
      candidates.insert({copy, *shape});
      storeOps.insert(copy);
    }
  });
  MLIRContext *ctx = kernel->getContext();
  Builder b(ctx);
  for (auto &entry : candidates) {
    tile::CopyOp copy = entry.first;
    const StoreShape &shape = entry.second;
    auto alloc = copy.getSrc().getDefiningOp<tile::AllocOp>();
    auto swizzle = alloc->getAttrOfType<tile::SwizzleAttr>(kSharedLayoutAttr);
    if (!swizzle && onlyEpilogueUses(alloc, storeOps) &&
        llvm::isPowerOf2_64(uint64_t(shape.cols)) && shape.rows % 8 == 0) {
      llvm::Expected<tile::SwizzleAttr> picked =
          rowMajorSwizzle(ctx, alloc.getType());
      if (picked) {
        swizzle = *picked;
        alloc->setAttr(kSharedLayoutAttr, swizzle);
        alloc->setAttr("tile.align",
                       b.getI64IntegerAttr(simt::kWgmmaOperandAlignment));
      } else {
        llvm::consumeError(picked.takeError());
      }
    }
    if (swizzle && !canonical(swizzle, shape))
      continue;
    bool swizzled = swizzle && swizzle.getMode() != tile::SwizzleMode::none;
    int64_t width =
        swizzled && swizzle.getAtom() ? swizzle.getAtom() : shape.cols;
    if (width > 256)
      continue;
    int64_t rank = cast<MemRefType>(copy.getDst().getType()).getRank();
    SmallVector<int64_t> box;
    for (int64_t d = rank - 1; d >= 0; --d)
      box.push_back(d == rank - 1 ? width : d == shape.rowDim ? shape.rows : 1);
    int64_t bytes =
        swizzled ? int64_t(16) << int64_t(swizzle.getMode()) : int64_t(0);
    copy->setAttr(tile::TmaStoreAttr::getAttrName(),
                  tile::TmaStoreAttr::get(ctx, box, bytes));
    // A TMA box is read from a 128-byte aligned shared address (swizzled
    // ones from the 1024-byte period, above). tile-plan-shared's 16 bytes
    // put kda's Sum_Akk_shared at byte 2832: the kernel faulted.
    int64_t align = 0;
    if (auto want = alloc->getAttrOfType<IntegerAttr>("tile.align"))
      align = want.getInt();
    if (align < kTmaSharedAlignment)
      alloc->setAttr("tile.align", b.getI64IntegerAttr(kTmaSharedAlignment));
  }
}
