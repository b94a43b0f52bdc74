//===- LowerGemmWgmma.cpp - tile-lower-simt: T.gemm on wgmma --------------===//
//
// Applies the wgmma decisions of GemmLayoutsWgmma.cpp inside an outlined
// kernel. Warpgroup g (threads 128g .. 128g + 127) owns the mWG x nWG tile
// at (g % groupsM, g / groupsM) of the accumulator; it issues, per k-step
// of K = 16 (f16 / bf16) or 32 (e4m3 / e5m2), one `wgmma.mma_async.m64nNkK`
// per (m64 block, N block) of its tile, reading both operands from shared
// memory through descriptors:
//
//   desc = (addr >> 4) | (LBO >> 4) << 16 | (SBO >> 4) << 32 | mode << 62
//
// for the buffer's canonical layout (`#tile.swizzle<mode, ..., atom = W>`:
// W columns per atom, every atom rows x W, 8 rows of an atom = one swizzle
// period): along K the window of a k-step is 16 columns inside an atom
// (its start address moves by 32 bytes per step, whatever the type; the
// hardware applies the swizzle to address bits, which is why buffers are
// aligned to the period); along M or N the instruction spans atoms at LBO =
// rows * W * elemBytes (MN-major) and groups of 8 rows at SBO = 8 * W *
// elemBytes.
//
// The accumulator registers: the layout recorded on C is checked, thread
// by thread, to hold in register regOf[instr][i] what wgmma's D fragment
// puts in its register i; the registers are gathered into the struct the
// instruction takes and scattered back after `wgmma.wait_group 0`. Each
// value read back passes through an empty volatile asm placed after the
// wait, so no use of an accumulator is scheduled before the wait (the
// instruction writes its registers asynchronously; only the wait orders
// that, and the compiler sees no dependence between the two).
//
// An async gemm (T.wgmma_gemm) stops after the commit: its registers are
// stored as the instruction returns them, and the tile.wait_wgmma that
// completes its group passes them through the same empty volatile asm
// (WgmmaGroups.cpp), so every read after that wait reads values defined
// after it; reads between the two are rejected where they can be seen.
//
// Operands written through the generic proxy (st.shared, cp.async) must be
// made visible to the async proxy wgmma reads through
// (`fence.proxy.async.shared::cta`) by the writing threads before the
// barrier that publishes them; the caller says whether it did (the
// pipeliner places the fence before its barrier), else the fence and a
// barrier are emitted here.
//
//===----------------------------------------------------------------------===//

#include "DeviceOps.h"
#include "GemmLayouts.h"
#include "GemmLowering.h"
#include "Partitions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

FailureOr<WgmmaOperand> describe(tile::GemmOp op, Value buffer, bool kMajor) {
  Operation *alloc = buffer.getDefiningOp();
  auto attr =
      alloc ? alloc->getAttrOfType<tile::SwizzleAttr>(gemm::kSharedLayoutAttr)
            : tile::SwizzleAttr();
  auto type = cast<MemRefType>(buffer.getType());
  if (!attr || attr.getMode() == tile::SwizzleMode::none)
    return op.emitError("T.gemm on the wgmma path: the shared operand has no "
                        "canonical swizzle (tile.swizzle)");
  WgmmaOperand d;
  d.kMajor = kMajor;
  d.elemBytes = type.getElementTypeBitWidth() / 8;
  d.rows = type.getShape().take_back(2)[0];
  int64_t cols = type.getShape().take_back(2)[1];
  d.width = attr.getAtom() ? attr.getAtom() : cols;
  d.mode = 4 - int64_t(attr.getMode());
  if (d.width * d.elemBytes != (int64_t(16) << int64_t(attr.getMode())))
    return op.emitError("T.gemm on the wgmma path: an atom of ")
           << d.width << " columns is not one " << attr << " swizzle wide";
  return d;
}

} // namespace

