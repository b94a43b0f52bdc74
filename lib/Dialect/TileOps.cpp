//===- TileOps.cpp - Verifiers, syntax and builders of tile ops -----------===//
//
// The verifiers check what the TileLang frontend cannot see locally (shape
// agreement between tiles, memory spaces, nesting in a kernel) so that every
// pass after MLIRGen can rely on it. The region ops (kernel, parallel,
// pipelined, for) have hand-written syntax that names their block arguments
// in the op header, like `scf.for`; everything else uses assemblyFormat.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"

using namespace mlir;
using namespace tilec::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `[128, 64]`; `[]` for rank 0. Used in every shape diagnostic.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      os << '?';
    else
      os << dim;
  });
  os << ']';
  return text;
}

/// "global", "shared", "fragment", "local" (or "foreign" for a memory space
/// that is not ours).
static StringRef spaceName(MemRefType type) {
  if (isGlobal(type))
    return "global";
  if (std::optional<MemorySpace> space = getMemorySpace(type))
    return stringifyMemorySpace(*space);
  return "foreign";
}

static bool isInSpace(MemRefType type, MemorySpace space) {
  return getMemorySpace(type) == space;
}

/// The shape without its unit extents: what must agree between the two
/// boxes of a copy.
static SmallVector<int64_t> dropUnitExtents(ArrayRef<int64_t> extents) {
  return llvm::filter_to_vector(extents, [](int64_t e) { return e != 1; });
}

LogicalResult tilec::tile::verifyInKernel(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<KernelOp>(parent))
      return success();
    // After the grid is lowered the remaining tile ops stay legal inside the
    // GPU kernel that replaced it. Matched by name: the dialect does not
    // depend on the gpu dialect.
    StringRef name = parent->getName().getStringRef();
    if (name == "gpu.launch" || name == "gpu.func")
      return success();
  }
  return op->emitOpError("must be nested in a 'tile.kernel'");
}

/// Checks that a region op's single block has `count` index arguments.
static LogicalResult verifyIndexArgs(Operation *op, Block &block, size_t count,
                                     StringRef what) {
  if (block.getNumArguments() != count)
    return op->emitOpError() << "body has " << block.getNumArguments()
                             << " block arguments but " << what << " " << count;
  for (BlockArgument arg : block.getArguments())
    if (!arg.getType().isIndex())
      return op->emitOpError()
             << "block argument #" << arg.getArgNumber()
             << " must be of type 'index', got " << arg.getType();
  return success();
}

/// Creates the single body block of a region op with `numArgs` index
/// arguments and its implicit `tile.yield`.
static void buildBody(OpBuilder &builder, OperationState &state,
                      unsigned numArgs) {
  Region *region = state.addRegion();
  auto *block = new Block();
  region->push_back(block);
  for (unsigned i = 0; i < numArgs; ++i)
    block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

/// Parses a region whose block arguments were named in the op header, and
/// adds the implicit terminator.
static ParseResult parseBody(OpAsmParser &parser, OperationState &result,
                             ArrayRef<OpAsmParser::Argument> args) {
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args))
    return failure();
  OpBuilder builder(parser.getContext());
  KernelOp::ensureTerminator(*body, builder, result.location);
  return success();
}

static void printBody(OpAsmPrinter &p, Region &body) {
  p << ' ';
  p.printRegion(body, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

/// `(%a, %b)`: block arguments of type index, named in the op header.
static ParseResult
parseIndexArgs(OpAsmParser &parser,
               SmallVectorImpl<OpAsmParser::Argument> &args) {
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren))
    return failure();
  Type index = parser.getBuilder().getIndexType();
  for (OpAsmParser::Argument &arg : args)
    arg.type = index;
  return success();
}

/// `[1, 2, 3]` into a list of integers.
static ParseResult parseIntList(OpAsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
        return parser.parseInteger(values.emplace_back());
      });
}

static void printIntList(OpAsmPrinter &p, ArrayRef<int64_t> values) {
  p << '[';
  llvm::interleaveComma(values, p);
  p << ']';
}

/// `%iv = %lb to %ub step %step`, the header shared by pipelined and for.
static ParseResult parseLoopHeader(OpAsmParser &parser, OperationState &result,
                                   OpAsmParser::Argument &iv) {
  OpAsmParser::UnresolvedOperand lb, ub, step;
  Type index = parser.getBuilder().getIndexType();
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step) ||
      parser.resolveOperands({lb, ub, step}, index, result.operands))
    return failure();
  iv.type = index;
  return success();
}

static void printLoopHeader(OpAsmPrinter &p, Block &body, Value lb, Value ub,
                            Value step) {
  p << ' ';
  if (body.getNumArguments() > 0)
    p << body.getArgument(0);
  p << " = " << lb << " to " << ub << " step " << step;
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, ValueRange grid,
                     int64_t threads) {
  state.addOperands(grid);
  state.getOrAddProperties<Properties>().threads =
      builder.getI64IntegerAttr(threads);
  buildBody(builder, state, grid.size());
}

// tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(128) {attrs}? {body}
ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ids;
  SmallVector<OpAsmParser::UnresolvedOperand> grid;
  int64_t threads = 0;
  if (parser.parseKeyword("blocks") || parseIndexArgs(parser, ids) ||
      parser.parseKeyword("in") ||
      parser.parseOperandList(grid, OpAsmParser::Delimiter::Paren) ||
      parser.resolveOperands(grid, parser.getBuilder().getIndexType(),
                             result.operands) ||
      parser.parseKeyword("threads") || parser.parseLParen() ||
      parser.parseInteger(threads) || parser.parseRParen())
    return failure();
  result.getOrAddProperties<Properties>().threads =
      parser.getBuilder().getI64IntegerAttr(threads);
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parseBody(parser, result, ids);
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " blocks(";
  llvm::interleaveComma(getBlockIndices(), p,
                        [&](BlockArgument arg) { p << arg; });
  p << ") in (" << getGrid() << ") threads(" << getThreads() << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getThreadsAttrName()});
  printBody(p, getRegion());
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  static constexpr const char *names[] = {"bx", "by", "bz"};
  for (auto [i, arg] : llvm::enumerate(region.getArguments()))
    if (i < std::size(names))
      setNameFn(arg, names[i]);
}

LogicalResult KernelOp::verify() {
  size_t rank = getGrid().size();
  if (rank < 1 || rank > 3)
    return emitOpError() << "expects 1 to 3 grid extents, got " << rank;
  if (getThreads() <= 0)
    return emitOpError() << "threads must be positive, got " << getThreads();
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError("must not be nested in another 'tile.kernel'");
  return verifyIndexArgs(*this, *getBody(), rank,
                         "the number of grid dimensions is");
}

//===----------------------------------------------------------------------===//
// ThreadIdOp
//===----------------------------------------------------------------------===//

/// `x`, `y` or `z` for dimension 0, 1, 2 (a plain integer otherwise, so
/// that invalid IR still prints).
static ParseResult parseDim(OpAsmParser &parser, IntegerAttr &dim) {
  int64_t value = 0;
  OptionalParseResult integer = parser.parseOptionalInteger(value);
  if (!integer.has_value()) {
    StringRef keyword;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return failure();
    if (keyword == "x")
      value = 0;
    else if (keyword == "y")
      value = 1;
    else if (keyword == "z")
      value = 2;
    else
      return parser.emitError(loc)
             << "expected thread dimension x, y or z, got '" << keyword << "'";
  } else if (failed(*integer)) {
    return failure();
  }
  dim = parser.getBuilder().getI64IntegerAttr(value);
  return success();
}

static void printDim(OpAsmPrinter &p, Operation *, IntegerAttr dim) {
  int64_t value = dim.getInt();
  if (value >= 0 && value < 3)
    p << "xyz"[value];
  else
    p << value;
}

void ThreadIdOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  static constexpr const char *names[] = {"tx", "ty", "tz"};
  if (getDim() < std::size(names))
    setNameFn(getResult(), names[getDim()]);
}

LogicalResult ThreadIdOp::verify() {
  if (getDim() > 2)
    return emitOpError() << "dim must be 0, 1 or 2, got "
                         << static_cast<int64_t>(getDim());
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

void AllocOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // Dumps read like the source: %A_shared = tile.alloc "A_shared" ...
  if (!getName().empty())
    setNameFn(getResult(), getName());
}

LogicalResult AllocOp::verify() {
  MemRefType type = getType();
  if (!getMemorySpace(type))
    return emitOpError() << "expects a shared, fragment or local memory "
                            "space, got "
                         << spaceName(type) << " buffer " << type;
  if (!type.hasStaticShape())
    return emitOpError() << "expects a static shape, got " << type;
  if (!type.getLayout().isIdentity())
    return emitOpError() << "expects an identity memref layout (tile "
                            "layouts go in the 'layout' attribute), got "
                         << type;
  if (type.getRank() == 0 && !isInSpace(type, MemorySpace::local))
    return emitOpError() << "rank-0 buffers must be in the local space, got "
                         << spaceName(type);
  if (FragmentAttr layout = getLayoutAttr()) {
    if (!isInSpace(type, MemorySpace::fragment))
      return emitOpError() << "a 'layout' belongs on a fragment, not on a "
                           << spaceName(type) << " buffer";
    if (failed(layout.verifyShape([&] { return emitOpError(); },
                                  type.getShape(), "fragment")))
      return failure();
  }
  if (ReducerAttr reducer = getReducerAttr()) {
    if (!isInSpace(type, MemorySpace::fragment))
      return emitOpError() << "a 'reducer' belongs on a fragment, not on a "
                           << spaceName(type) << " buffer";
    ReduceKind kind = reducer.getKind();
    if (kind != ReduceKind::sum && kind != ReduceKind::max &&
        kind != ReduceKind::min)
      return emitOpError() << "a reducer combines with sum, max or min, not "
                           << stringifyReduceKind(kind);
  }
  return success();
}

