//===- TileDialect.cpp - The tile dialect, its attributes and enums -------===//
//
// Registers the tile dialect's ops and attributes and verifies the
// `tile.kernel` unit attribute that marks kernel entry functions. The
// attribute and enum printers/parsers are generated from TileAttrs.td.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Dialect/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tilec::tile;

#include "tilec/Dialect/TileDialect.cpp.inc"
#include "tilec/Dialect/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/TileOps.cpp.inc"
      >();
  registerAttributes();
}

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/TileAttrs.cpp.inc"
      >();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kTargetAttrName) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError() << "'" << kTargetAttrName
                             << "' must be a #tile.target, got "
                             << attr.getValue();
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << kTargetAttrName
                             << "' belongs on the builtin module, not on '"
                             << op->getName() << "'";
    return success();
  }
  if (attr.getName() == MmaAttr::getAttrName()) {
    if (!isa<MmaAttr>(attr.getValue()))
      return op->emitError() << "'" << MmaAttr::getAttrName()
                             << "' must be a #tile.mma, got "
                             << attr.getValue();
    if (op->getName().getStringRef() != "tile.gemm")
      return op->emitError() << "'" << MmaAttr::getAttrName()
                             << "' records the instruction of a tile.gemm, "
                                "not of '"
                             << op->getName() << "'";
    return success();
  }
  if (attr.getName() == SwizzleAttr::getAttrName()) {
    if (!isa<SwizzleAttr>(attr.getValue()))
      return op->emitError() << "'" << SwizzleAttr::getAttrName()
                             << "' must be a #tile.swizzle, got "
                             << attr.getValue();
    auto type = op->getNumResults() == 1
                    ? dyn_cast<MemRefType>(op->getResult(0).getType())
                    : MemRefType();
    if (!type || getMemorySpace(type) != MemorySpace::shared)
      return op->emitError() << "'" << SwizzleAttr::getAttrName()
                             << "' belongs on a shared buffer";
    return success();
  }
  if (attr.getName() == kMinBlocksPerMultiprocessorAttrName) {
    auto count = dyn_cast<IntegerAttr>(attr.getValue());
    if (!count || !count.getType().isInteger(32) || count.getInt() < 1)
      return op->emitError()
             << "'" << kMinBlocksPerMultiprocessorAttrName
             << "' must be an i32 of at least 1, got " << attr.getValue();
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kMinBlocksPerMultiprocessorAttrName
                             << "' belongs on a kernel function, not on '"
                             << op->getName() << "'";
    return success();
  }
  // Other `tile.*` discardable attributes are left to the passes that write
  // them (decisions recorded for later passes).
  if (attr.getName() != getKernelFuncAttrName())
    return success();
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << getKernelFuncAttrName()
                           << "' must be a unit attribute, got "
                           << attr.getValue();
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << getKernelFuncAttrName()
                           << "' marks kernel functions, but is attached to '"
                           << op->getName() << "'";
  return success();
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip) {
  if (tilec::TargetInfo::lookup(chip))
    return success();
  InFlightDiagnostic diag = emitError() << "unknown target chip '" << chip
                                        << "'; tilec supports";
  for (StringRef known : tilec::TargetInfo::supportedChips())
    diag << " " << known;
  return diag;
}

