//===- DeviceOpsTest.cpp - Each vendor's DeviceOpBuilder is reached -------===//
//
// DeviceOpBuilder::get hands each chip its vendor's builder, and the
// builders emit that vendor's ops only: NVVM for sm_80 / sm_90a, ROCDL for
// gfx90a / gfx942. Every MFMA the AMD TargetInfo tables offer maps to the
// typed ROCDL op of the same name (a decision names its MFMA by op name).
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/DeviceOpBuilder.h"
#include "tilec/Target/InitDeviceOps.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace mlir;
using namespace tilec;

namespace {

struct Fixture {
  Fixture() : b(&context) {
    registerAllDeviceOps();
    context.loadDialect<arith::ArithDialect, LLVM::LLVMDialect,
                        NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
    module = ModuleOp::create(UnknownLoc::get(&context));
    b.setInsertionPointToEnd(module.getBody());
  }
  ~Fixture() { module->erase(); }

  /// A value of `type` with no definition the builders care about.
  Value value(Type type) {
    return UnrealizedConversionCastOp::create(b, loc(), TypeRange{type},
                                              ValueRange{})
        .getResult(0);
  }
  Location loc() { return UnknownLoc::get(&context); }

  /// The dialect namespaces of the ops made since the values were.
  std::set<std::string> dialectsAfter(Operation *start) {
    std::set<std::string> out;
    for (Operation *op = start->getNextNode(); op; op = op->getNextNode())
      out.insert(op->getName().getDialectNamespace().str());
    return out;
  }

  MLIRContext context;
  OpBuilder b;
  ModuleOp module;
};

const TargetInfo &chip(llvm::StringRef name) {
  const TargetInfo *target = TargetInfo::lookup(name);
  REQUIRE(target);
  return *target;
}

} // namespace

TEST_CASE("each chip reaches its vendor's device op builder", "[deviceops]") {
  Fixture f;
  for (llvm::StringRef name : TargetInfo::supportedChips()) {
    const TargetInfo &target = chip(name);
    const DeviceOpBuilder &ops = DeviceOpBuilder::get(target);
    CHECK(DeviceOpBuilder::isRegistered(vendorOf(target)));
    CHECK(ops.vendorName() == (target.isNVIDIA() ? "NVIDIA" : "AMD"));
    CHECK(ops.hasOcpFp8Conversions() == target.isNVIDIA());
  }
  CHECK(&DeviceOpBuilder::get(chip("sm_80")) ==
        &DeviceOpBuilder::get(chip("sm_90a")));
  CHECK(&DeviceOpBuilder::get(chip("gfx90a")) !=
        &DeviceOpBuilder::get(chip("sm_90a")));
}