ReducerAttr FinalizeReducerOp::getReducerAttr() {
  auto alloc = getReducer().getDefiningOp<AllocOp>();
  return alloc ? alloc.getReducerAttr() : ReducerAttr();
}

LogicalResult FinalizeReducerOp::verify() {
  if (!getReducerAttr())
    return emitOpError("expects a buffer allocated as a reducer (a tile.alloc "
                       "with a 'reducer' attribute)");
  return success();
}

LogicalResult MakeTensorOp::verify() {
  MemRefType type = getType();
  // A global tensor: the lowering builds its descriptor from the address
  // and the static row-major strides alone.
  if (type.getMemorySpace())
    return emitOpError() << "expects a global memref (no memory space), got "
                         << type;
  if (!type.getLayout().isIdentity())
    return emitOpError() << "expects an identity memref layout, got " << type;
  if (type.getRank() == 0)
    return emitOpError() << "expects a tensor of rank 1 or more";
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

void ReshapeOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  if (!getName().empty())
    setNameFn(getResult(), getName());
}

LogicalResult ReshapeOp::verify() {
  auto src = cast<MemRefType>(getSource().getType());
  auto dst = cast<MemRefType>(getResult().getType());
  if (!isInSpace(src, MemorySpace::fragment) ||
      !isInSpace(dst, MemorySpace::fragment))
    return emitOpError() << "views fragments only, got " << src << " -> "
                         << dst;
  if (!getSource().getDefiningOp<AllocOp>())
    return emitOpError("expects the source to be a fragment 'tile.alloc' (a "
                       "view of a view is one of the allocation)");
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "keeps the element type, got "
                         << src.getElementType() << " -> "
                         << dst.getElementType();
  if (!src.hasStaticShape() || !dst.hasStaticShape() ||
      !dst.getLayout().isIdentity())
    return emitOpError() << "expects static shapes and an identity memref "
                            "layout, got "
                         << dst;
  if (src.getNumElements() != dst.getNumElements())
    return emitOpError() << "keeps the element count, got "
                         << src.getNumElements() << " -> "
                         << dst.getNumElements();
  for (int64_t extent : llvm::concat<const int64_t>(src.getShape(),
                                                    dst.getShape()))
    if (!llvm::isPowerOf2_64(uint64_t(extent)))
      return emitOpError() << "expects power-of-two extents (a linear remap "
                              "of the layout's bits), got "
                           << src << " -> " << dst;
  if (FragmentAttr layout = getLayoutAttr())
    return layout.verifyShape([&] { return emitOpError(); }, dst.getShape(),
                              "fragment view");
  return success();
}

Value tilec::tile::viewSource(Value value) {
  if (auto view = value.getDefiningOp<ReshapeOp>())
    return view.getSource();
  return value;
}

void AllocBarrierOp::build(OpBuilder &builder, OperationState &state,
                           ArrayRef<int64_t> arriveCounts) {
  MemRefType type = getBufferType({static_cast<int64_t>(arriveCounts.size())},
                                  builder.getI64Type(), MemorySpace::shared);
  build(builder, state, type, arriveCounts);
}

LogicalResult AllocBarrierOp::verify() {
  MemRefType type = getType();
  ArrayRef<int64_t> counts = getArriveCounts();
  if (counts.empty())
    return emitOpError("expects at least one barrier");
  for (auto [i, count] : llvm::enumerate(counts))
    if (count <= 0)
      return emitOpError() << "arrive count of barrier " << i
                           << " must be positive, got " << count;
  MemRefType expected =
      getBufferType({static_cast<int64_t>(counts.size())},
                    IntegerType::get(getContext(), 64), MemorySpace::shared);
  if (type != expected)
    return emitOpError() << "result type " << type << " does not match the "
                         << counts.size() << " arrive counts; expected "
                         << expected;
  return success();
}

