//===- LowerGemm.cpp - tile-lower-simt: T.gemm on mma.sync ----------------===//
//
// Applies the decisions of GemmLayouts.cpp inside an outlined kernel.
//
// Operand copies (global -> swizzled shared): the tile is cut into 16-byte
// chunks, chunk q = tid + step * threads (consecutive threads take
// consecutive chunks of a row: coalesced); each is read with one aligned
// 16-byte vector.load when a bounds check of its first element decides it
// (else element by element, out-of-range elements reading zero) and stored
// with one vector.store at its swizzled place.
//
// tile.gemm: the accumulator's layout is read back and checked, register by
// register and thread by thread, to be mma.sync m16n8k16 accumulator tiles
// (4 registers each) placed at a per-warp origin
// (16 * (warp % warpsM), 8 * (warp / warpsM)) plus a constant per tile
// (placeWarps' origin: along a dimension whose warp count is not a power
// of two, each warp's contiguous run instead);
// this yields the warp's list of m16 and n8 tile origins. Then for every
// k-step of 16 (unrolled): one ldmatrix.x4 per m16 tile of A, one
// ldmatrix.x4 (.trans when B is stored N-fastest) per pair of n8 tiles of
// B, whose lanes address the two n8 tiles wherever the tiling puts them,
// and an ldmatrix.x2 for a warp's odd last n8 tile (8 columns per warp,
// as FullCol gives mla_decode's 8 warps over 64 columns); one
// nvvm.mma.sync per accumulator tile (f16 operands as pairs of halves,
// bf16 as 32-bit words). The ldmatrix lane addresses and result registers
// come from the layout library's ldmatrixX4 / ldmatrixX2 plans, checked
// against the mma operand fragments. The accumulator is read from its
// registers once and written back once.
//
// Addresses: nvvm.ldmatrix and nvvm.cp.async take LLVM pointers. They are
// taken out of the memrefs' LLVM descriptors (elementPointer), on a
// memory_space_cast of the shared buffer to the workgroup space that
// tile-lower-shared folds into its view. (The nvgpu ops, which take
// memrefs, were avoided while the nvgpu conversion assumed 64-bit
// indices; targets/common/NVGPUToNVVM.cpp now runs it at the lowering's
// width, so they could be used.) The vendor ops themselves (cp.async,
// ldmatrix, mma.sync) come from the module's DeviceOpBuilder
// (targets/nvptx/NVVMOpBuilder.cpp).
//
//===----------------------------------------------------------------------===//

#include "Partitions.h"
#include "GemmLayouts.h"
#include "DeviceOps.h"
#include "GemmLowering.h"

#include "tilec/Layout/MmaLayouts.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>
#include <optional>

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

std::string errorText(llvm::Error err) {
  return llvm::toString(std::move(err));
}

/// (d0, d1) of `layout` at the named inputs; asserts on failure (the
/// inputs are in range by construction).
std::pair<int64_t, int64_t>
eval2(const LinearLayout &layout,
      llvm::ArrayRef<LinearLayout::NamedValue> ins) {
  llvm::Expected<llvm::SmallVector<LinearLayout::NamedValue>> out =
      layout.apply(ins);
  if (!out) {
    llvm::consumeError(out.takeError());
    return {-1, -1};
  }
  return {(*out)[0].second, (*out)[1].second};
}

Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The runtime value of a linear map lane -> (d0, d1): XOR of the bases of
/// the lane's set bits.
std::pair<Value, Value> laneMap(OpBuilder &b, Location loc,
                                const LinearLayout &layout, Value lane) {
  Value d[2] = {cIdx(b, loc, 0), cIdx(b, loc, 0)};
  int bits = layout.getInDimSizeLog2("lane");
  for (int bit = 0; bit < bits; ++bit) {
    auto [b0, b1] = eval2(layout, {{"lane", int32_t(1) << bit}});
    Value set = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, lane, cIdx(b, loc, bit)),
        cIdx(b, loc, 1));
    int64_t basis[2] = {b0, b1};
    for (int k = 0; k < 2; ++k)
      if (basis[k])
        d[k] = arith::XOrIOp::create(
            b, loc, d[k],
            arith::MulIOp::create(b, loc, set, cIdx(b, loc, basis[k])));
  }
  return {d[0], d[1]};
}

/// The type a GEP over elements of `type` steps by: the type itself, or
/// for the 8-bit floats (no LLVM type) an integer of their width.
Type gepElementType(Type type) {
  if (LLVM::isCompatibleType(type))
    return type;
  return IntegerType::get(type.getContext(), type.getIntOrFloatBitWidth());
}

Value castToWorkgroupImpl(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto to = MemRefType::get(type.getShape(), type.getElementType(),
                            type.getLayout(), space);
  return memref::MemorySpaceCastOp::create(b, loc, to, buffer);
}

/// The LLVM pointer to element `indices` of `buffer` (identity layout, or
/// any strided layout through memref.extract_strided_metadata). The base
/// comes out of the memref's LLVM descriptor: an unrealized cast to the
/// descriptor type the memref-to-LLVM conversion gives it (index fields
/// `indexBits` wide), which the conversion's own cast back cancels. This is
/// how ldmatrix and cp.async get addresses without the nvgpu conversion,
/// which assumes 64-bit indices (see docs/lowering.md).
Value elementPointer(OpBuilder &b, Location loc, Value buffer,
                     ValueRange indices, unsigned indexBits) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<MemRefType>(buffer.getType());
  unsigned space = 0;
  if (auto gpuSpace =
          dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace()))
    space = gpuSpace.getValue() == gpu::AddressSpace::Workgroup ? 3 : 0;
  auto ptrType = LLVM::LLVMPointerType::get(ctx, space);
  Type intType = IntegerType::get(ctx, indexBits);
  SmallVector<Type> fields{ptrType, ptrType, intType};
  if (type.getRank() > 0) {
    auto array = LLVM::LLVMArrayType::get(intType, type.getRank());
    fields.push_back(array);
    fields.push_back(array);
  }
  auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value desc =
      UnrealizedConversionCastOp::create(b, loc, descType, buffer).getResult(0);
  Value base = LLVM::ExtractValueOp::create(b, loc, desc, 1);

  // Linear element offset.
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  Value linear;
  if (succeeded(type.getStridesAndOffset(strides, offset)) &&
      !ShapedType::isDynamic(offset) &&
      llvm::none_of(strides, ShapedType::isDynamic)) {
    // The outermost index of a 3-D buffer (a ring's stage) goes in a GEP
    // of its own: the stage's base is then one value per iteration and
    // every address in it one add of a loop-invariant offset (one combined
    // index would be re-derived per access, as an `or` and a scaling).
    if (type.getRank() == 3) {
      Value stageOffset = arith::IndexCastOp::create(
          b, loc, intType,
          arith::MulIOp::create(b, loc, indices[0], cIdx(b, loc, strides[0])));
      base = LLVM::GEPOp::create(b, loc, ptrType,
                                 gepElementType(type.getElementType()), base,
                                 ValueRange{stageOffset});
      indices = indices.drop_front();
      strides.erase(strides.begin());
    }
    linear = cIdx(b, loc, offset);
    for (auto [index, stride] : llvm::zip(indices, strides))
      linear = arith::AddIOp::create(
          b, loc, linear,
          arith::MulIOp::create(b, loc, index, cIdx(b, loc, stride)));
  } else {
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    linear = meta.getOffset();
    for (auto [index, stride] : llvm::zip(indices, meta.getStrides()))
      linear = arith::AddIOp::create(
          b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  }
  Value linearInt = arith::IndexCastOp::create(b, loc, intType, linear);
  return LLVM::GEPOp::create(b, loc, ptrType,
                             gepElementType(type.getElementType()), base,
                             ValueRange{linearInt});
}

