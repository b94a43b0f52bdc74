//===- NVVMOpBuilder.cpp - The NVIDIA operations of tilec's decisions -----===//
//
// DeviceOpBuilder for NVIDIA chips: each builder is the NVVM op (or, where
// LLVM 22's NVVM dialect lacks the form, the LLVM intrinsic or inline PTX)
// that carries out one decision of the tile-level passes. The ops are the
// ones the passes emitted themselves before this file existed, operand for
// operand, so the PTX is unchanged.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/DeviceOpBuilder.h"
#include "tilec/Target/InitDeviceOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace mlir;
using namespace tilec;

namespace {

/// The PTX operand type of mma.sync for an element type (f32 operands are
/// multiplied as tf32).
NVVM::MMATypes mmaType(Type type) {
  if (type.isF16())
    return NVVM::MMATypes::f16;
  if (type.isBF16())
    return NVVM::MMATypes::bf16;
  if (type.isF32())
    return NVVM::MMATypes::tf32;
  if (isa<Float8E5M2Type>(type))
    return NVVM::MMATypes::e5m2;
  if (type.isInteger(8))
    return NVVM::MMATypes::s8;
  assert(isa<Float8E4M3FNType>(type) && "not an mma.sync operand type");
  return NVVM::MMATypes::e4m3;
}

NVVM::WGMMATypes wgmmaType(Type type) {
  if (type.isF16())
    return NVVM::WGMMATypes::f16;
  if (type.isF32())
    return NVVM::WGMMATypes::tf32;
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (isa<Float8E4M3FNType>(type))
    return NVVM::WGMMATypes::e4m3;
  if (type.isInteger(8))
    return NVVM::WGMMATypes::s8;
  assert(isa<Float8E5M2Type>(type) && "not a wgmma operand type");
  return NVVM::WGMMATypes::e5m2;
}

StringRef fp8Suffix(Type fp8) {
  return isa<Float8E5M2Type>(fp8) ? "e5m2" : "e4m3";
}

class NVVMOpBuilder final : public DeviceOpBuilder {
public:
  StringRef vendorName() const override { return "NVIDIA"; }

  void namedBarrier(OpBuilder &b, Location loc, Value id,
                    Value threads) const override {
    NVVM::BarrierOp::create(b, loc, /*res=*/Type(), id, threads,
                            /*reductionOp=*/{}, /*reductionPredicate=*/{});
  }

  void namedBarrierArrive(OpBuilder &b, Location loc, Value id,
                          Value threads) const override {
    NVVM::BarrierArriveOp::create(b, loc, id, threads);
  }

  void warpSync(OpBuilder &b, Location loc) const override {
    NVVM::SyncWarpOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
  }

  void gridSync(OpBuilder &b, Location loc) const override {
    // The grid barrier of a cooperative launch (what CUDA's
    // cooperative_groups grid sync does): the driver's grid workspace is at
    // {%envreg1 (high), %envreg2 (low)}, its barrier word at byte 4. After
    // a block barrier, thread 0 of block 0 adds 0x80000000 - (blocks - 1)
    // and every other block's thread 0 adds 1, so one barrier's arrivals
    // sum to 0x80000000 and flip the top bit exactly once; each waits (an
    // acquire poll at GPU scope, after its release add) until the bit
    // differs from what its add saw, and a second block barrier releases
    // the block. ${:uid} keeps the labels apart where the asm is repeated.
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, ValueRange{},
        "{\n"
        ".reg .pred p;\n"
        ".reg .b32 t, u, n, add, old, cur;\n"
        ".reg .b64 ws;\n"
        "bar.sync 0;\n"
        "mov.u32 t, %tid.x;\nmov.u32 u, %tid.y;\nor.b32 t, t, u;\n"
        "mov.u32 u, %tid.z;\nor.b32 t, t, u;\n"
        "setp.ne.u32 p, t, 0;\n"
        "@p bra TILEC_GRID_DONE_${:uid};\n"
        "mov.b64 ws, {%envreg2, %envreg1};\n"
        "add.u64 ws, ws, 4;\n"
        "mov.u32 t, %ctaid.x;\nmov.u32 u, %ctaid.y;\nor.b32 t, t, u;\n"
        "mov.u32 u, %ctaid.z;\nor.b32 t, t, u;\n"
        "mov.u32 n, %nctaid.x;\nmov.u32 u, %nctaid.y;\n"
        "mul.lo.u32 n, n, u;\nmov.u32 u, %nctaid.z;\nmul.lo.u32 n, n, u;\n"
        "sub.u32 add, 0x80000001, n;\n"
        "setp.ne.u32 p, t, 0;\n"
        "@p mov.u32 add, 1;\n"
        "atom.add.release.gpu.global.u32 old, [ws], add;\n"
        "TILEC_GRID_WAIT_${:uid}:\n"
        "ld.acquire.gpu.global.u32 cur, [ws];\n"
        "xor.b32 cur, cur, old;\n"
        "and.b32 cur, cur, 0x80000000;\n"
        "setp.eq.u32 p, cur, 0;\n"
        "@p bra TILEC_GRID_WAIT_${:uid};\n"
        "TILEC_GRID_DONE_${:uid}:\n"
        "bar.sync 0;\n"
        "}",
        "~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
        /*operand_attrs=*/nullptr);
  }