LogicalResult AnnotateLayoutOp::verify() {
  MemRefType type = getBuffer().getType();
  if (!isInSpace(type, MemorySpace::shared) &&
      !isInSpace(type, MemorySpace::fragment))
    return emitOpError() << "expects a shared or fragment buffer, got "
                         << spaceName(type) << " buffer " << type;
  if (isa<AnySwizzleAttr>(getLayout())) {
    if (!isInSpace(type, MemorySpace::shared))
      return emitOpError() << "#tile.any_swizzle applies to shared buffers, "
                              "got a fragment";
    return success();
  }
  if (!isInSpace(type, MemorySpace::fragment))
    return emitOpError() << "a #tile.fragment layout applies to fragments, "
                            "got a shared buffer";
  return cast<FragmentAttr>(getLayout())
      .verifyShape([&] { return emitOpError(); }, type.getShape(), "fragment");
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

/// Checks one side of a copy: one offset and one extent per dimension,
/// positive extents, and (for on-chip buffers, which are never guarded) a
/// box that fits the buffer.
static LogicalResult verifyCopyBox(CopyOp op, StringRef side, Value buffer,
                                   OperandRange offsets,
                                   ArrayRef<int64_t> extents) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(offsets.size()) != rank)
    return op.emitOpError()
           << "expects " << rank << " " << side
           << " offsets (one per dimension), got " << offsets.size();
  if (static_cast<int64_t>(extents.size()) != rank)
    return op.emitOpError()
           << "expects " << rank << " " << side
           << " extents (one per dimension), got " << extents.size();
  for (auto [dim, extent] : llvm::enumerate(extents))
    if (extent <= 0)
      return op.emitOpError() << side << " extent " << extent
                              << " of dimension " << dim << " must be positive";
  if (isGlobal(type))
    return success();
  for (auto [dim, extent] : llvm::enumerate(extents)) {
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      continue;
    APInt offset;
    int64_t begin = 0;
    if (matchPattern(offsets[dim], m_ConstantInt(&offset)))
      begin = offset.getSExtValue();
    if (begin < 0 || begin + extent > size)
      return op.emitOpError()
             << side << " box [" << begin << ", " << begin + extent
             << ") exceeds dimension " << dim << " of the " << spaceName(type)
             << " " << side << " buffer (size " << size << ")";
  }
  return success();
}

LogicalResult CopyOp::verify() {
  if (failed(verifyCopyBox(*this, "source", getSrc(), getSrcOffsets(),
                           getSrcExtents())) ||
      failed(verifyCopyBox(*this, "destination", getDst(), getDstOffsets(),
                           getDstExtents())))
    return failure();
  SmallVector<int64_t> src = dropUnitExtents(getSrcExtents());
  SmallVector<int64_t> dst = dropUnitExtents(getDstExtents());
  if (src != dst)
    return emitOpError() << "source box " << formatShape(getSrcExtents())
                         << " does not match destination box "
                         << formatShape(getDstExtents()) << " (compared as "
                         << formatShape(src) << " and " << formatShape(dst)
                         << " after dropping unit extents)";
  if (std::optional<uint64_t> width = getCoalescedWidth();
      width && static_cast<int64_t>(*width) <= 0)
    return emitOpError() << "coalesced_width must be positive, got "
                         << static_cast<int64_t>(*width);
  return success();
}

//===----------------------------------------------------------------------===//
// FillOp, AtomicAddOp
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() {
  Type element = getDst().getType().getElementType();
  if (getValue().getType() != element)
    return emitOpError() << "value type " << getValue().getType()
                         << " does not match element type " << element
                         << " of the destination";
  return success();
}

LogicalResult AtomicAddOp::verify() {
  MemRefType type = getDst().getType();
  if (!isGlobal(type) && !isInSpace(type, MemorySpace::shared))
    return emitOpError() << "expects a global or shared destination, got "
                         << spaceName(type) << " buffer " << type;
  if (static_cast<int64_t>(getIndices().size()) != type.getRank())
    return emitOpError() << "expects " << type.getRank()
                         << " indices (one per dimension), got "
                         << getIndices().size();
  if (getValue().getType() != type.getElementType())
    return emitOpError() << "value type " << getValue().getType()
                         << " does not match element type "
                         << type.getElementType() << " of the destination";
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

static bool isGemmInputType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type) ||
         type.isSignlessInteger(8);
}

static bool isGemmAccumulatorType(Type type) {
  return type.isF32() || type.isF16() || type.isSignlessInteger(32);
}

Value GemmOp::getOperandBuffer(unsigned i) {
  return i == 0 ? getA() : i == 1 ? getB() : getC();
}

OperandRange GemmOp::getOperandOffsets(unsigned i) {
  return i == 0 ? getAOffsets() : i == 1 ? getBOffsets() : getCOffsets();
}

std::array<int64_t, 2> GemmOp::getOperandShape(unsigned i) {
  std::optional<ArrayRef<int64_t>> extents = i == 0   ? getAExtents()
                                             : i == 1 ? getBExtents()
                                                      : getCExtents();
  if (extents && extents->size() == 2)
    return {(*extents)[0], (*extents)[1]};
  ArrayRef<int64_t> shape =
      cast<MemRefType>(getOperandBuffer(i).getType()).getShape();
  if (shape.size() < 2)
    return {0, 0};
  return {shape[shape.size() - 2], shape[shape.size() - 1]};
}

std::array<int64_t, 2> GemmOp::getOperandOrigin(unsigned i) {
  OperandRange offsets = getOperandOffsets(i);
  if (offsets.size() < 2)
    return {0, 0};
  std::array<int64_t, 2> origin{0, 0};
  for (unsigned d = 0; d < 2; ++d) {
    APInt v;
    if (matchPattern(offsets[offsets.size() - 2 + d], m_ConstantInt(&v)))
      origin[d] = v.getSExtValue();
  }
  return origin;
}