//===----------------------------------------------------------------------===//
// Operand copies
//===----------------------------------------------------------------------===//

Value dimOf(OpBuilder &b, Location loc, Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(d))
    return cIdx(b, loc, type.getDimSize(d));
  return memref::DimOp::create(b, loc, buffer, d);
}

} // namespace

Value simt::castToWorkgroup(OpBuilder &b, Location loc, Value buffer) {
  return castToWorkgroupImpl(b, loc, buffer);
}

Value simt::sharedElementPointer(OpBuilder &b, Location loc, Value buffer,
                                 ValueRange indices, unsigned indexBits) {
  return elementPointer(b, loc, buffer, indices, indexBits);
}

SmallVector<Value, 3> simt::slotIndices(OpBuilder &b, Location loc,
                                        SharedSlot slot, Value row, Value col) {
  auto type = cast<MemRefType>(slot.buffer.getType());
  ArrayRef<int64_t> shape = type.getShape().take_back(2);
  Operation *alloc = slot.buffer.getDefiningOp();
  XorSwizzle swizzle = gemm::readSwizzle(alloc);
  int64_t atom = gemm::readSwizzleAtom(alloc);
  SmallVector<Value, 3> at;
  if (slot.stage)
    at.push_back(slot.stage);
  // A gemm's region: its tile (row, col) is the buffer's (row + r0, col +
  // c0), where the buffer's swizzle applies.
  if (slot.row)
    row = arith::AddIOp::create(b, loc, row, cIdx(b, loc, slot.row));
  if (slot.col)
    col = arith::AddIOp::create(b, loc, col, cIdx(b, loc, slot.col));
  llvm::append_range(
      at, gemm::swizzledIndices(b, loc, shape, swizzle, atom, row, col));
  return at;
}

SharedSlot simt::operandSlot(tile::GemmOp op, unsigned i) {
  std::array<int64_t, 2> origin = op.getOperandOrigin(i);
  return SharedSlot{op.getOperandBuffer(i), op.getOperandStage(i), origin[0],
                    origin[1]};
}

bool simt::asyncCopyOk(Value src, Value c0, int64_t elemBytes) {
  auto type = cast<MemRefType>(src.getType());
  int64_t vec = 16 / elemBytes, last = type.getRank() - 1;
  return !type.isDynamicDim(last) && type.getDimSize(last) % vec == 0 &&
         knownDivisor(c0) % vec == 0;
}