FailureOr<WgmmaGemm> WgmmaGemm::create(KernelLowering &kernel,
                                       tile::GemmOp op) {
  WgmmaGemm g(kernel, op);
  tile::MmaAttr mma = gemm::readMma(op);
  g.acc = kernel.fragment(op.getC());
  if (!g.acc)
    return op.emitError("T.gemm: the accumulator is not a lowered fragment");
  int64_t m = op.getM(), n = op.getN();
  g.kDim = op.getK();
  g.groupsM = mma.getWarpsM() / 4;
  g.groupsN = mma.getWarpsN();
  g.instrN = mma.getN();
  g.kStep = mma.getK();
  int64_t threads = threadsOf(op, kernel.getThreads()); // T.ws: its own
  if (mma.getWarpsM() % 4 || m % g.groupsM || n % g.groupsN ||
      threads != 128 * g.groupsM * g.groupsN)
    return op.emitError() << "T.gemm on the wgmma path: the warp split "
                          << mma.getWarpsM() << "x" << mma.getWarpsN()
                          << " is not whole warpgroups of this " << threads
                          << "-thread kernel";
  g.mWG = m / g.groupsM;
  g.nWG = n / g.groupsN;
  if (g.mWG % 64 || g.nWG % g.instrN || g.kDim % g.kStep ||
      (g.kStep != 16 && mma.getA() == tile::OperandSource::registers))
    return op.emitError("T.gemm on the wgmma path: the tile is not whole "
                        "m64nNk")
           << g.kStep << " instructions per warpgroup";
  g.mBlocks = g.mWG / 64;
  g.nBlocks = g.nWG / g.instrN;
  if (mma.getA() == tile::OperandSource::registers && op.isRegion(0))
    return op.emitError("T.gemm on the wgmma path: a region of a fragment "
                        "A operand is not supported yet");
  // A region's descriptors start at its origin in the canonical layout
  // (tile-infer-layouts checked it; a decision injected by hand is
  // checked here).
  for (unsigned i : {0u, 1u}) {
    if (i == 0 && mma.getA() == tile::OperandSource::registers)
      continue;
    Operation *alloc = op.getOperandBuffer(i).getDefiningOp();
    auto swizzle =
        alloc ? alloc->getAttrOfType<tile::SwizzleAttr>(gemm::kSharedLayoutAttr)
              : tile::SwizzleAttr();
    bool kMajor = i ? op.getTransposeB() : !op.getTransposeA();
    std::string why =
        gemm::regionOriginProblem(op, i, swizzle, kMajor, g.kStep);
    if (!why.empty())
      return op.emitError() << "T.gemm on the wgmma path: " << why;
  }
  FailureOr<WgmmaOperand> b = describe(op, op.getB(), op.getTransposeB());
  if (failed(b))
    return failure();
  g.descB = *b;
  if (mma.getA() == tile::OperandSource::registers) {
    g.fragA = kernel.fragment(op.getA());
    if (!g.fragA || op.getTransposeA())
      return op.emitError("T.gemm on the wgmma path: A in registers must be "
                          "a lowered fragment, not transposed");
    if (failed(g.mapOperandA()))
      return failure();
  } else {
    FailureOr<WgmmaOperand> a = describe(op, op.getA(), !op.getTransposeA());
    if (failed(a))
      return failure();
    g.descA = *a;
  }
  if (failed(g.mapRegisters()))
    return failure();
  return g;
}

LogicalResult WgmmaGemm::mapRegisters() {
  const Layout &layout = acc->layout;
  int64_t perInstr = instrN / 2;
  regOf.assign(mBlocks * nBlocks * perInstr, -1);
  // A region of the accumulator: its elements are the fragment's from
  // the origin on, a subset of its registers.
  auto [r0, c0] = op.getOperandOrigin(2);
  for (int64_t t = 0; t < threadsOf(op, kernel->getThreads()); ++t) {
    int64_t g = t / 128, w = (t % 128) / 32, l = t % 32;
    int64_t gm = g % groupsM, gn = g / groupsM;
    for (int64_t mb = 0; mb < mBlocks; ++mb)
      for (int64_t nb = 0; nb < nBlocks; ++nb)
        for (int64_t i = 0; i < perInstr; ++i) {
          int64_t row = gm * mWG + mb * 64 + w * 16 + l / 4 + 8 * ((i / 2) % 2);
          int64_t col =
              gn * nWG + nb * instrN + (i / 4) * 8 + (l % 4) * 2 + (i % 2);
          int64_t r =
              layout.findRegister(t, layout.flatten({r0 + row, c0 + col}));
          int64_t &slot = regOf[(mb * nBlocks + nb) * perInstr + i];
          if (r < 0 || (slot >= 0 && slot != r))
            return op.emitError()
                   << "T.gemm on the wgmma path: the layout of `" << acc->name
                   << "` does not hold the wgmma accumulator fragment (thread "
                   << t << ", element (" << r0 + row << ", " << c0 + col << ")"
                   << (op.isRegion(2) ? "; the region's origin is not on the "
                                        "warpgroups' grid of the fragment"
                                      : "")
                   << ")";
          slot = r;
        }
  }
  return success();
}