Value GemmOp::getOperandStage(unsigned i) {
  OperandRange offsets = getOperandOffsets(i);
  return offsets.size() == 3 ? offsets[0] : Value();
}

LogicalResult GemmOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType(), c = getC().getType();
  const char *names[3] = {"A", "B", "C"};
  for (unsigned i = 0; i < 3; ++i) {
    StringRef name = names[i];
    auto type = cast<MemRefType>(getOperandBuffer(i).getType());
    if (!type.hasStaticShape())
      return emitOpError() << "expects static shapes, got " << name << " of "
                           << type;
    std::optional<ArrayRef<int64_t>> extents = i == 0   ? getAExtents()
                                               : i == 1 ? getBExtents()
                                                        : getCExtents();
    OperandRange offsets = getOperandOffsets(i);
    if (offsets.empty()) {
      if (extents)
        return emitOpError() << "has extents but no offsets for " << name;
      if (type.getRank() != 2)
        return emitOpError() << "expects rank-2 operands, got " << name
                             << " of rank " << type.getRank();
      continue;
    }
    // A region: the buffer's last two dimensions are the matrix, a
    // leading one (a ring's stage) an index.
    bool shared = isInSpace(type, MemorySpace::shared);
    if (type.getRank() != 2 && !(shared && type.getRank() == 3))
      return emitOpError() << "expects a region of a rank-2 buffer (or of a "
                              "rank-3 shared one), got "
                           << name << " of rank " << type.getRank();
    if (int64_t(offsets.size()) != type.getRank())
      return emitOpError() << "expects one offset per dimension of " << name
                           << ", got " << offsets.size();
    if (!extents || extents->size() != 2)
      return emitOpError() << "expects the two matrix extents of the region "
                              "of "
                           << name;
    ArrayRef<int64_t> shape = type.getShape().take_back(2);
    for (unsigned d = 0; d < 2; ++d) {
      APInt v;
      if (!matchPattern(offsets[offsets.size() - 2 + d], m_ConstantInt(&v)))
        return emitOpError() << "expects constant matrix offsets for the "
                                "region of "
                             << name;
      int64_t o = v.getSExtValue(), e = (*extents)[d];
      if (o < 0 || e <= 0 || o + e > shape[d])
        return emitOpError()
               << "region of " << name << " at offset " << o << " with extent "
               << e << " leaves dimension " << (type.getRank() - 2 + d)
               << " of extent " << shape[d];
    }
    if (type.getRank() == 3) {
      APInt v;
      if (matchPattern(offsets[0], m_ConstantInt(&v)) &&
          (v.isNegative() || v.getSExtValue() >= type.getDimSize(0)))
        return emitOpError()
               << "stage " << v.getSExtValue() << " of " << name
               << " is outside its " << type.getDimSize(0) << " tiles";
    }
  }
  for (auto [name, type] : {std::pair<StringRef, MemRefType>{"A", a}, {"B", b}})
    if (!isInSpace(type, MemorySpace::shared) &&
        !isInSpace(type, MemorySpace::fragment))
      return emitOpError() << "expects " << name
                           << " in shared or fragment memory, got "
                           << spaceName(type);
  if (!isInSpace(c, MemorySpace::fragment))
    return emitOpError() << "expects C in fragment memory, got "
                         << spaceName(c);

  // op(A) is M x K and op(B) is K x N.
  bool ta = getTransposeA(), tb = getTransposeB();
  std::array<int64_t, 2> as = getOperandShape(0), bs = getOperandShape(1),
                         cs = getOperandShape(2);
  int64_t aM = as[ta ? 1 : 0], aK = as[ta ? 0 : 1];
  int64_t bK = bs[tb ? 1 : 0], bN = bs[tb ? 0 : 1];
  auto shapes = [&]() {
    return std::string(" (A: ") + formatShape(as) + (ta ? " transposed" : "") +
           ", B: " + formatShape(bs) + (tb ? " transposed" : "") +
           ", C: " + formatShape(cs) + ")";
  };
  if (aK != bK)
    return emitOpError() << "K of A (" << aK << ") does not match K of B ("
                         << bK << ")" << shapes();
  if (aM != cs[0])
    return emitOpError() << "M of A (" << aM << ") does not match M of C ("
                         << cs[0] << ")" << shapes();
  if (bN != cs[1])
    return emitOpError() << "N of B (" << bN << ") does not match N of C ("
                         << cs[1] << ")" << shapes();

  Type aElt = a.getElementType(), bElt = b.getElementType(),
       cElt = c.getElementType();
  for (auto [name, type] : {std::pair<StringRef, Type>{"A", aElt}, {"B", bElt}})
    if (!isGemmInputType(type))
      return emitOpError() << name << " element type " << type
                           << " is not one of f16, bf16, f32, f8E4M3FN, "
                              "f8E5M2, i8";
  // The two FP8 formats may be mixed (the tensor cores accept e4m3 x e5m2).
  bool bothF8 = isa<Float8E4M3FNType, Float8E5M2Type>(aElt) &&
                isa<Float8E4M3FNType, Float8E5M2Type>(bElt);
  if (aElt != bElt && !bothF8)
    return emitOpError() << "A and B element types differ (" << aElt << " vs "
                         << bElt << ")";
  if (!isGemmAccumulatorType(cElt))
    return emitOpError() << "C element type " << cElt
                         << " is not one of f32, f16, i32";
  if (aElt.isInteger() != cElt.isInteger())
    return emitOpError() << aElt << " inputs need "
                         << (aElt.isInteger() ? "an i32" : "a float")
                         << " accumulator, got " << cElt;
  if (static_cast<int64_t>(getKPack()) <= 0)
    return emitOpError() << "k_pack must be positive, got "
                         << static_cast<int64_t>(getKPack());
  if (static_cast<int64_t>(getWgWait()) < -1)
    return emitOpError() << "wg_wait must be -1 or non-negative, got "
                         << static_cast<int64_t>(getWgWait());
  // An async gemm is waited for by tile.wait_wgmma, never by itself.
  if (getAsync() && static_cast<int64_t>(getWgWait()) != 0)
    return emitOpError() << "an async gemm takes no wg_wait (its groups are "
                            "completed by tile.wait_wgmma), got "
                         << static_cast<int64_t>(getWgWait());
  if (getAsync() && !cElt.isF32())
    return emitOpError() << "an async gemm (wgmma) accumulates in f32, got "
                         << cElt;
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp, ScanOp
//===----------------------------------------------------------------------===//