bool simt::emitOperandCopy(KernelLowering &kernel, OpBuilder &b, Location loc,
                           Value src, ValueRange offsets, int64_t rowDim,
                           SharedSlot dst, bool async, Value live) {
  // The tile's rows run along src dimension `rowDim`, its columns along the
  // last (contiguous) one; any other dimension is a fixed index (a head,
  // a batch: FlashAttention's K[b, rows, h, :]).
  int64_t colDim = int64_t(offsets.size()) - 1;
  Value r0 = offsets[rowDim], c0 = offsets[colDim];
  auto at2 = [&](Value row, Value col) {
    SmallVector<Value, 4> indices(offsets.begin(), offsets.end());
    indices[rowDim] = row;
    indices[colDim] = col;
    return indices;
  };
  auto dstType = cast<MemRefType>(dst.buffer.getType());
  Type elem = dstType.getElementType();
  int64_t elemBytes = dstType.getElementTypeBitWidth() / 8;
  int64_t vec = 16 / elemBytes;
  int64_t rows = dstType.getShape().take_back(2)[0];
  int64_t cols = dstType.getShape().take_back(2)[1];
  int64_t chunksPerRow = cols / vec, chunks = rows * chunksPerRow;
  // Inside a T.ws region the region's threads copy (Partitions.h).
  Operation *here = b.getInsertionBlock()->getParentOp();
  int64_t threads = threadsOf(here, kernel.getThreads());
  auto vecType = VectorType::get({vec}, elem);

  Value srcRows = dimOf(b, loc, src, rowDim),
        srcCols = dimOf(b, loc, src, colDim);
  // A bounds check of a chunk's first element decides the chunk when the
  // row length and the column offset are multiples of the chunk, and then
  // the chunk is 16-byte aligned too (the base is, by the launch ABI).
  bool aligned = asyncCopyOk(src, c0, elemBytes);
  async = async && aligned;
  Value shared = async ? castToWorkgroup(b, loc, dst.buffer) : Value();

  // Synchronous copies of a dead iteration are skipped altogether. Async
  // ones stay in the straight-line code (a branch would keep ptxas from
  // interleaving them with the mmas) and copy 0 bytes: the caller gives
  // them a valid address (the last live iteration's).
  std::optional<OpBuilder> guarded;
  if (live && !async) {
    auto ifOp = scf::IfOp::create(b, loc, live, false);
    guarded.emplace(ifOp.getThenBodyBuilder());
  }
  OpBuilder &ob = guarded ? *guarded : b;
  // When a step of `threads` chunks covers whole rows, a thread keeps its
  // column and moves down a constant number of rows per step: its chunks
  // are then constant offsets from its first one (no per-step division).
  bool wholeRows = threads % chunksPerRow == 0;
  Value tid = partitionThreadId(ob, loc, kernel.threadId(), here);
  Value firstRow =
      arith::DivUIOp::create(ob, loc, tid, cIdx(ob, loc, chunksPerRow));
  Value firstCol = arith::MulIOp::create(
      ob, loc,
      arith::RemUIOp::create(ob, loc, tid, cIdx(ob, loc, chunksPerRow)),
      cIdx(ob, loc, vec));
  // With whole-row steps and a static row stride, the source address of
  // step s is the first chunk's plus a constant: one pointer per copy and
  // a constant GEP per chunk (LLVM does not re-derive that from the
  // row * stride + col products, whose disjoint bits it turns into `or`s).
  int64_t srcRowStride = 0;
  {
    SmallVector<int64_t> strides;
    int64_t offset;
    auto srcType = cast<MemRefType>(src.getType());
    if (succeeded(srcType.getStridesAndOffset(strides, offset)) &&
        !ShapedType::isDynamic(strides[rowDim]))
      srcRowStride = strides[rowDim];
  }
  unsigned indexBits = kernel.getOptions().indexBitwidth;
  Value firstSrc, originSrc;
  if (async && wholeRows && srcRowStride) {
    firstSrc = elementPointer(ob, loc, src,
                              at2(arith::AddIOp::create(ob, loc, r0, firstRow),
                                  arith::AddIOp::create(ob, loc, c0, firstCol)),
                              indexBits);
    SmallVector<Value, 4> zeros(offsets.size(), cIdx(ob, loc, 0));
    originSrc = elementPointer(ob, loc, src, zeros, indexBits);
  }
  for (int64_t step = 0; step * threads < chunks; ++step) {
    Value q =
        arith::AddIOp::create(ob, loc, tid, cIdx(ob, loc, step * threads));
    // The per-thread shortcuts hold for steps every thread takes part in;
    // a partial last step addresses its (clamped) chunk q.
    bool fullStep = (step + 1) * threads <= chunks;
    bool stepWhole = wholeRows && fullStep;
    auto body = [&](OpBuilder &ib) {
      Value row, col;
      if (stepWhole) {
        row = arith::AddIOp::create(
            ib, loc, firstRow, cIdx(ib, loc, step * (threads / chunksPerRow)));
        col = firstCol;
      } else {
        row = arith::DivUIOp::create(ib, loc, q, cIdx(ib, loc, chunksPerRow));
        col = arith::MulIOp::create(
            ib, loc,
            arith::RemUIOp::create(ib, loc, q, cIdx(ib, loc, chunksPerRow)),
            cIdx(ib, loc, vec));
      }
      Value gRow = arith::AddIOp::create(ib, loc, r0, row);
      Value gCol = arith::AddIOp::create(ib, loc, c0, col);
      Value rowOk = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult,
                                          gRow, srcRows);
      SmallVector<Value, 3> at = slotIndices(ib, loc, dst, row, col);
      if (async) {
        // cp.async.cg with a source size: 0 bytes read (16 zeros written)
        // for a chunk outside the tensor, whose address is clamped to the
        // tensor's start so it stays a valid global address.
        Value colOk = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult,
                                            gCol, srcCols);
        Value ok = arith::AndIOp::create(ib, loc, rowOk, colOk);
        Value from;
        if (firstSrc && fullStep) {
          Type intType = ib.getIntegerType(indexBits);
          Value delta = arith::ConstantIntOp::create(
              ib, loc, intType, step * (threads / chunksPerRow) * srcRowStride);
          Value stepped = LLVM::GEPOp::create(ib, loc, firstSrc.getType(),
                                              gepElementType(elem), firstSrc,
                                              ValueRange{delta});
          from = arith::SelectOp::create(ib, loc, ok, stepped, originSrc);
        } else {
          Value zero = cIdx(ib, loc, 0);
          Value sr = arith::SelectOp::create(ib, loc, ok, gRow, zero);
          Value sc = arith::SelectOp::create(ib, loc, ok, gCol, zero);
          from = elementPointer(ib, loc, src, at2(sr, sc), indexBits);
        }
        if (live)
          ok = arith::AndIOp::create(ib, loc, ok, live);
        Value to = elementPointer(ib, loc, shared, at, indexBits);
        from = LLVM::AddrSpaceCastOp::create(
            ib, loc, LLVM::LLVMPointerType::get(ib.getContext(), 1), from);
        Type i32 = ib.getI32Type();
        Value bytes = arith::SelectOp::create(
            ib, loc, ok, arith::ConstantIntOp::create(ib, loc, i32, 16),
            arith::ConstantIntOp::create(ib, loc, i32, 0));
        deviceOps(kernel.getFunc()).asyncCopy(ib, loc, to, from, 16, bytes);
        return;
      }
      Value value;
      if (aligned) {
        Value colOk = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult,
                                            gCol, srcCols);
        Value ok = arith::AndIOp::create(ib, loc, rowOk, colOk);
        auto ifOp = scf::IfOp::create(ib, loc, TypeRange{vecType}, ok,
                                      /*withElseRegion=*/true);
        OpBuilder tb = ifOp.getThenBodyBuilder();
        Value loaded =
            vector::LoadOp::create(tb, loc, vecType, src, at2(gRow, gCol),
                                   false, llvm::MaybeAlign(16));
        scf::YieldOp::create(tb, loc, loaded);
        OpBuilder eb = ifOp.getElseBodyBuilder();
        scf::YieldOp::create(
            eb, loc,
            arith::ConstantOp::create(eb, loc, vecType, eb.getZeroAttr(vecType))
                .getResult());
        value = ifOp.getResult(0);
      } else {
        SmallVector<Value> elems;
        for (int64_t e = 0; e < vec; ++e) {
          Value c = arith::AddIOp::create(ib, loc, gCol, cIdx(ib, loc, e));
          Value ok = arith::AndIOp::create(
              ib, loc, rowOk,
              arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult, c,
                                    srcCols));
          auto ifOp = scf::IfOp::create(ib, loc, TypeRange{elem}, ok, true);
          OpBuilder tb = ifOp.getThenBodyBuilder();
          scf::YieldOp::create(
              tb, loc,
              memref::LoadOp::create(tb, loc, src, at2(gRow, c)).getResult());
          OpBuilder eb = ifOp.getElseBodyBuilder();
          scf::YieldOp::create(eb, loc, zeroOf(eb, loc, elem));
          elems.push_back(ifOp.getResult(0));
        }
        value = vector::FromElementsOp::create(ib, loc, vecType, elems);
      }
      vector::StoreOp::create(ib, loc, value, dst.buffer, at, false,
                              llvm::MaybeAlign(16));
    };
    if ((step + 1) * threads <= chunks) {
      body(ob);
    } else if (!async) {
      Value inside = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                           q, cIdx(ob, loc, chunks));
      auto ifOp = scf::IfOp::create(ob, loc, inside, false);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      body(tb);
    } else {
      // Threads past the tile's last chunk copy nothing: clamp them onto
      // chunk 0 with a zero source size... except that would zero chunk 0.
      // Instead they redo the last chunk, an identical copy.
      q = arith::MinUIOp::create(ob, loc, q, cIdx(ob, loc, chunks - 1));
      body(ob);
    }
  }
  return async;
}

