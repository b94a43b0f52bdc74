//===- DeviceOpBuilder.cpp - The registry of vendor op builders -----------===//
//
// One builder per vendor, registered by the vendor library before any pass
// runs (InitDeviceOps.h) and read afterwards from every thread of the pass
// manager, so the table needs no lock. The base class's builders are the
// ones a vendor does not have: reaching one means a pass skipped the
// TargetInfo question that guards it.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/DeviceOpBuilder.h"
#include "tilec/Target/TargetInfo.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <array>

using namespace mlir;
using namespace tilec;

namespace {

std::array<std::unique_ptr<DeviceOpBuilder>, 2> &registry() {
  static std::array<std::unique_ptr<DeviceOpBuilder>, 2> builders;
  return builders;
}

} // namespace

Vendor tilec::vendorOf(const TargetInfo &target) {
  return target.isNVIDIA() ? Vendor::NVIDIA : Vendor::AMD;
}

DeviceOpBuilder::~DeviceOpBuilder() = default;

const DeviceOpBuilder &DeviceOpBuilder::get(const TargetInfo &target) {
  const std::unique_ptr<DeviceOpBuilder> &builder =
      registry()[size_t(vendorOf(target))];
  if (!builder)
    llvm::report_fatal_error(
        llvm::Twine("tilec: no device op builder registered for ") +
        target.chip() + " (call tilec::registerAllDeviceOps() in main)");
  return *builder;
}

bool DeviceOpBuilder::isRegistered(Vendor vendor) {
  return registry()[size_t(vendor)] != nullptr;
}

void DeviceOpBuilder::registerBuilder(
    Vendor vendor, std::unique_ptr<DeviceOpBuilder> builder) {
  registry()[size_t(vendor)] = std::move(builder);
}

void DeviceOpBuilder::unsupported(llvm::StringRef what) const {
  llvm::report_fatal_error(llvm::Twine("tilec: ") + vendorName() +
                           " has no " + what +
                           " (a pass emitted it without asking TargetInfo)");
}

void DeviceOpBuilder::namedBarrier(OpBuilder &, Location, Value, Value) const {
  unsupported("named barrier");
}
void DeviceOpBuilder::namedBarrierArrive(OpBuilder &, Location, Value,
                                         Value) const {
  unsupported("named barrier arrival");
}
void DeviceOpBuilder::gridSync(OpBuilder &, Location) const {
  unsupported("grid sync");
}
void DeviceOpBuilder::warpSync(OpBuilder &, Location) const {
  unsupported("warp sync");
}
void DeviceOpBuilder::asyncCopy(OpBuilder &, Location, Value, Value, int64_t,
                                Value) const {
  unsupported("asynchronous copy");
}
void DeviceOpBuilder::asyncCopyCommit(OpBuilder &, Location) const {
  unsupported("asynchronous copy group");
}
void DeviceOpBuilder::asyncCopyWait(OpBuilder &, Location, int64_t) const {
  unsupported("asynchronous copy wait");
}
void DeviceOpBuilder::mbarrierInit(OpBuilder &, Location, Value, Value) const {
  unsupported("mbarrier");
}
void DeviceOpBuilder::mbarrierArrive(OpBuilder &, Location, Value) const {
  unsupported("mbarrier");
}
void DeviceOpBuilder::mbarrierArriveOnAsyncCopies(OpBuilder &, Location,
                                                  Value) const {
  unsupported("mbarrier");
}
void DeviceOpBuilder::mbarrierArriveIf(OpBuilder &, Location, Value,
                                       Value) const {
  unsupported("mbarrier");
}
void DeviceOpBuilder::mbarrierArriveExpectTx(OpBuilder &, Location, Value,
                                             Value) const {
  unsupported("mbarrier");
}
void DeviceOpBuilder::mbarrierExpectTx(OpBuilder &, Location, Value,
                                       Value) const {
  unsupported("mbarrier");
}
void DeviceOpBuilder::mbarrierWaitParity(OpBuilder &, Location, Value, Value,
                                         Value) const {
  unsupported("mbarrier");
}
void DeviceOpBuilder::tmaLoad(OpBuilder &, Location, Value, Value, ValueRange,
                              Value) const {
  unsupported("TMA load");
}
void DeviceOpBuilder::tmaStore(OpBuilder &, Location, Value, Value,
                               ValueRange) const {
  unsupported("TMA store");
}
void DeviceOpBuilder::bulkCommitGroup(OpBuilder &, Location) const {
  unsupported("bulk copy groups");
}
void DeviceOpBuilder::bulkWaitGroupRead(OpBuilder &, Location, int32_t) const {
  unsupported("bulk copy groups");
}
void DeviceOpBuilder::fenceAsyncShared(OpBuilder &, Location) const {
  unsupported("async-proxy fence");
}
void DeviceOpBuilder::setMaxRegisters(OpBuilder &, Location, int32_t,
                                      bool) const {
  unsupported("register reallocation");
}
SmallVector<Value, 4> DeviceOpBuilder::matrixLoad(OpBuilder &, Location, Value,
                                                  int, bool) const {
  unsupported("warp matrix load");
}
void DeviceOpBuilder::matrixStore(OpBuilder &, Location, Value,
                                  ValueRange) const {
  unsupported("warp matrix store");
}
SmallVector<Value, 4> DeviceOpBuilder::mmaSync(OpBuilder &, Location, MmaShape,
                                               Type, Type, ValueRange,
                                               ValueRange, ValueRange) const {
  unsupported("mma.sync");
}
Value DeviceOpBuilder::mfma(OpBuilder &, Location, StringRef, Type, Value,
                            Value, Value) const {
  unsupported("MFMA");
}
void DeviceOpBuilder::wgmmaFence(OpBuilder &, Location) const {
  unsupported("wgmma");
}
Value DeviceOpBuilder::wgmmaMma(OpBuilder &, Location, Type, Value, Value,
                                Value, MmaShape, Type, Type, bool, bool,
                                bool) const {
  unsupported("wgmma");
}
Value DeviceOpBuilder::wgmmaMmaRegisterA(OpBuilder &, Location, Type, Value,
                                         ValueRange, Value, MmaShape, Type,
                                         bool, bool) const {
  unsupported("wgmma");
}
void DeviceOpBuilder::wgmmaCommit(OpBuilder &, Location) const {
  unsupported("wgmma");
}
void DeviceOpBuilder::wgmmaWait(OpBuilder &, Location, int64_t) const {
  unsupported("wgmma");
}
Value DeviceOpBuilder::opaqueRegister(OpBuilder &, Location, Value) const {
  unsupported("opaque register copy");
}
Value DeviceOpBuilder::packOcpFp8x2(OpBuilder &, Location, Value, Value,
                                    Type) const {
  unsupported("OCP fp8 conversion");
}
Value DeviceOpBuilder::unpackOcpFp8x2(OpBuilder &, Location, Value,
                                      Type) const {
  unsupported("OCP fp8 conversion");
}