/// wgmma's A register fragment of an m64 x k16 block: element e of a0..a7
/// of lane l of warp w is row 16 w + l / 4 + 8 ((e / 2) % 2), column
/// 8 (e / 4) + 2 (l % 4) + e % 2.
LogicalResult WgmmaGemm::mapOperandA() {
  const Layout &layout = fragA->layout;
  int64_t steps = kDim / 16;
  aRegOf.assign(mBlocks * steps * 8, -1);
  for (int64_t t = 0; t < threadsOf(op, kernel->getThreads()); ++t) {
    int64_t g = t / 128, w = (t % 128) / 32, l = t % 32;
    int64_t gm = g % groupsM;
    for (int64_t mb = 0; mb < mBlocks; ++mb)
      for (int64_t s = 0; s < steps; ++s)
        for (int64_t e = 0; e < 8; ++e) {
          int64_t row = gm * mWG + mb * 64 + w * 16 + l / 4 + 8 * ((e / 2) % 2);
          int64_t col = 16 * s + 8 * (e / 4) + 2 * (l % 4) + e % 2;
          int64_t r = layout.findRegister(t, layout.flatten({row, col}));
          int64_t &slot = aRegOf[(mb * steps + s) * 8 + e];
          if (r < 0 || (slot >= 0 && slot != r))
            return op.emitError()
                   << "T.gemm on the wgmma path: the layout of `" << fragA->name
                   << "` does not hold the wgmma A register fragment (thread "
                   << t << ", element (" << row << ", " << col << "))";
          slot = r;
        }
  }
  return success();
}

Value WgmmaGemm::issueRegisterA(OpBuilder &b, Value d, ValueRange a,
                                Value bDesc, bool accumulate) {
  Type in = cast<MemRefType>(op.getA().getType()).getElementType();
  return simt::deviceOps(op).wgmmaMmaRegisterA(
      b, loc, structType(b.getContext()), d, a, bDesc, MmaShape{64, instrN, 16},
      in, descB.kMajor, accumulate);
}

/// The descriptor of the slot's window at (0, 0) shifted by `wgOffset`
/// bytes (this warpgroup's part of the operand).
Value WgmmaGemm::descriptorBase(OpBuilder &b, SharedSlot slot,
                                const WgmmaOperand &d, Value wgOffset) {
  Value shared = castToWorkgroup(b, loc, slot.buffer);
  SmallVector<Value, 3> at;
  if (slot.stage)
    at.push_back(slot.stage);
  at.append({cIdx(b, loc, 0), cIdx(b, loc, 0)});
  Value ptr = sharedElementPointer(b, loc, shared, at,
                                   kernel->getOptions().indexBitwidth);
  Type i64 = b.getI64Type();
  Value addr = LLVM::PtrToIntOp::create(b, loc, i64, ptr);
  addr = arith::AddIOp::create(
      b, loc, addr, arith::IndexCastOp::create(b, loc, i64, wgOffset));
  Value start = arith::ShRUIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, addr,
                            arith::ConstantIntOp::create(b, loc, i64, 0x3FFFF)),
      arith::ConstantIntOp::create(b, loc, i64, 4));
  return arith::OrIOp::create(
      b, loc, start,
      arith::ConstantIntOp::create(b, loc, i64, int64_t(d.fields())));
}

void WgmmaGemm::setUp(OpBuilder &b) {
  // This warpgroup's corner of the operands, in bytes.
  Value tid = partitionThreadId(b, loc, kernel->threadId(), op);
  Value group = arith::DivUIOp::create(b, loc, tid, cIdx(b, loc, 128));
  Value gm = arith::RemUIOp::create(b, loc, group, cIdx(b, loc, groupsM));
  Value gn = arith::DivUIOp::create(b, loc, group, cIdx(b, loc, groupsM));
  wgA = arith::MulIOp::create(b, loc, gm, cIdx(b, loc, descA.offset(mWG, 0)));
  wgB = arith::MulIOp::create(b, loc, gn, cIdx(b, loc, descB.offset(nWG, 0)));
}