//===----------------------------------------------------------------------===//
// tile.gemm
//===----------------------------------------------------------------------===//

FailureOr<MmaSyncGemm> MmaSyncGemm::create(KernelLowering &kernel,
                                           tile::GemmOp op) {
  MmaSyncGemm gemm(kernel, op);
  const Fragment *acc = kernel.fragment(op.getC());
  if (!acc)
    return op.emitError("the accumulator of T.gemm is not a lowered "
                        "fragment");
  gemm.acc = acc;
  tile::MmaAttr mma = gemm::readMma(op);
  if (!mma || mma.getKind() != tile::MmaKind::mma_sync)
    return op.emitError("T.gemm has no mma_sync decision (tile.mma); run "
                        "tile-infer-layouts first");
  gemm.warpsM = mma.getWarpsM();
  gemm.warpsN = mma.getWarpsN();
  if (kernel.fragment(op.getA()) && op.isRegion(0))
    return op.emitError("T.gemm on the mma.sync path: a region of a "
                        "fragment A operand is not supported yet");
  // ldmatrix reads 16-byte rows of the buffer: a region's column origin
  // must keep them whole.
  for (unsigned i : {0u, 1u}) {
    auto type = cast<MemRefType>(op.getOperandBuffer(i).getType());
    int64_t col = op.getOperandOrigin(i)[1];
    if (op.isRegion(i) && (col * type.getElementTypeBitWidth() / 8) % 16)
      return op.emitError()
             << "T.gemm on the mma.sync path: the region of operand "
             << (i ? "B" : "A") << " starts at column " << col
             << ", inside a 16-byte row of ldmatrix (its column offset must "
                "be a multiple of "
             << 128 / type.getElementTypeBitWidth() << ")";
  }
  {
    std::array<int64_t, 2> cShape = op.getOperandShape(2);
    llvm::Expected<WarpPlacement> place = placeWarps(
        16, 8, cShape[0], cShape[1], {gemm.warpsM, gemm.warpsN}, true, true);
    if (!place)
      return op.emitError() << errorText(place.takeError());
    gemm.place = *place;
  }
  gemm.kStep = mma.getK();
  gemm.elemBits =
      cast<MemRefType>(op.getA().getType()).getElementTypeBitWidth();
  llvm::Expected<MmaSyncOperands> operands = mmaSyncOperands(gemm.elemBits);
  if (!operands)
    return op.emitError() << errorText(operands.takeError());
  if (operands->k != gemm.kStep ||
      cast<MemRefType>(op.getB().getType()).getElementTypeBitWidth() !=
          gemm.elemBits)
    return op.emitError() << "T.gemm: the mma_sync decision's K of "
                          << gemm.kStep << " is not that of " << gemm.elemBits
                          << "-bit operands (" << operands->k << ")";
  gemm.atomA = std::move(operands->a);
  gemm.atomB = std::move(operands->b);
  if (failed(gemm.readTiles()) ||
      failed(gemm.elemBits == 16 ? gemm.readPlans() : gemm.readNarrowPlans()))
    return failure();
  gemm.kDim = op.getK();
  gemm.ms.assign(gemm.mTiles.begin(), gemm.mTiles.end());
  gemm.ns.assign(gemm.nTiles.begin(), gemm.nTiles.end());
  // After kDim and the m tiles: the A registers are looked up per both.
  if (const Fragment *a = kernel.fragment(op.getA())) {
    if (gemm.elemBits == 8)
      return op.emitError("T.gemm on the mma.sync path reads a fragment A "
                          "operand only for 16- and 32-bit types");
    gemm.fragA = a;
    if (failed(gemm.readOperandA()))
      return failure();
  }
  return gemm;
}

LogicalResult MmaSyncGemm::readTiles() {
  const Layout &layout = acc->layout;
  lanes = layout.numLanes();
  int64_t regs = layout.numRegisters();
  LinearLayout atom = mmaM16N8K16Accumulator();
  auto fail = [&](const Twine &why) {
    return op.emitError() << "the layout of `" << acc->name
                          << "` is not an mma.sync m16n8k16 accumulator "
                             "tiling for a "
                          << warpsM << "x" << warpsN << " warp split: " << why;
  };
  if (lanes != 32 || regs % 4 || layout.rank() != 2 ||
      layout.numWarps() != warpsM * warpsN)
    return fail("wrong register, lane or warp count");
  // A region of the accumulator: the tiles whose warp-0 origin lies in it,
  // numbered from its origin (every warp's tile must lie in it too).
  auto [r0, c0] = op.getOperandOrigin(2);
  std::array<int64_t, 2> extent = op.getOperandShape(2);
  auto inRegion = [&, r0 = r0, c0 = c0](int64_t m, int64_t n) {
    return m >= r0 && m < r0 + extent[0] && n >= c0 && n < c0 + extent[1];
  };
  for (int64_t g = 0; g < regs / 4; ++g) {
    SmallVector<int64_t> origin = layout.unflatten(layout.elementAt(4 * g, 0));
    if (origin[0] % 16 || origin[1] % 8)
      return fail("a tile does not start on the 16x8 grid");
    if (!inRegion(origin[0], origin[1]))
      continue;
    for (int64_t w = 0; w < layout.numWarps(); ++w)
      for (int64_t l = 0; l < lanes; ++l)
        for (int64_t i = 0; i < 4; ++i) {
          auto [dm, dn] =
              eval2(atom, {{"register", int32_t(i)}, {"lane", int32_t(l)}});
          auto [wm, wn] = place.origin(w);
          int64_t m = origin[0] + wm + dm;
          int64_t n = origin[1] + wn + dn;
          if (layout.elementAt(4 * g + i, w * lanes + l) !=
              layout.flatten({m, n}))
            return fail("register " + Twine(4 * g + i) + " of lane " +
                        Twine(l) + " of warp " + Twine(w));
          if (!inRegion(m, n))
            return fail("warp " + Twine(w) + "'s tile at (" + Twine(m - dm) +
                        ", " + Twine(n - dn) +
                        ") leaves the region; its origin is not on the "
                        "warps' grid of the fragment");
        }
    // Origins relative to the region: they address A's rows and B's
    // columns.
    mTiles.insert(origin[0] - r0);
    nTiles.insert(origin[1] - c0);
    tileOfOrigin[{origin[0] - r0, origin[1] - c0}] = int64_t(groups.size());
    groups.push_back(g);
  }
  if (groups.empty() ||
      int64_t(mTiles.size() * nTiles.size()) != int64_t(groups.size()))
    return fail("the tiles do not form a grid");
  return success();
}