LogicalResult MmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              MmaKind kind, StringRef instruction, int64_t m,
                              int64_t n, int64_t k, int64_t warpsM,
                              int64_t warpsN, OperandSource a, OperandSource b,
                              int64_t kPack) {
  if (instruction.empty())
    return emitError() << "#tile.mma needs the instruction's op name";
  if (m < 1 || n < 1 || k < 1)
    return emitError() << "#tile.mma shape must be positive, got [" << m
                       << ", " << n << ", " << k << "]";
  if (warpsM < 1 || warpsN < 1)
    return emitError() << "#tile.mma warps must be positive, got [" << warpsM
                       << ", " << warpsN << "]";
  if (kPack != 1 && (kind != MmaKind::mfma || kPack != 2))
    return emitError() << "#tile.mma k_pack is 1, or 2 on the mfma kind; got "
                       << kPack;
  if (b == OperandSource::registers)
    return emitError() << "#tile.mma: B is read from shared memory on every "
                          "kind";
  if (a == OperandSource::registers && kind == MmaKind::mfma)
    return emitError() << "#tile.mma: the mfma kind reads A from shared "
                          "memory";
  return success();
}

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  SwizzleMode mode, int32_t bits, int32_t base,
                                  int32_t shift, int64_t atom) {
  if (bits != int32_t(mode))
    return emitError() << "#tile.swizzle<" << stringifySwizzleMode(mode)
                       << "> XORs " << int32_t(mode) << " bits, not " << bits;
  if (base < 0 || (bits && shift < bits))
    return emitError() << "#tile.swizzle xor needs base >= 0 and shift >= "
                          "bits, got ["
                       << bits << ", " << base << ", " << shift << "]";
  if (atom < 0 || (atom && (!llvm::isPowerOf2_64(uint64_t(atom)) ||
                            mode == SwizzleMode::none)))
    return emitError() << "#tile.swizzle atom must be a power of two and "
                          "needs a swizzle mode, got atom = "
                       << atom;
  return success();
}

const tilec::TargetInfo &TargetAttr::getInfo() const {
  return *tilec::TargetInfo::lookup(getChip());
}

LogicalResult
WarpSpecializeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           int64_t consumers, int64_t producers,
                           int64_t consumerRegisters,
                           int64_t producerRegisters) {
  // setmaxnreg works on whole warpgroups, with counts in [24, 256] that are
  // multiples of 8.
  if (consumers < 128 || consumers % 128 || producers < 128 ||
      producers % 128)
    return emitError() << "#tile.warp_specialize partitions are whole "
                          "warpgroups (multiples of 128 threads), got "
                       << consumers << " consumers and " << producers
                       << " producers";
  for (int64_t regs : {consumerRegisters, producerRegisters})
    if (regs < 24 || regs > 256 || regs % 8)
      return emitError() << "#tile.warp_specialize registers are multiples "
                            "of 8 in [24, 256], got "
                         << regs;
  return success();
}

LogicalResult TmaStoreAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<int64_t> box, int64_t swizzle) {
  // cuTensorMapEncodeTiled's limits: 1 to 5 dimensions, boxes of 1 to 256.
  if (box.empty() || box.size() > 5 ||
      llvm::any_of(box, [](int64_t d) { return d < 1 || d > 256; }))
    return emitError() << "#tile.tma_store box has 1 to 5 extents in [1, "
                          "256], got "
                       << box.size() << " extents";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "#tile.tma_store swizzle is 0, 32, 64 or 128 "
                          "bytes, got "
                       << swizzle;
  return success();
}

LogicalResult
PartitionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t begin, int64_t threads) {
  // Whole warps: the named barriers and layouts of a partition count warps.
  if (begin < 0 || threads <= 0 || begin % 32 || threads % 32)
    return emitError() << "#tile.partition is a range of whole warps, got "
                          "begin = "
                       << begin << ", threads = " << threads;
  return success();
}

TargetAttr tilec::tile::lookupTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target = op->getAttrOfType<TargetAttr>(kTargetAttrName))
      return target;
  return {};
}

const tilec::TargetInfo *tilec::tile::requireTarget(Operation *op) {
  if (TargetAttr target = lookupTarget(op))
    return &target.getInfo();
  op->emitError() << "no target chip: the module has no '" << kTargetAttrName
                  << "' attribute (tilec sets it from --target; with "
                     "tilec-opt run -tile-set-target=chip=NAME first)";
  return nullptr;
}

std::optional<MemorySpace> tilec::tile::getMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

MemRefType tilec::tile::getBufferType(ArrayRef<int64_t> shape, Type elementType,
                                      MemorySpace space) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         MemorySpaceAttr::get(elementType.getContext(), space));
}