Type WgmmaGemm::structType(MLIRContext *ctx) const {
  // f32 registers, or s32 ones for int8 products.
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(instrN / 2, acc->elementType));
}

SmallVector<Value> WgmmaGemm::loadAccumulators(OpBuilder &b) {
  int64_t perInstr = instrN / 2;
  SmallVector<Value> accs;
  for (int64_t instr = 0; instr < mBlocks * nBlocks; ++instr) {
    Value s = LLVM::UndefOp::create(b, loc, structType(b.getContext()));
    // clear_accum: the first k-step's wgmmas take scale-d = 0 (issue), so
    // the inputs are never read and stay undefined: no zeroed registers,
    // whose moves after the fence made ptxas wait for the groups in
    // flight (C7517).
    if (!op.getClearAccum())
      for (int64_t i = 0; i < perInstr; ++i)
        s = LLVM::InsertValueOp::create(
            b, loc, s,
            kernel->loadRegister(b, loc, *acc, regOf[instr * perInstr + i]), i);
    accs.push_back(s);
  }
  return accs;
}

void WgmmaGemm::issue(OpBuilder &b, SharedSlot a, SharedSlot bSlot,
                      MutableArrayRef<Value> accs) {
  MLIRContext *ctx = b.getContext();
  // The bases go through an opaque copy at the gemm: the descriptors
  // (base + a constant per instruction) are then made where they are
  // used. Left loop-invariant, LLVM hoisted every one out of the K loop,
  // two registers each for the whole loop (32 for two gemms of 8 k-steps:
  // 488 bytes of spills in test/Passes/wgmma-register-a-replicated.tile).
  const DeviceOpBuilder &ops = simt::deviceOps(op);
  Value baseA =
      fragA ? Value()
            : ops.opaqueRegister(b, loc, descriptorBase(b, a, descA, wgA));
  Value baseB =
      ops.opaqueRegister(b, loc, descriptorBase(b, bSlot, descB, wgB));
  // A region's origin in (M or N, K): added to each window's before the
  // offset is taken, since a K offset may carry into the next atom.
  auto originOf = [](SharedSlot slot, const WgmmaOperand &d) {
    return d.kMajor ? std::pair(slot.row, slot.col)
                    : std::pair(slot.col, slot.row);
  };
  auto [mnA, kA] = originOf(a, descA);
  auto [mnB, kB] = originOf(bSlot, descB);
  Type i64 = b.getI64Type();
  auto at = [&](Value base, int64_t bytes) -> Value {
    if (!bytes)
      return base;
    return arith::AddIOp::create(
        b, loc, base, arith::ConstantIntOp::create(b, loc, i64, bytes >> 4));
  };
  Type in = cast<MemRefType>(op.getA().getType()).getElementType();
  Type inB = cast<MemRefType>(op.getB().getType()).getElementType();
  Type st = structType(ctx);
  // A from registers: the four 32-bit words (pairs a0 a1, ..., a6 a7) of
  // m64 block mb and k-step s.
  auto registerA = [&](int64_t mb, int64_t s) {
    SmallVector<Value, 4> words;
    auto pairType = VectorType::get({2}, in);
    for (int64_t w = 0; w < 4; ++w) {
      int64_t base = (mb * (kDim / 16) + s) * 8 + 2 * w;
      Value lo = kernel->loadRegister(b, loc, *fragA, aRegOf[base]);
      Value hi = kernel->loadRegister(b, loc, *fragA, aRegOf[base + 1]);
      Value pair =
          vector::FromElementsOp::create(b, loc, pairType, ValueRange{lo, hi});
      words.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair));
    }
    return words;
  };
  // Every word packed before the fence: registers written after it would
  // make ptxas insert another one before each wgmma.
  SmallVector<SmallVector<Value, 4>> aWords;
  if (fragA)
    for (int64_t k0 = 0; k0 < kDim; k0 += 16)
      for (int64_t mb = 0; mb < mBlocks; ++mb)
        aWords.push_back(registerA(mb, k0 / 16));
  ops.wgmmaFence(b, loc);
  for (int64_t k0 = 0; k0 < kDim; k0 += kStep)
    for (int64_t mb = 0; mb < mBlocks; ++mb) {
      ArrayRef<Value> words;
      if (fragA)
        words = aWords[(k0 / kStep) * mBlocks + mb];
      for (int64_t nb = 0; nb < nBlocks; ++nb) {
        Value db = at(baseB, descB.offset(mnB + nb * instrN, kB + k0));
        Value &d = accs[mb * nBlocks + nb];
        // clear_accum: the first k-step overwrites D (scale-d = 0).
        bool accumulate = !(op.getClearAccum() && k0 == 0);
        if (fragA) {
          d = issueRegisterA(b, d, words, db, accumulate);
          continue;
        }
        Value da = at(baseA, descA.offset(mnA + mb * 64, kA + k0));
        d = ops.wgmmaMma(b, loc, st, d, da, db, MmaShape{64, instrN, kStep}, in,
                         inB, descA.kMajor, descB.kMajor, accumulate);
      }
    }
  ops.wgmmaCommit(b, loc);
}