LogicalResult MmaSyncGemm::readOperandA() {
  // For every m16 tile, k-step and mma A register: the fragment register
  // that holds that element, the same one in every lane and warp (checked).
  const Layout &layout = fragA->layout;
  const LinearLayout &atom = atomA;
  const int64_t regs = atomA.getInDimSize("register");
  int64_t threads = layout.numWarps() * lanes;
  auto fail = [&](const Twine &why) {
    return op.emitError() << "the layout of `" << fragA->name
                          << "` is not the mma.sync A operand tiling for a "
                          << warpsM << "x" << warpsN << " warp split: " << why;
  };
  if (layout.rank() != 2 || layout.numLanes() != lanes)
    return fail("wrong rank or lane count");
  std::map<uint64_t, int64_t> registerOf;
  for (int64_t r = 0; r < layout.numRegisters(); ++r)
    registerOf.try_emplace(layout.regFlat(r), r);
  aRegisters.assign(ms.size() * numSteps() * regs, -1);
  for (auto [mi, m0] : llvm::enumerate(ms))
    for (int64_t s = 0; s < numSteps(); ++s)
      for (int32_t r = 0; r < regs; ++r) {
        int64_t &slot = aRegisters[(mi * numSteps() + s) * regs + r];
        for (int64_t t = 0; t < threads; ++t) {
          int64_t w = t / lanes, l = t % lanes;
          auto [dm, dk] = eval2(atom, {{"register", r}, {"lane", int32_t(l)}});
          uint64_t element = layout.flatten(
              {int64_t(m0) + place.origin(w).first + dm, kStep * s + dk});
          if (slot < 0) {
            auto it = registerOf.find(element ^ layout.threadFlat(t));
            if (it == registerOf.end())
              return fail("no register of thread " + Twine(t) + " holds (" +
                          Twine(m0 + place.origin(w).first + dm) + ", " +
                          Twine(kStep * s + dk) + ")");
            slot = it->second;
          }
          if (layout.elementAt(slot, t) != element)
            return fail("register " + Twine(slot) + " of thread " + Twine(t));
        }
      }
  return success();
}

LogicalResult MmaSyncGemm::readPlans() {
  llvm::Expected<LdmatrixPlan> a =
      ldmatrixX4(MmaOperand::A, op.getTransposeA() ? 0 : 1);
  if (!a)
    return op.emitError() << errorText(a.takeError());
  llvm::Expected<LdmatrixPlan> b =
      ldmatrixX4(MmaOperand::B, op.getTransposeB() ? 0 : 1);
  if (!b)
    return op.emitError() << errorText(b.takeError());
  planA = std::move(*a);
  planB = std::move(*b);
  LinearLayout opA = mmaM16N8K16OperandA(), opB = mmaM16N8K16OperandB();
  for (int32_t l = 0; l < 32; ++l) {
    for (int32_t r = 0; r < 8; ++r)
      if (eval2(planA.fragment, {{"register", r}, {"lane", l}}) !=
          eval2(opA, {{"register", r}, {"lane", l}}))
        return op.emitError("ldmatrix.x4 does not deliver the mma.sync A "
                            "fragment");
  }
  // Which ldmatrix register feeds which register of which n8 half.
  for (int32_t r = 0; r < 8; ++r) {
    auto [k, n] = eval2(planB.fragment, {{"register", r}, {"lane", 0}});
    int64_t half = n / 8, j = (k & 1) | ((k >> 3) << 1);
    if (half > 1 || j > 3)
      return op.emitError("unexpected ldmatrix.x4 B fragment");
    bRegister[half][j] = r;
  }
  // mma takes B as two 32-bit words per n8 tile: registers (b0, b1) and
  // (b2, b3) must each be one ldmatrix word.
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t j = 0; j < 2; ++j) {
      if (bRegister[h][2 * j] % 2 != 0 ||
          bRegister[h][2 * j + 1] != bRegister[h][2 * j] + 1)
        return op.emitError("ldmatrix.x4 does not deliver the mma.sync B "
                            "fragment in whole words");
      bWord[h][j] = bRegister[h][2 * j] / 2;
    }
  for (int32_t l = 0; l < 32; ++l)
    for (int64_t h = 0; h < 2; ++h)
      for (int32_t j = 0; j < 4; ++j) {
        auto [k, n] =
            eval2(planB.fragment,
                  {{"register", int32_t(bRegister[h][j])}, {"lane", l}});
        auto [ek, en] = eval2(opB, {{"register", j}, {"lane", l}});
        if (k != ek || n != en + 8 * h)
          return op.emitError("ldmatrix.x4 does not deliver two mma.sync "
                              "B fragments");
      }
  // A warp's odd last n8 tile: ldmatrix.x2, whose words must be (b0, b1)
  // and (b2, b3) of that tile, in order.
  llvm::Expected<LdmatrixPlan> b2 =
      ldmatrixX2(MmaOperand::B, op.getTransposeB() ? 0 : 1);
  if (!b2)
    return op.emitError() << errorText(b2.takeError());
  planB2 = std::move(*b2);
  for (int32_t l = 0; l < 32; ++l)
    for (int32_t j = 0; j < 4; ++j)
      if (eval2(planB2.fragment, {{"register", j}, {"lane", l}}) !=
          eval2(opB, {{"register", j}, {"lane", l}}))
        return op.emitError("ldmatrix.x2 does not deliver the mma.sync B "
                            "fragment");
  return success();
}

