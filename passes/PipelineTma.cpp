//===- PipelineTma.cpp - TMA loads for pipelined wgmma operand copies -----===//
//
// On chips with TMA (sm_90a) the operand copies of a pipelined wgmma loop
// become tensor-memory-accelerator loads, issued by one thread and tracked
// by an mbarrier per ring slot (PipelineLoops.cpp's steadyWgmma drives
// them):
//
// - the tensor's map (CUtensorMap) is a kernel parameter: a 128-byte
//   `__grid_constant__` by-value argument appended to the kernel,
//   described by its `tile.tensor_map` argument attribute {tensor =
//   prim_func parameter, box = innermost first, swizzle = bytes} (targets/
//   makes it `llvm.byval`, aligned to 64 and `nvvm.grid_constant` on the
//   LLVM kernel); the launch header encodes it with
//   cuTensorMapEncodeTiled from the tensor's pointer and (dynamic) shape
//   (LaunchInfo.cpp, targets/header). The host-side launch description
//   passes a null placeholder for it;
// - one box per swizzle atom of the destination: boxes of W x rows
//   elements (W = the swizzle width in elements, the widest box a swizzled
//   map may have) land on the atom layout wgmma's descriptors read, TMA
//   applying the same XOR the canonical layout names (so the shared
//   buffers start on the 1024-byte period, as for wgmma);
// - elements past the tensor's edges read as zero (TMA's bounds), so a
//   partial tile needs no guard; the barrier still counts the whole box;
// - `mbarrier.arrive.expect_tx(full[s], bytes)` then the loads, by thread
//   0; every thread waits with `mbarrier.try_wait.parity(full[s], phase)`.
//
// A copy qualifies when its source is a kernel argument (a global tensor,
// row-major, possibly rebuilt from a base pointer with dynamic sizes)
// whose innermost dimension is static with rows of whole 16-byte units,
// its box is at most 256 rows and the destination has a canonical swizzle.
// The epilogues' TMA stores (LowerTmaStore.cpp) get their maps from the
// same tensorMapArgument, keyed on {tensor, box, swizzle}.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLayouts.h"
#include "GemmLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

} // namespace