TEST_CASE("the NVIDIA builders emit NVVM ops", "[deviceops]") {
  Fixture f;
  const DeviceOpBuilder &ops = DeviceOpBuilder::get(chip("sm_90a"));
  OpBuilder &b = f.b;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto shared = LLVM::LLVMPointerType::get(&f.context, 3);
  auto global = LLVM::LLVMPointerType::get(&f.context, 1);
  Value n = f.value(i32), mbar = f.value(shared), src = f.value(global);
  Value a = f.value(i32), x = f.value(f32);
  Operation *start = x.getDefiningOp(); // the builders' ops follow it

  ops.namedBarrier(b, f.loc(), n, n);
  ops.asyncCopy(b, f.loc(), mbar, src, 16, n);
  ops.asyncCopyCommit(b, f.loc());
  ops.asyncCopyWait(b, f.loc(), 1);
  ops.mbarrierInit(b, f.loc(), mbar, n);
  ops.mbarrierArriveExpectTx(b, f.loc(), mbar, n);
  ops.mbarrierWaitParity(b, f.loc(), mbar, n, n);
  ops.setMaxRegisters(b, f.loc(), 232, /*increase=*/true);
  SmallVector<Value, 4> words = ops.matrixLoad(b, f.loc(), mbar, 4, true);
  CHECK(words.size() == 4);
  SmallVector<Value, 4> d =
      ops.mmaSync(b, f.loc(), {16, 8, 16}, b.getF16Type(), b.getF16Type(),
                  {a, a, a, a}, {a, a}, {x, x, x, x});
  CHECK(d.size() == 4);
  CHECK(d[3].getType() == f32);
  ops.warpSync(b, f.loc());
  ops.mbarrierArrive(b, f.loc(), mbar);
  ops.mbarrierArriveIf(b, f.loc(), n, mbar);
  ops.mbarrierArriveOnAsyncCopies(b, f.loc(), mbar);
  ops.mbarrierExpectTx(b, f.loc(), mbar, n);
  auto cluster = LLVM::LLVMPointerType::get(&f.context, 7);
  ops.tmaLoad(b, f.loc(), f.value(cluster), f.value(global), {n, n}, mbar);
  ops.fenceAsyncShared(b, f.loc());
  // One m64n16k16 wgmma: 8 f32 accumulators per thread.
  auto acc = LLVM::LLVMStructType::getLiteral(
      &f.context, SmallVector<Type>(8, f32));
  Value desc = f.value(b.getI64Type());
  ops.wgmmaFence(b, f.loc());
  Value d1 = ops.wgmmaMma(b, f.loc(), acc, f.value(acc), desc, desc,
                          {64, 16, 16}, b.getF16Type(), b.getF16Type(),
                          /*aKMajor=*/true, /*bKMajor=*/false);
  Value d2 = ops.wgmmaMmaRegisterA(b, f.loc(), acc, d1, {a, a, a, a}, desc,
                                   {64, 16, 16}, b.getBF16Type(),
                                   /*bKMajor=*/true);
  CHECK(d2.getType() == acc);
  ops.wgmmaCommit(b, f.loc());
  ops.wgmmaWait(b, f.loc(), 0);
  CHECK(ops.opaqueRegister(b, f.loc(), x).getType() == f32);
  Value packed =
      ops.packOcpFp8x2(b, f.loc(), x, x, b.getType<Float8E4M3FNType>());
  CHECK(packed.getType() == b.getI16Type());

  std::set<std::string> names;
  for (Operation *op = start->getNextNode(); op; op = op->getNextNode())
    names.insert(op->getName().getStringRef().str());
  for (const char *expected :
       {"nvvm.barrier", "nvvm.cp.async.shared.global",
        "nvvm.cp.async.commit.group", "nvvm.cp.async.wait.group",
        "nvvm.mbarrier.init", "nvvm.mbarrier.arrive.expect_tx",
        "nvvm.mbarrier.try_wait.parity", "nvvm.setmaxregister",
        "nvvm.ldmatrix", "nvvm.mma.sync", "nvvm.bar.warp.sync",
        "nvvm.mbarrier.arrive", "nvvm.mbarrier.expect_tx",
        "nvvm.cp.async.mbarrier.arrive",
        "nvvm.cp.async.bulk.tensor.shared.cluster.global",
        "nvvm.fence.proxy", "nvvm.wgmma.fence.aligned",
        "nvvm.wgmma.mma_async", "nvvm.wgmma.commit.group.sync.aligned",
        "nvvm.wgmma.wait.group.sync.aligned", "llvm.inline_asm",
        "llvm.call_intrinsic"})
    CHECK(names.count(expected));
  std::set<std::string> dialects = f.dialectsAfter(start);
  CHECK(!dialects.count("rocdl"));
  CHECK(dialects.count("nvvm"));
}

TEST_CASE("the AMD builders emit typed ROCDL MFMA ops", "[deviceops]") {
  Fixture f;
  for (llvm::StringRef name : {"gfx90a", "gfx942"}) {
    const TargetInfo &target = chip(name);
    const DeviceOpBuilder &ops = DeviceOpBuilder::get(target);
    for (const MMAInstruction &mma : target.mmaInstructions()) {
      if (mma.kind != MMAKind::Wave)
        continue;
      // Operand types do not matter for creation (the op is not verified
      // here); the name does.
      Value v = f.value(f.b.getF32Type());
      Value out = ops.mfma(f.b, f.loc(), mma.opName, f.b.getF32Type(), v, v, v);
      INFO(mma.opName.str());
      REQUIRE(out);
      Operation *op = out.getDefiningOp();
      CHECK(op->getName().getStringRef() == mma.opName);
      CHECK(op->isRegistered());
      CHECK(op->getNumOperands() == 6);
    }
    Value v = f.value(f.b.getF32Type());
    CHECK(!ops.mfma(f.b, f.loc(), "rocdl.mfma.f32.1x1x1f16",
                    f.b.getF32Type(), v, v, v));
  }
  Operation *first = &f.module.getBody()->front();
  std::set<std::string> dialects = f.dialectsAfter(first);
  CHECK(!dialects.count("nvvm"));
  CHECK(dialects.count("rocdl"));
}