/// `layout` with dimension `dim`'s basis values multiplied by num / den
/// (exact: ldmatrix row starts along K are multiples of 8 b16 units).
static LinearLayout scaleDim(const LinearLayout &layout, int dim, int num,
                             int den) {
  std::vector<LinearLayout::InDim> ins(layout.getInDims().begin(),
                                       layout.getInDims().end());
  for (LinearLayout::InDim &in : ins)
    for (LinearLayout::Basis &v : in.bases)
      v[dim] = v[dim] * num / den;
  SmallVector<LinearLayout::NamedSize, 2> outs;
  for (auto [d, out] : llvm::enumerate(layout.getOutDims())) {
    int32_t size = int32_t(1) << out.log2Size;
    outs.push_back(
        {out.name, int(d) == dim ? std::max(1, size * num / den) : size});
  }
  return llvm::cantFail(LinearLayout::create(std::move(ins), outs));
}

LogicalResult MmaSyncGemm::readNarrowPlans() {
  // tf32 and 8-bit operands: a b16 ldmatrix when K is the contiguous dim
  // (A not transposed, B transposed), its words read as elements of the
  // operand's width and checked against the instruction's fragments; the
  // row starts it takes in b16 units become elements. Else element loads.
  ldmatrixA = !op.getTransposeA();
  ldmatrixB = op.getTransposeB();
  int num = elemBits == 8 ? 2 : 1, den = elemBits == 32 ? 2 : 1;
  int64_t perWord = 32 / elemBits;
  auto asElements = [&](const LdmatrixPlan &plan,
                        int kDimOfTile) -> FailureOr<LinearLayout> {
    llvm::Expected<LinearLayout> layout =
        ldmatrixAsElements(plan, kDimOfTile, int(elemBits));
    if (!layout)
      return op.emitError() << errorText(layout.takeError());
    return std::move(*layout);
  };
  if (ldmatrixA) {
    llvm::Expected<LdmatrixPlan> a = ldmatrixX4(MmaOperand::A, 1);
    if (!a)
      return op.emitError() << errorText(a.takeError());
    FailureOr<LinearLayout> got = asElements(*a, 1);
    if (failed(got))
      return failure();
    if (*got != atomA)
      return op.emitError() << "ldmatrix.x4 does not deliver the mma.sync "
                            << elemBits << "-bit A fragment";
    planA = std::move(*a);
    planA.rowStart = scaleDim(planA.rowStart, 1, num, den);
  }
  if (!ldmatrixB)
    return success();
  llvm::Expected<LdmatrixPlan> b4 = ldmatrixX4(MmaOperand::B, 0);
  if (!b4)
    return op.emitError() << errorText(b4.takeError());
  FailureOr<LinearLayout> pair = asElements(*b4, 0);
  if (failed(pair))
    return failure();
  // Which ldmatrix word holds which mma word of which n8 tile of the pair.
  for (int64_t x = 0; x < 4; ++x) {
    auto [k, n] = eval2(*pair, {{"register", int32_t(x * perWord)}});
    int64_t half = n / 8, j = -1;
    for (int64_t cand = 0; cand < 2; ++cand)
      if (eval2(atomB, {{"register", int32_t(cand * perWord)}}).first == k)
        j = cand;
    if (half > 1 || j < 0)
      return op.emitError("unexpected ldmatrix.x4 B fragment");
    bWord[half][j] = x;
    for (int32_t l = 0; l < 32; ++l)
      for (int64_t e = 0; e < perWord; ++e) {
        auto got =
            eval2(*pair, {{"register", int32_t(x * perWord + e)}, {"lane", l}});
        auto want =
            eval2(atomB, {{"register", int32_t(j * perWord + e)}, {"lane", l}});
        if (got.first != want.first || got.second != want.second + 8 * half)
          return op.emitError() << "ldmatrix.x4 does not deliver two "
                                   "mma.sync "
                                << elemBits << "-bit B fragments";
      }
  }
  llvm::Expected<LdmatrixPlan> b2 = ldmatrixX2(MmaOperand::B, 0);
  if (!b2)
    return op.emitError() << errorText(b2.takeError());
  FailureOr<LinearLayout> one = asElements(*b2, 0);
  if (failed(one))
    return failure();
  if (*one != atomB)
    return op.emitError() << "ldmatrix.x2 does not deliver the mma.sync "
                          << elemBits << "-bit B fragment";
  planB = std::move(*b4);
  planB2 = std::move(*b2);
  planB.rowStart = scaleDim(planB.rowStart, 0, num, den);
  planB2.rowStart = scaleDim(planB2.rowStart, 0, num, den);
  return success();
}

Value MmaSyncGemm::loadWord(OpBuilder &b, SharedSlot slot,
                            const LinearLayout &atom, int64_t word, Value row0,
                            Value col0, bool transposed) {
  int64_t perWord = 32 / elemBits;
  Type i32 = b.getI32Type();
  Type bits = b.getIntegerType(elemBits);
  Value packed;
  for (int64_t e = 0; e < perWord; ++e) {
    auto [d0, d1] = eval2(atom, {{"register", int32_t(word * perWord + e)}});
    Value r = arith::AddIOp::create(b, loc, row0, cIdx(b, loc, d0));
    Value c = arith::AddIOp::create(b, loc, col0, cIdx(b, loc, d1));
    if (transposed)
      std::swap(r, c);
    Value elem = memref::LoadOp::create(b, loc, slot.buffer,
                                        slotIndices(b, loc, slot, r, c));
    Value raw = arith::BitcastOp::create(b, loc, bits, elem);
    if (elemBits == 32)
      return raw;
    // Element e is byte e of the word (the PTX fragments' low to high).
    Value wide = arith::ExtUIOp::create(b, loc, i32, raw);
    if (e)
      wide = arith::ShLIOp::create(
          b, loc, wide, arith::ConstantIntOp::create(b, loc, i32, 8 * e));
    packed = packed ? arith::OrIOp::create(b, loc, packed, wide) : wide;
  }
  return packed;
}