void WgmmaGemm::wait(OpBuilder &b, int64_t pending) {
  simt::deviceOps(op).wgmmaWait(b, loc, pending);
}

void WgmmaGemm::storeAccumulators(OpBuilder &b, ValueRange accs,
                                  bool afterWait) {
  const DeviceOpBuilder &ops = simt::deviceOps(op);
  int64_t perInstr = instrN / 2;
  for (int64_t instr = 0; instr < mBlocks * nBlocks; ++instr)
    for (int64_t i = 0; i < perInstr; ++i) {
      Value v = LLVM::ExtractValueOp::create(b, loc, accs[instr], i);
      if (afterWait)
        v = ops.opaqueRegister(b, loc, v);
      kernel->storeRegister(b, loc, *acc, regOf[instr * perInstr + i], v);
    }
}

void WgmmaGemm::markOperands(OpBuilder &b, SharedSlot a, SharedSlot bSlot) {
  // Descriptors address the swizzle by absolute address bits: the buffers
  // start on a swizzle period (tile-plan-shared reads this).
  for (Value buffer : {a.buffer, bSlot.buffer})
    if (tile::getMemorySpace(cast<MemRefType>(buffer.getType())) ==
        tile::MemorySpace::shared)
      buffer.getDefiningOp()->setAttr(
          "tile.align", b.getI64IntegerAttr(kWgmmaOperandAlignment));
}

void simt::fenceAsyncProxy(OpBuilder &b, Location loc) {
  simt::deviceOps(b.getInsertionBlock()->getParentOp())
      .fenceAsyncShared(b, loc);
}

LogicalResult simt::emitWgmmaGemm(KernelLowering &kernel, OpBuilder &b,
                                  tile::GemmOp op, SharedSlot a,
                                  SharedSlot bSlot, bool fenced) {
  FailureOr<WgmmaGemm> gemm = WgmmaGemm::create(kernel, op);
  if (failed(gemm))
    return failure();
  gemm->markOperands(b, a, bSlot);
  if (!fenced) {
    fenceAsyncProxy(b, op.getLoc());
    partitionBarrier(b, op.getLoc(), op); // in T.ws: the region's threads
  }
  gemm->setUp(b);
  SmallVector<Value> accs = gemm->loadAccumulators(b);
  gemm->issue(b, a, bSlot, accs);
  // T.wgmma_gemm: the group stays in flight until a tile.wait_wgmma.
  if (op.getAsync()) {
    gemm->storeAccumulators(b, accs, /*afterWait=*/false);
    return success();
  }
  gemm->wait(b, 0);
  gemm->storeAccumulators(b, accs);
  return success();
}

LogicalResult simt::lowerWgmmaGemm(KernelLowering &kernel, tile::GemmOp op,
                                   bool fenced) {
  OpBuilder b(op);
  if (failed(emitWgmmaGemm(kernel, b, op, operandSlot(op, 0),
                           operandSlot(op, 1), fenced)))
    return failure();
  op.erase();
  return success();
}