/// An argument of the gpu.func, or before outlining (tile-plan-warp-
/// specialize asks) of the prim_func.
BlockArgument simt::tmaTensorArgument(Value src) {
  // A `T.Tensor(shape, dtype, X.data)` view (`tile.view`) has a shape of its
  // own, which the descriptor of the argument would not describe.
  if (auto cast = src.getDefiningOp<memref::ReinterpretCastOp>()) {
    if (cast->hasAttr("tile.view"))
      return {};
    src = cast.getSource();
  }
  auto arg = dyn_cast<BlockArgument>(src);
  if (!arg || !isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return {};
  return arg;
}

std::optional<TmaCopy> simt::planTmaCopy(tile::CopyOp copy, Value dstBuffer,
                                         std::string &why,
                                         bool rowsCheckedAtLaunch) {
  BlockArgument arg = tmaTensorArgument(copy.getSrc());
  if (!arg) {
    why = "the source is not a kernel argument";
    return std::nullopt;
  }
  auto src = cast<MemRefType>(copy.getSrc().getType());
  auto dst = cast<MemRefType>(dstBuffer.getType());
  auto swizzle = dstBuffer.getDefiningOp()->getAttrOfType<tile::SwizzleAttr>(
      gemm::kSharedLayoutAttr);
  if (!swizzle || swizzle.getMode() == tile::SwizzleMode::none) {
    why = "the destination has no canonical swizzle";
    return std::nullopt;
  }
  int64_t rank = src.getRank();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (rank > 5 || failed(src.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1) {
    why = "the source is not a row-major tensor of at most 5 dimensions";
    return std::nullopt;
  }
  TmaCopy plan;
  plan.copy = copy;
  plan.argIndex = arg.getArgNumber();
  plan.elemBytes = dst.getElementTypeBitWidth() / 8;
  plan.rows = dst.getShape().take_back(2)[0];
  plan.bufferCols = dst.getShape().take_back(2)[1];
  plan.width = swizzle.getAtom() ? swizzle.getAtom() : plan.bufferCols;
  plan.swizzleBytes = int64_t(16) << int64_t(swizzle.getMode());
  // The destination box: whole rows of the tile (of a ring's stage, for a
  // 3-D buffer), columns from an atom boundary in whole atoms: TMA then
  // writes those atoms of the canonical layout, one box each.
  ArrayRef<int64_t> dstExtents = copy.getDstExtents();
  ValueRange dstOffsets = copy.getDstOffsets();
  plan.cols = dstExtents.back();
  // Offsets folded through the arithmetic a fully unrolled T.unroll loop
  // leaves (`64 * j` with j a constant per copy; FlashMLA's KV atoms).
  llvm::DenseMap<Value, int64_t> env;
  std::optional<int64_t> col0 = dstOffsets.empty()
                                    ? std::optional<int64_t>(0)
                                    : evalIndex(dstOffsets.back(), env);
  std::optional<int64_t> row0 =
      dstOffsets.size() < 2 ? std::optional<int64_t>(0)
                            : evalIndex(dstOffsets.drop_back().back(), env);
  int64_t boxRows = dstExtents.size() < 2 ? 1 : dstExtents.drop_back().back();
  bool leadingUnits =
      llvm::all_of(dstExtents.drop_back(2), [](int64_t e) { return e == 1; });
  if (!col0 || !row0 || *row0 != 0 || boxRows != plan.rows || !leadingUnits ||
      *col0 % plan.width || plan.cols % plan.width) {
    why = "the destination is not whole rows and whole " +
          std::to_string(plan.width) + "-column swizzle atoms of the tile";
    return std::nullopt;
  }
  plan.col0 = *col0;
  // The source dimension the rows run along: the one other extent that is
  // not 1 (the last but one when every other extent is 1).
  {
    ArrayRef<int64_t> extents = copy.getSrcExtents();
    int64_t last = int64_t(extents.size()) - 1, wide = 0;
    plan.rowDim = last - 1;
    for (int64_t d = 0; d < last; ++d)
      if (extents[d] != 1) {
        plan.rowDim = d;
        ++wide;
      }
    if (last < 1 || wide > 1 || extents[last] != plan.cols ||
        extents[plan.rowDim] != plan.rows)
      plan.rowDim = -1;
  }
  if (src.isDynamicDim(rank - 1)
          ? !rowsCheckedAtLaunch
          : src.getDimSize(rank - 1) * plan.elemBytes % 16) {
    why = "the source's rows are not static whole 16-byte units";
    return std::nullopt;
  }
  if (plan.rowDim < 0 || plan.rows > 256 ||
      plan.width * plan.elemBytes != plan.swizzleBytes) {
    why = "the box does not fit a TMA load";
    return std::nullopt;
  }
  return plan;
}

Value simt::tensorMapArgument(gpu::GPUFuncOp func, const TmaCopy &plan) {
  tile::CopyOp copy = plan.copy;
  int64_t rank = cast<MemRefType>(copy.getSrc().getType()).getRank();
  // Box extents, innermost dimension first.
  SmallVector<int64_t> box;
  for (int64_t d = rank - 1; d >= 0; --d)
    box.push_back(d == rank - 1      ? plan.width
                  : d == plan.rowDim ? plan.rows
                                     : 1);
  return tensorMapArgument(func, plan.argIndex, box, plan.swizzleBytes);
}

Value simt::tensorMapArgument(gpu::GPUFuncOp func, int64_t tensor,
                              ArrayRef<int64_t> box, int64_t swizzleBytes) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  auto desc = b.getDictionaryAttr({
      b.getNamedAttr("tensor", b.getI64IntegerAttr(tensor)),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
      b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzleBytes)),
  });
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, "tile.tensor_map") == desc)
      return func.getArgument(i);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto attrs = b.getDictionaryAttr({b.getNamedAttr("tile.tensor_map", desc)});
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, ptr, attrs, func.getLoc())))
    return {};
  // The argument positions, for targets/ to make them 128-byte by-value
  // grid constants on the LLVM kernel (argument attributes other than
  // LLVM's own do not survive the GPU-to-NVVM conversion; function ones do).
  SmallVector<int64_t> positions;
  if (auto old = func->getAttrOfType<DenseI64ArrayAttr>("tile.tensor_map_args"))
    llvm::append_range(positions, old.asArrayRef());
  positions.push_back(index);
  func->setAttr("tile.tensor_map_args", b.getDenseI64ArrayAttr(positions));
  // The host-side launch description passes a placeholder: the launch
  // header builds the map.
  auto module = func->getParentOfType<gpu::GPUModuleOp>();
  if (Operation *top = module ? module->getParentOp() : nullptr)
    top->walk([&](gpu::LaunchFuncOp launch) {
      if (launch.getKernelModuleName() != module.getName() ||
          launch.getKernelName() != func.getName())
        return;
      OpBuilder lb(launch);
      Value null = LLVM::ZeroOp::create(lb, launch.getLoc(), ptr);
      launch.getKernelOperandsMutable().append(null);
    });
  return func.getArgument(index);
}

void simt::issueTmaCopy(OpBuilder &b, Location loc, const TmaCopy &plan,
                        Value map, SharedSlot dst, ValueRange srcOffsets,
                        Value mbar, unsigned indexBits) {
  Type i32 = b.getI32Type();
  Value shared = castToWorkgroup(b, loc, dst.buffer);
  int64_t rank = int64_t(srcOffsets.size());
  int64_t bufferCols = plan.bufferCols ? plan.bufferCols : plan.cols;
  for (int64_t atom = 0; atom * plan.width < plan.cols; ++atom) {
    // The atom's first element, as (row, col) of the buffer's own shape
    // (a box from column col0 on fills the atoms from col0 / width on).
    int64_t start = (plan.col0 / plan.width + atom) * plan.rows * plan.width;
    SmallVector<Value, 3> at;
    if (dst.stage)
      at.push_back(dst.stage);
    at.push_back(cIdx(b, loc, start / bufferCols));
    at.push_back(cIdx(b, loc, start % bufferCols));
    // The shared::cluster form (PTX 7.8; the shared::cta one needs 8.6):
    // this CTA's shared address cast into the cluster window.
    Value to = LLVM::AddrSpaceCastOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7),
        sharedElementPointer(b, loc, shared, at, indexBits));
    SmallVector<Value> coords;
    for (int64_t d = rank - 1; d >= 0; --d) {
      Value c = srcOffsets[d];
      if (d == rank - 1 && atom)
        c = arith::AddIOp::create(b, loc, c, cIdx(b, loc, atom * plan.width));
      coords.push_back(arith::IndexCastOp::create(b, loc, i32, c));
    }
    simt::deviceOps(b.getInsertionBlock()->getParentOp())
        .tmaLoad(b, loc, to, map, coords, mbar);
  }
}