void MmaSyncGemm::setUp(OpBuilder &b, SharedSlot slotA, SharedSlot slotB) {
  Value bufferA = slotA.buffer, bufferB = slotB.buffer;
  originA = {slotA.row, slotA.col};
  originB = {slotB.row, slotB.col};
  Value tid = partitionThreadId(b, loc, kernel->threadId(), op);
  Value lane = arith::RemUIOp::create(b, loc, tid, cIdx(b, loc, lanes));
  Value warp = arith::DivUIOp::create(b, loc, tid, cIdx(b, loc, lanes));
  // The warp's coordinates as WarpPlacement::coords numbers them: the
  // warps along M are the low ones unless their count is not a power of
  // two.
  int64_t low = place.mMinor ? warpsM : warpsN;
  auto coord = [&](bool isLow) -> Value {
    if (isLow)
      return arith::RemUIOp::create(b, loc, warp, cIdx(b, loc, low));
    return arith::DivUIOp::create(b, loc, warp, cIdx(b, loc, low));
  };
  warpRow = arith::MulIOp::create(b, loc, coord(place.mMinor),
                                  cIdx(b, loc, place.strideM));
  warpCol = arith::MulIOp::create(b, loc, coord(!place.mMinor),
                                  cIdx(b, loc, place.strideN));
  std::tie(aRow, aCol) =
      laneMap(b, loc, ldmatrixA ? planA.rowStart : atomA, lane);
  Value bCol;
  std::tie(bRow, bCol) =
      laneMap(b, loc, ldmatrixB ? planB.rowStart : atomB, lane);
  bElemCol = bCol;
  // B lanes addressing columns 8..15 of the x4 block go to the second n8
  // tile of the pair.
  bHigh = arith::ShRUIOp::create(b, loc, bCol, cIdx(b, loc, 3));
  bLow = arith::AndIOp::create(b, loc, bCol, cIdx(b, loc, 7));
  // Only a warp with an odd n8 tile count needs the x2 lane addresses
  // (kept out of the even case's code).
  if (ns.size() % 2 && ldmatrixB)
    std::tie(bRow2, bCol2) = laneMap(b, loc, planB2.rowStart, lane);
  this->bufferA = bufferA;
  this->bufferB = bufferB;
  if (!fragA)
    sharedA = castToWorkgroup(b, loc, bufferA);
  sharedB = castToWorkgroup(b, loc, bufferB);
}

Type MmaSyncGemm::inputType() {
  return cast<MemRefType>(op.getA().getType()).getElementType();
}

SmallVector<Value> MmaSyncGemm::loadFragments(OpBuilder &b, Value stageA,
                                              Value stageB, int64_t step) {
  Type in = inputType();
  int64_t k0 = kStep * step;
  // f16 operands go to mma as pairs of halves, bf16 ones as i32 words.
  auto operand = [&](Value word) -> Value {
    if (!in.isF16())
      return word;
    return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, in), word);
  };
  SharedSlot slotA{bufferA, stageA, originA.first, originA.second},
      slotB{bufferB, stageB, originB.first, originB.second};
  SmallVector<Value> frags;
  if (fragA) {
    // A from registers: pairs of elements packed as mma wants them (one
    // tf32 element per word).
    int64_t regs = atomA.getInDimSize("register");
    assert(int64_t(aRegisters.size()) ==
               int64_t(ms.size()) * numSteps() * regs &&
           "readOperandA ran before the tiles were known");
    auto pairType = VectorType::get({2}, in);
    for (size_t mi = 0; mi < ms.size(); ++mi)
      for (int64_t j = 0; j < 4; ++j) {
        int64_t base = (int64_t(mi) * numSteps() + step) * regs;
        if (elemBits == 32) {
          Value e = kernel->loadRegister(b, loc, *fragA, aRegisters[base + j]);
          frags.push_back(
              arith::BitcastOp::create(b, loc, b.getI32Type(), e));
          continue;
        }
        base += 2 * j;
        Value lo = kernel->loadRegister(b, loc, *fragA, aRegisters[base]);
        Value hi = kernel->loadRegister(b, loc, *fragA, aRegisters[base + 1]);
        Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                                    ValueRange{lo, hi});
        if (!in.isF16())
          pair = LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair);
        frags.push_back(pair);
      }
  }
  for (int64_t m0 : fragA ? ArrayRef<int64_t>() : ArrayRef<int64_t>(ms)) {
    Value m = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, warpRow, aRow), cIdx(b, loc, m0));
    Value k = arith::AddIOp::create(b, loc, aCol, cIdx(b, loc, k0));
    if (!ldmatrixA) {
      for (int64_t w = 0; w < 4; ++w)
        frags.push_back(loadWord(b, slotA, atomA, w, m, k, op.getTransposeA()));
      continue;
    }
    Value r = op.getTransposeA() ? k : m, c = op.getTransposeA() ? m : k;
    SmallVector<Value, 3> at = slotIndices(b, loc, slotA, r, c);
    for (Value word : loadMatrices(b, sharedA, at, planA.trans))
      frags.push_back(operand(word));
  }
  SmallVector<Value> bFrags(2 * ns.size());
  if (!ldmatrixB) {
    // (k, n) of the lane's first element, then each word's elements.
    for (auto [ni, n0] : llvm::enumerate(ns)) {
      Value k = arith::AddIOp::create(b, loc, bRow, cIdx(b, loc, k0));
      Value n = arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, warpCol, bElemCol),
          cIdx(b, loc, n0));
      for (int64_t j = 0; j < 2; ++j)
        bFrags[2 * ni + j] =
            loadWord(b, slotB, atomB, j, k, n, op.getTransposeB());
    }
    llvm::append_range(frags, bFrags);
    return frags;
  }
  for (size_t p = 0; p + 1 < ns.size(); p += 2) {
    // n = warpCol + (col & 7) + (col < 8 ? ns[p] : ns[p + 1]).
    Value pick =
        arith::MulIOp::create(b, loc, bHigh, cIdx(b, loc, ns[p + 1] - ns[p]));
    Value n = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, warpCol,
                              arith::AddIOp::create(b, loc, bLow, pick)),
        cIdx(b, loc, ns[p]));
    Value k = arith::AddIOp::create(b, loc, bRow, cIdx(b, loc, k0));
    Value r = op.getTransposeB() ? n : k, c = op.getTransposeB() ? k : n;
    SmallVector<Value, 3> at = slotIndices(b, loc, slotB, r, c);
    SmallVector<Value, 4> words = loadMatrices(b, sharedB, at, planB.trans);
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t j = 0; j < 2; ++j)
        bFrags[2 * (p + h) + j] = operand(words[bWord[h][j]]);
  }
  if (ns.size() % 2) {
    // The last n8 tile alone: one ldmatrix.x2, words (b0, b1), (b2, b3).
    Value n = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, warpCol, bCol2),
        cIdx(b, loc, ns.back()));
    Value k = arith::AddIOp::create(b, loc, bRow2, cIdx(b, loc, k0));
    Value r = op.getTransposeB() ? n : k, c = op.getTransposeB() ? k : n;
    SmallVector<Value, 3> at = slotIndices(b, loc, slotB, r, c);
    SmallVector<Value, 4> words =
        loadMatrices(b, sharedB, at, planB2.trans, /*numMatrices=*/2);
    for (int64_t j = 0; j < 2; ++j)
      bFrags[2 * (ns.size() - 1) + j] = operand(words[j]);
  }
  llvm::append_range(frags, bFrags);
  return frags;
}

