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