  void asyncCopy(OpBuilder &b, Location loc, Value dst, Value src,
                 int64_t bytes, Value srcBytes) const override {
    // .cg (L2 only) exists for 16-byte copies; smaller ones are .ca.
    NVVM::CpAsyncOp::create(b, loc, dst, src, bytes,
                            bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                        : NVVM::LoadCacheModifierKind::CA,
                            srcBytes);
  }

  void asyncCopyCommit(OpBuilder &b, Location loc) const override {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  void asyncCopyWait(OpBuilder &b, Location loc,
                     int64_t pending) const override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, uint32_t(pending));
  }

  void mbarrierArriveOnAsyncCopies(OpBuilder &b, Location loc,
                                   Value mbar) const override {
    NVVM::CpAsyncMBarrierArriveOp::create(b, loc, mbar, /*noinc=*/true);
  }

  void mbarrierInit(OpBuilder &b, Location loc, Value mbar,
                    Value count) const override {
    NVVM::MBarrierInitOp::create(b, loc, mbar, count, /*predicate=*/Value());
  }

  void mbarrierArrive(OpBuilder &b, Location loc, Value mbar) const override {
    NVVM::MBarrierArriveOp::create(b, loc, Type(), mbar, /*count=*/Value(),
                                   NVVM::MemScopeKind::CTA, /*relaxed=*/false);
  }

  void mbarrierArriveIf(OpBuilder &b, Location loc, Value flag,
                        Value mbar) const override {
    // The NVVM op has no predicate operand: inline PTX.
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, ValueRange{flag, mbar},
        "{\n.reg .pred p;\n.reg .b64 s;\nsetp.ne.b32 p, $0, 0;\n"
        "@p mbarrier.arrive.shared.b64 s, [$1];\n}",
        "r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
        /*operand_attrs=*/nullptr);
  }

  void mbarrierArriveExpectTx(OpBuilder &b, Location loc, Value mbar,
                              Value bytes) const override {
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), mbar, bytes,
                                           NVVM::MemScopeKind::CTA,
                                           /*relaxed=*/false,
                                           /*predicate=*/Value());
  }

  void mbarrierExpectTx(OpBuilder &b, Location loc, Value mbar,
                        Value bytes) const override {
    NVVM::MBarrierExpectTxOp::create(b, loc, mbar, bytes);
  }

  void mbarrierWaitParity(OpBuilder &b, Location loc, Value mbar, Value parity,
                          Value ticks) const override {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, mbar, parity, ticks);
  }

  void tmaLoad(OpBuilder &b, Location loc, Value dst, Value tensorMap,
               ValueRange coords, Value mbar) const override {
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dst, tensorMap, coords, mbar, ValueRange(), Value(), Value(),
        NVVM::TMALoadModeAttr::get(b.getContext(), NVVM::TMALoadMode::TILE),
        /*isCTAOnly=*/b.getBoolAttr(false), NVVM::CTAGroupKindAttr(), Value());
  }

  void tmaStore(OpBuilder &b, Location loc, Value tensorMap, Value src,
                ValueRange coords) const override {
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        b, loc, tensorMap, src, coords, /*l2CacheHint=*/Value(),
        NVVM::TMAStoreModeAttr::get(b.getContext(), NVVM::TMAStoreMode::TILE),
        /*predicate=*/Value());
  }

  void bulkCommitGroup(OpBuilder &b, Location loc) const override {
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }

  void bulkWaitGroupRead(OpBuilder &b, Location loc,
                         int32_t pending) const override {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(pending),
                                         b.getUnitAttr());
  }

  void fenceAsyncShared(OpBuilder &b, Location loc) const override {
    NVVM::FenceProxyOp::create(
        b, loc,
        NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }

  void setMaxRegisters(OpBuilder &b, Location loc, int32_t registers,
                       bool increase) const override {
    NVVM::SetMaxRegisterOp::create(b, loc, registers,
                                   increase
                                       ? NVVM::SetMaxRegisterAction::increase
                                       : NVVM::SetMaxRegisterAction::decrease);
  }

  SmallVector<Value, 4> matrixLoad(OpBuilder &b, Location loc, Value ptr,
                                   int count, bool transpose) const override {
    MLIRContext *ctx = b.getContext();
    Type i32 = b.getI32Type();
    auto resType =
        LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type, 4>(count, i32));
    Value res = NVVM::LdMatrixOp::create(
        b, loc, resType, ptr, count,
        transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltType::B16);
    SmallVector<Value, 4> words;
    for (int64_t i = 0; i < count; ++i)
      words.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
    return words;
  }

  void matrixStore(OpBuilder &b, Location loc, Value ptr,
                   ValueRange words) const override {
    MLIRContext *ctx = b.getContext();
    NVVM::StMatrixOp::create(
        b, loc, ptr, words, NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
  }

  SmallVector<Value, 4> mmaSync(OpBuilder &b, Location loc, MmaShape shape,
                                Type aType, Type bType, ValueRange a,
                                ValueRange bWords,
                                ValueRange c) const override {
    // f32 accumulators, or s32 ones for int8 (whose sums wrap on
    // overflow, as CUDA's and TileLang's int8 mma do), or f16 ones, two
    // to a register (c0 c1, c2 c3: the f32 fragment's elements, packed).
    bool f16Acc = c.front().getType().isF16();
    SmallVector<Value, 4> cWords(c);
    if (f16Acc) {
      auto pair = VectorType::get({2}, b.getF16Type());
      cWords.clear();
      for (size_t i = 0; i < c.size(); i += 2)
        cWords.push_back(vector::FromElementsOp::create(
            b, loc, pair, ValueRange{c[i], c[i + 1]}));
    }
    SmallVector<Type, 4> resultTypes(cWords.size(), cWords.front().getType());
    auto resultType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), resultTypes);
    NVVM::MMATypes ptxA = mmaType(aType), ptxB = mmaType(bType);
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (ptxA == NVVM::MMATypes::s8)
      overflow = NVVM::MMAIntOverflow::wrapped;
    Value d;
    if (ptxA == NVVM::MMATypes::e4m3 || ptxA == NVVM::MMATypes::e5m2) {
      // nvvm.mma.sync's verifier does not take e4m3 / e5m2 yet: the LLVM
      // intrinsic, whose operands are the same words (A, B, C).
      std::string name = ("llvm.nvvm.mma.m" + Twine(shape.m) + "n" +
                          Twine(shape.n) + "k" + Twine(shape.k) +
                          ".row.col.f32." + NVVM::stringifyMMATypes(ptxA) +
                          "." + NVVM::stringifyMMATypes(ptxB) + ".f32")
                             .str();
      SmallVector<Value, 10> args(a);
      llvm::append_range(args, bWords);
      llvm::append_range(args, cWords);
      d = LLVM::CallIntrinsicOp::create(b, loc, resultType,
                                        b.getStringAttr(name), args)
              .getResult(0);
    } else {
      d = NVVM::MmaOp::create(
          b, loc, resultType, a, bWords, cWords,
          ArrayRef<int64_t>{shape.m, shape.n, shape.k}, std::nullopt,
          overflow, std::array<NVVM::MMATypes, 2>{ptxA, ptxB},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
    }
    SmallVector<Value, 4> results;
    for (size_t i = 0; i < cWords.size(); ++i) {
      Value word = LLVM::ExtractValueOp::create(b, loc, d, i);
      if (!f16Acc) {
        results.push_back(word);
        continue;
      }
      for (int64_t h = 0; h < 2; ++h)
        results.push_back(vector::ExtractOp::create(b, loc, word, h));
    }
    return results;
  }

  void wgmmaFence(OpBuilder &b, Location loc) const override {
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
  }

  Value wgmmaMma(OpBuilder &b, Location loc, Type accType, Value acc,
                 Value descA, Value descB, MmaShape shape, Type aType,
                 Type bType, bool aKMajor, bool bKMajor,
                 bool accumulate) const override {
    return NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, acc, descA, descB,
        NVVM::MMAShapeAttr::get(b.getContext(), int(shape.m), int(shape.n),
                                int(shape.k)),
        wgmmaType(aType), wgmmaType(bType),
        aType.isInteger(8) ? NVVM::WGMMATypes::s32 : NVVM::WGMMATypes::f32,
        accumulate ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        aKMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col,
        bKMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        /*satfinite=*/nullptr);
  }

  Value wgmmaMmaRegisterA(OpBuilder &b, Location loc, Type accType, Value acc,
                          ValueRange aWords, Value descB, MmaShape shape,
                          Type aType, bool bKMajor,
                          bool accumulate) const override {
    // The NVVM op takes A through a descriptor only: the register form as
    // inline PTX, its accumulator operands tied to the results.
    int64_t regs = shape.n / 2;
    std::string ptx;
    llvm::raw_string_ostream os(ptx);
    os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << (2 * regs + 5)
       << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << shape.n << "k16.f32."
       << (aType.isF16() ? "f16.f16" : "bf16.bf16") << " {";
    for (int64_t i = 0; i < regs; ++i)
      os << (i ? ", " : "") << "$" << i;
    os << "}, {";
    for (int64_t i = 0; i < 4; ++i)
      os << (i ? ", " : "") << "$" << (2 * regs + i);
    os << "}, $" << (2 * regs + 4) << ", p, 1, 1, " << (bKMajor ? 0 : 1)
       << ";\n}";
    std::string constraints;
    for (int64_t i = 0; i < regs; ++i)
      constraints += "=f,";
    for (int64_t i = 0; i < regs; ++i)
      constraints += std::to_string(i) + ",";
    constraints += "r,r,r,r,l,n";
    SmallVector<Value> operands;
    for (int64_t i = 0; i < regs; ++i)
      operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
    llvm::append_range(operands, aWords);
    operands.push_back(descB);
    // scale-d: 0 makes the product ignore the accumulator's inputs.
    operands.push_back(
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), accumulate));
    return LLVM::InlineAsmOp::create(
               b, loc, accType, operands, ptx, constraints,
               /*has_side_effects=*/true,
               /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
               /*asm_dialect=*/nullptr,
               /*operand_attrs=*/nullptr)
        .getResult(0);
  }

  void wgmmaCommit(OpBuilder &b, Location loc) const override {
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  }

  void wgmmaWait(OpBuilder &b, Location loc, int64_t pending) const override {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
  }

  Value opaqueRegister(OpBuilder &b, Location loc,
                       Value value) const override {
    // The register class of the value: f32, or a 32- / 64-bit integer
    // (a wgmma descriptor base, kept from being hoisted).
    StringRef constraint = value.getType().isF32()          ? "=f,0"
                           : value.getType().isInteger(64) ? "=l,0"
                                                           : "=r,0";
    return LLVM::InlineAsmOp::create(b, loc, value.getType(),
                                     ValueRange{value}, "", constraint,
                                     /*has_side_effects=*/true,
                                     /*is_align_stack=*/false,
                                     LLVM::tailcallkind::TailCallKind::None,
                                     /*asm_dialect=*/nullptr,
                                     /*operand_attrs=*/nullptr)
        .getResult(0);
  }

  bool hasOcpFp8Conversions() const override { return true; }

  Value packOcpFp8x2(OpBuilder &b, Location loc, Value hi, Value lo,
                     Type fp8) const override {
    // cvt.rn.satfinite.e4m3x2.f32 d, a, b puts b in the low byte.
    std::string name = ("llvm.nvvm.ff.to." + fp8Suffix(fp8) + "x2.rn").str();
    return LLVM::CallIntrinsicOp::create(b, loc, b.getI16Type(),
                                         b.getStringAttr(name),
                                         ValueRange{hi, lo})
        .getResult(0);
  }

  Value unpackOcpFp8x2(OpBuilder &b, Location loc, Value bits,
                       Type fp8) const override {
    auto halves = VectorType::get({2}, b.getF16Type());
    std::string name =
        ("llvm.nvvm." + fp8Suffix(fp8) + "x2.to.f16x2.rn").str();
    return LLVM::CallIntrinsicOp::create(b, loc, halves, b.getStringAttr(name),
                                         ValueRange{bits})
        .getResult(0);
  }
};

} // namespace

void tilec::registerNVPTXDeviceOps() {
  DeviceOpBuilder::registerBuilder(Vendor::NVIDIA,
                                   std::make_unique<NVVMOpBuilder>());
}