/// Checks `dim` against the source rank and that the element types agree.
static LogicalResult verifyAlongDim(Operation *op, MemRefType src,
                                    MemRefType dst, int64_t dim,
                                    bool sameType = true) {
  if (dim < 0 || dim >= src.getRank())
    return op->emitOpError()
           << "dim " << dim << " is out of range for a source of rank "
           << src.getRank();
  // A reduction may accumulate into a wider type of the same kind (float16
  // into float32, as TileLang's reductions cast each element).
  bool sameKind = isa<FloatType>(src.getElementType()) ==
                  isa<FloatType>(dst.getElementType());
  if (!sameType && !sameKind)
    return op->emitOpError()
           << "destination element type " << dst.getElementType()
           << " is not of the kind (float or integer) of source element type "
           << src.getElementType();
  if (sameType && src.getElementType() != dst.getElementType())
    return op->emitOpError()
           << "destination element type " << dst.getElementType()
           << " does not match source element type " << src.getElementType();
  return success();
}

LogicalResult ReduceOp::verify() {
  MemRefType src = getSrc().getType(), dst = getDst().getType();
  int64_t dim = static_cast<int64_t>(getDim());
  if (failed(verifyAlongDim(*this, src, dst, dim, /*sameType=*/false)))
    return failure();
  SmallVector<int64_t> removed(src.getShape());
  removed.erase(removed.begin() + dim);
  SmallVector<int64_t> kept(src.getShape());
  kept[dim] = 1;
  if (dst.getShape() != ArrayRef<int64_t>(removed) &&
      dst.getShape() != ArrayRef<int64_t>(kept))
    return emitOpError() << "destination shape " << formatShape(dst.getShape())
                         << " is neither " << formatShape(removed) << " (dim "
                         << dim << " removed) nor " << formatShape(kept)
                         << " (dim " << dim << " kept) for source shape "
                         << formatShape(src.getShape());
  return success();
}

LogicalResult ScanOp::verify() {
  MemRefType src = getSrc().getType(), dst = getDst().getType();
  if (failed(verifyAlongDim(*this, src, dst, static_cast<int64_t>(getDim()))))
    return failure();
  if (src.getShape() != dst.getShape())
    return emitOpError() << "destination shape " << formatShape(dst.getShape())
                         << " does not match source shape "
                         << formatShape(src.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

void ParallelOp::build(OpBuilder &builder, OperationState &state,
                       ArrayRef<int64_t> extents) {
  state.getOrAddProperties<Properties>().extents =
      builder.getDenseI64ArrayAttr(extents);
  buildBody(builder, state, extents.size());
}

// tile.parallel (%i, %j) in [128, 64] {attrs}? {body}
ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<int64_t> extents;
  if (parseIndexArgs(parser, ivs) || parser.parseKeyword("in") ||
      parseIntList(parser, extents))
    return failure();
  result.getOrAddProperties<Properties>().extents =
      parser.getBuilder().getDenseI64ArrayAttr(extents);
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parseBody(parser, result, ivs);
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getInductionVars(), p,
                        [&](BlockArgument arg) { p << arg; });
  p << ") in ";
  printIntList(p, getExtents());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getExtentsAttrName()});
  printBody(p, getRegion());
}