SmallVector<Value> MmaSyncGemm::loadAccumulators(OpBuilder &b) {
  // f32, or s32 for int8 products.
  Type accType = acc->elementType;
  Value zero =
      arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
  SmallVector<Value> accs;
  for (int64_t g : groups)
    for (int64_t i = 0; i < 4; ++i)
      accs.push_back(op.getClearAccum()
                         ? zero
                         : kernel->loadRegister(b, loc, *acc, 4 * g + i));
  return accs;
}

void MmaSyncGemm::storeAccumulators(OpBuilder &b, ValueRange accs) {
  for (auto [r, value] : llvm::enumerate(accs))
    kernel->storeRegister(b, loc, *acc, 4 * groups[r / 4] + int64_t(r % 4),
                          value);
}

void MmaSyncGemm::mmaStep(OpBuilder &b, ValueRange frags,
                          MutableArrayRef<Value> accs) {
  Type in = inputType();
  Type bType = cast<MemRefType>(op.getB().getType()).getElementType();
  const DeviceOpBuilder &device = deviceOps(op);
  size_t bBase = 4 * ms.size();
  for (size_t mi = 0; mi < ms.size(); ++mi)
    for (size_t ni = 0; ni < ns.size(); ++ni) {
      // Serpentine order over n: consecutive mmas share a fragment.
      size_t nj = mi % 2 ? ns.size() - 1 - ni : ni;
      int64_t g = tileOfOrigin[{ms[mi], ns[nj]}];
      SmallVector<Value, 4> d = device.mmaSync(
          b, loc, MmaShape{16, 8, kStep}, in, bType, frags.slice(4 * mi, 4),
          frags.slice(bBase + 2 * nj, 2), accs.slice(4 * g, 4));
      for (int64_t i = 0; i < 4; ++i)
        accs[4 * g + i] = d[i];
    }
}

/// ldmatrix .x4 / .x2 (.trans) at `at` of `shared`: the 32-bit registers
/// (register i: elements 2i, 2i + 1 of the ldmatrix plan).
SmallVector<Value, 4> MmaSyncGemm::loadMatrices(OpBuilder &b, Value shared,
                                                ValueRange at, bool trans,
                                                int numMatrices) {
  Value ptr =
      elementPointer(b, loc, shared, at, kernel->getOptions().indexBitwidth);
  return deviceOps(op).matrixLoad(b, loc, ptr, numMatrices, trans);
}

LogicalResult simt::emitGemm(KernelLowering &kernel, OpBuilder &b,
                             tile::GemmOp op, SharedSlot a, SharedSlot bSlot,
                             bool asyncFenced) {
  if (tile::MmaAttr mma = gemm::readMma(op);
      mma && mma.getKind() == tile::MmaKind::wgmma)
    return emitWgmmaGemm(kernel, b, op, a, bSlot, asyncFenced);
  FailureOr<MmaSyncGemm> gemm = MmaSyncGemm::create(kernel, op);
  if (failed(gemm))
    return failure();
  gemm->setUp(b, a, bSlot);
  SmallVector<Value> accs = gemm->loadAccumulators(b);
  // Register double buffering: the fragments of k-step s + 1 are loaded
  // before the mmas of step s are issued, so every ldmatrix has a whole
  // step of mmas to complete behind.
  SmallVector<Value> current = gemm->loadFragments(b, a.stage, bSlot.stage, 0);
  for (int64_t s = 0; s < gemm->numSteps(); ++s) {
    SmallVector<Value> next;
    if (s + 1 < gemm->numSteps())
      next = gemm->loadFragments(b, a.stage, bSlot.stage, s + 1);
    gemm->mmaStep(b, current, accs);
    current = std::move(next);
  }
  gemm->storeAccumulators(b, accs);
  return success();
}

LogicalResult simt::lowerOperandCopies(KernelLowering &kernel) {
  SmallVector<tile::CopyOp> copies;
  kernel.getFunc().walk([&](tile::CopyOp copy) {
    Operation *dst = copy.getDst().getDefiningOp();
    if (dst && dst->hasAttr(gemm::kSharedLayoutAttr) &&
        gemm::isOperandCopy(copy))
      copies.push_back(copy);
  });
  for (tile::CopyOp copy : copies) {
    OpBuilder b(copy);
    emitOperandCopy(kernel, b, copy.getLoc(), copy.getSrc(),
                    copy.getSrcOffsets(), gemm::operandRowDim(copy),
                    SharedSlot{copy.getDst(), Value()}, /*async=*/false,
                    /*live=*/Value());
    copy.erase();
  }
  return success();
}

LogicalResult simt::lowerMmaSyncGemm(KernelLowering &kernel, tile::GemmOp op) {
  OpBuilder b(op);
  if (failed(emitGemm(kernel, b, op, operandSlot(op, 0), operandSlot(op, 1))))
    return failure();
  op.erase();
  return success();
}

LogicalResult simt::lowerGemms(KernelLowering &kernel,
                               const TargetInfo &target) {
  FailureOr<llvm::DenseSet<Operation *>> fenced = lowerWgmmaWaits(kernel);
  if (failed(fenced))
    return failure();
  SmallVector<tile::GemmOp> gemms;
  kernel.getFunc().walk([&](tile::GemmOp op) { gemms.push_back(op); });
  for (tile::GemmOp op : gemms) {
    tile::MmaAttr mma = gemm::readMma(op);
    if (!mma)
      return op.emitError("T.gemm has no instruction decision (tile.mma); "
                          "run tile-infer-layouts first");
    // A decision injected by hand (or made for another module) must name
    // an instruction of this chip: the lowering follows it, never fixes it.
    if (!gemm::targetHasMma(target, mma))
      return op.emitError()
             << "T.gemm: " << target.chip() << " has no "
             << tile::stringifyMmaKind(mma.getKind()) << " instruction "
             << mma.getInstruction() << " of shape " << mma.getM() << "x"
             << mma.getN() << "x" << mma.getK();
    LogicalResult lowered = failure();
    switch (mma.getKind()) {
    case tile::MmaKind::mma_sync:
      lowered = lowerMmaSyncGemm(kernel, op);
      break;
    case tile::MmaKind::mfma:
      lowered = lowerMfmaGemm(kernel, op);
      break;
    case tile::MmaKind::wgmma:
      lowered = lowerWgmmaGemm(kernel, op, fenced->contains(op.getOperation()));
      break;
    }
    if (failed(lowered))
      return failure();
  }
  return success();
}