LogicalResult ParallelOp::verify() {
  ArrayRef<int64_t> extents = getExtents();
  if (extents.empty())
    return emitOpError("expects at least one extent");
  for (auto [i, extent] : llvm::enumerate(extents))
    if (extent <= 0)
      return emitOpError() << "extent " << i << " must be positive, got "
                           << extent;
  if (FragmentAttr layout = getFragmentLayout())
    if (failed(
            layout.verifyShape([&] { return emitOpError(); }, extents, "loop")))
      return failure();
  return verifyIndexArgs(*this, *getBody(), extents.size(),
                         "the number of extents is");
}

//===----------------------------------------------------------------------===//
// PipelinedOp
//===----------------------------------------------------------------------===//

void PipelinedOp::build(OpBuilder &builder, OperationState &state, Value lb,
                        Value ub, Value step, int64_t numStages) {
  state.addOperands({lb, ub, step});
  state.getOrAddProperties<Properties>().num_stages =
      builder.getI64IntegerAttr(numStages);
  buildBody(builder, state, 1);
}

// tile.pipelined %k = %lb to %ub step %s num_stages(3)
//     (order [..])? (stage [..])? (group [[..], ..])? {attrs}? {body}
ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  int64_t numStages = 0;
  if (parseLoopHeader(parser, result, iv) ||
      parser.parseKeyword("num_stages") || parser.parseLParen() ||
      parser.parseInteger(numStages) || parser.parseRParen())
    return failure();
  Builder &builder = parser.getBuilder();
  Properties &props = result.getOrAddProperties<Properties>();
  props.num_stages = builder.getI64IntegerAttr(numStages);
  if (succeeded(parser.parseOptionalKeyword("order"))) {
    SmallVector<int64_t> order;
    if (parseIntList(parser, order))
      return failure();
    props.order = builder.getDenseI64ArrayAttr(order);
  }
  if (succeeded(parser.parseOptionalKeyword("stage"))) {
    SmallVector<int64_t> stage;
    if (parseIntList(parser, stage))
      return failure();
    props.stage = builder.getDenseI64ArrayAttr(stage);
  }
  if (succeeded(parser.parseOptionalKeyword("group"))) {
    SmallVector<Attribute> groups;
    if (parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
              SmallVector<int64_t> members;
              if (parseIntList(parser, members))
                return failure();
              groups.push_back(builder.getDenseI64ArrayAttr(members));
              return success();
            }))
      return failure();
    props.group = builder.getArrayAttr(groups);
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parseBody(parser, result, {iv});
}

void PipelinedOp::print(OpAsmPrinter &p) {
  printLoopHeader(p, *getBody(), getLb(), getUb(), getStep());
  p << " num_stages(" << getNumStages() << ")";
  if (std::optional<ArrayRef<int64_t>> order = getOrder()) {
    p << " order ";
    printIntList(p, *order);
  }
  if (std::optional<ArrayRef<int64_t>> stage = getStage()) {
    p << " stage ";
    printIntList(p, *stage);
  }
  if (ArrayAttr groups = getGroupAttr()) {
    p << " group [";
    llvm::interleaveComma(groups, p, [&](Attribute group) {
      printIntList(p, cast<DenseI64ArrayAttr>(group).asArrayRef());
    });
    p << ']';
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getNumStagesAttrName(), getOrderAttrName(),
                            getStageAttrName(), getGroupAttrName()});
  printBody(p, getRegion());
}

LogicalResult PipelinedOp::verify() {
  int64_t numStages = static_cast<int64_t>(getNumStages());
  if (numStages < 0)
    return emitOpError() << "num_stages must be non-negative, got "
                         << numStages;
  std::optional<ArrayRef<int64_t>> order = getOrder(), stage = getStage();
  if (order && stage && order->size() != stage->size())
    return emitOpError() << "order has " << order->size()
                         << " entries but stage has " << stage->size();
  if (ArrayAttr groups = getGroupAttr()) {
    // With groups, order and stage are given per group, not per statement.
    for (auto [name, list] : {std::pair{StringRef("order"), order},
                              std::pair{StringRef("stage"), stage}})
      if (list && list->size() != groups.size())
        return emitOpError() << name << " has " << list->size()
                             << " entries but group has " << groups.size();
  }
  return verifyIndexArgs(*this, *getBody(), 1, "a loop has");
}

//===----------------------------------------------------------------------===//
// ForOp
//===----------------------------------------------------------------------===//

void ForOp::build(OpBuilder &builder, OperationState &state, LoopKind kind,
                  Value lb, Value ub, Value step) {
  state.addOperands({lb, ub, step});
  state.getOrAddProperties<Properties>().kind =
      LoopKindAttr::get(builder.getContext(), kind);
  buildBody(builder, state, 1);
}

// tile.for unroll %i = %lb to %ub step %s {attrs}? {body}
ParseResult ForOp::parse(OpAsmParser &parser, OperationState &result) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<LoopKind> kind = symbolizeLoopKind(keyword);
  if (!kind)
    return parser.emitError(loc) << "expected loop kind serial, unroll or "
                                    "vectorized, got '"
                                 << keyword << "'";
  result.getOrAddProperties<Properties>().kind =
      LoopKindAttr::get(parser.getContext(), *kind);
  OpAsmParser::Argument iv;
  if (parseLoopHeader(parser, result, iv) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parseBody(parser, result, {iv});
}

void ForOp::print(OpAsmPrinter &p) {
  p << ' ' << stringifyLoopKind(getKind());
  printLoopHeader(p, *getBody(), getLb(), getUb(), getStep());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getKindAttrName()});
  printBody(p, getRegion());
}

LogicalResult ForOp::verify() {
  return verifyIndexArgs(*this, *getBody(), 1, "a loop has");
}

//===----------------------------------------------------------------------===//
// UseSwizzleOp
//===----------------------------------------------------------------------===//

LogicalResult UseSwizzleOp::verify() {
  if (static_cast<int64_t>(getPanelSize()) <= 0)
    return emitOpError() << "panel_size must be positive, got "
                         << static_cast<int64_t>(getPanelSize());
  return success();
}

//===----------------------------------------------------------------------===//
// WsOp, SetMaxNRegOp
//===----------------------------------------------------------------------===//

LogicalResult WsOp::verify() {
  ArrayRef<int64_t> ids = getWarpgroups();
  if (ids.empty())
    return emitOpError("names at least one warpgroup");
  for (auto [i, id] : llvm::enumerate(ids))
    if (id < 0 || (i && id != ids[i - 1] + 1))
      return emitOpError() << "warpgroups are consecutive non-negative ids, "
                              "got "
                           << getWarpgroupsAttr();
  // An arm of whole warps of a thread branch (ThreadPartitions.cpp) records
  // its threads, inside the warpgroups it names.
  if (auto p =
          (*this)->getAttrOfType<PartitionAttr>(PartitionAttr::getAttrName()))
    if (p.getBegin() < ids.front() * 128 ||
        p.getEnd() > (ids.back() + 1) * 128) {
      std::string names;
      for (int64_t id : ids)
        names += (names.empty() ? "" : ", ") + std::to_string(id);
      return emitOpError() << "runs threads [" << p.getBegin() << ", "
                           << p.getEnd() << "), outside its warpgroups ["
                           << names << "]";
    }
  return success();
}

LogicalResult WaitWgmmaOp::verify() {
  if (static_cast<int64_t>(getPending()) < 0)
    return emitOpError() << "pending group count must be non-negative, got "
                         << static_cast<int64_t>(getPending());
  return success();
}

LogicalResult SetMaxNRegOp::verify() {
  int64_t count = getCount();
  if (count < 24 || count > 256 || count % 8)
    return emitOpError() << "register count must be a multiple of 8 in "
                            "[24, 256], got "
                         << count;
  return success();
}

//===----------------------------------------------------------------------===//
// CpAsyncOp, CpAsyncWaitOp
//===----------------------------------------------------------------------===//

LogicalResult CpAsyncOp::verify() {
  auto src = cast<MemRefType>(getSrc().getType());
  auto dst = cast<MemRefType>(getDst().getType());
  if (!isGlobal(src))
    return emitOpError() << "source must be a global tensor, got " << src;
  if (!isInSpace(dst, MemorySpace::shared))
    return emitOpError() << "destination must be a shared buffer, got " << dst;
  if (int64_t(getSrcIndices().size()) != src.getRank() ||
      int64_t(getDstIndices().size()) != dst.getRank())
    return emitOpError() << "needs one index per dimension of each buffer";
  // A byte copy: the element types may differ, their widths may not.
  if (src.getElementTypeBitWidth() != dst.getElementTypeBitWidth() ||
      dst.getElementTypeBitWidth() % 8)
    return emitOpError() << "source and destination elements must be whole "
                            "bytes of one width, got "
                         << src.getElementType() << " and "
                         << dst.getElementType();
  int64_t elements = getElements();
  int64_t bytes = elements > 0 ? getBytes() : 0;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitOpError() << "copies 4, 8 or 16 bytes, got " << elements
                         << " elements of " << dst.getElementType();
  return success();
}

LogicalResult CpAsyncWaitOp::verify() {
  if (static_cast<int64_t>(getPending()) < 0)
    return emitOpError() << "pending group count must be non-negative, got "
                         << static_cast<int64_t>(getPending());
  return success();
}

#define GET_OP_CLASSES
#include "tilec/Dialect/TileOps.cpp.inc"
