//===- OutlineKernels.cpp - tile-outline-kernels: tile.kernel -> gpu.func -===//
//
// Algorithm: for each func.func marked `tile.kernel`, in order, and each
// tile.kernel it holds, in program order:
//  1. Create `gpu.func @<func>_kernel[<i>]` in `gpu.module @tilec_kernels`
//     whose parameters are the func's, retyped for the bare-pointer ABI:
//     static memrefs as they are, dynamic memrefs as rank-0 memrefs (the
//     base pointer; the kernel rebuilds the shaped view with
//     memref.reinterpret_cast from the symbol arguments), index as i32.
//  2. Map block indices to gpu.block_id, recompute (clone) the pure host
//     values the body uses, clone the body, and turn tile.thread_id into
//     gpu.thread_id and tile.use_swizzle into a block-index remap.
//  3. Replace the tile.kernel by a gpu.launch_func passing the func's
//     arguments (cast the same way), and record the launch data as
//     attributes on the gpu.func and the kernel list on the func.
// Kernels see every func argument, so the launch ABI is the prim_func's
// parameter list whatever each kernel uses.
//
// A persistent kernel (kPersistentAttr, tile-plan-warp-specialize's
// decision; its grid is static) becomes a loop over the blocks of its
// grid, started at the launched block's linear index and stepping by the
// launched grid's size, with the block indices computed from the loop's:
//
//   for v in [bid.x + gdim.x * (bid.y + gdim.y * bid.z), gx * gy * gz)
//       step gdim.x * gdim.y * gdim.z:
//     bx, by, bz = v % gx, (v / gx) % gy, v / (gx * gy)
//     <body>; barrier
//
// so any launch grid computes every tile once: the header launches
// min(tiles, multiprocessors) blocks, a launcher that knows nothing of it
// the whole grid (one tile per block). The barrier ends a tile before the
// next one reuses its shared buffers.
//
//===----------------------------------------------------------------------===//

#include "GemmLowering.h"
#include "SIMTLayout.h"

#include "tilec/Dialect/TileOps.h"
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-outline-kernels"

namespace tilec {
#define GEN_PASS_DEF_TILEOUTLINEKERNELS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

constexpr StringLiteral kModuleName = "tilec_kernels";

/// The kernel parameter type of a prim_func argument, or null.
Type kernelParamType(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (memref.hasStaticShape())
      return memref;
    return MemRefType::get({}, memref.getElementType(), AffineMap(),
                           memref.getMemorySpace());
  }
  if (type.isIndex())
    return IntegerType::get(type.getContext(), 32);
  if (type.isIntOrFloat())
    return type;
  return nullptr;
}

/// Builds index arithmetic for a `tile.shape` entry such as "(n + 127) /
/// 128 * 2": integers, symbol names, + - * / % and parentheses, with C
/// precedence (the header evaluates the same text in C++). Returns null on
/// anything else.
class ExprParser {
public:
  ExprParser(StringRef text, OpBuilder &b, Location loc,
             function_ref<Value(StringRef)> lookup)
      : text(text), b(b), loc(loc), lookup(lookup) {}

  Value parse() {
    Value v = sum();
    skipSpace();
    return pos == text.size() ? v : Value();
  }

private:
  void skipSpace() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool eat(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  Value sum() {
    Value lhs = product();
    while (lhs) {
      if (eat('+'))
        lhs = binary<arith::AddIOp>(lhs, product());
      else if (eat('-'))
        lhs = binary<arith::SubIOp>(lhs, product());
      else
        break;
    }
    return lhs;
  }
  Value product() {
    Value lhs = atom();
    while (lhs) {
      if (eat('*'))
        lhs = binary<arith::MulIOp>(lhs, atom());
      else if (eat('/'))
        lhs = binary<arith::DivSIOp>(lhs, atom());
      else if (eat('%'))
        lhs = binary<arith::RemSIOp>(lhs, atom());
      else
        break;
    }
    return lhs;
  }
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return rhs ? Value(OpTy::create(b, loc, lhs, rhs)) : Value();
  }
  Value atom() {
    if (eat('(')) {
      Value v = sum();
      return eat(')') ? v : Value();
    }
    skipSpace();
    size_t start = pos;
    if (pos < text.size() && llvm::isDigit(text[pos])) {
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t value;
      if (text.slice(start, pos).getAsInteger(10, value))
        return nullptr;
      return arith::ConstantIndexOp::create(b, loc, value);
    }
    while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    if (start == pos)
      return nullptr;
    return lookup(text.slice(start, pos));
  }

  StringRef text;
  size_t pos = 0;
  OpBuilder &b;
  Location loc;
  function_ref<Value(StringRef)> lookup;
};

class Outliner {
public:
  Outliner(mlir::func::FuncOp func, gpu::GPUModuleOp gpuModule)
      : func(func), gpuModule(gpuModule), ctx(func.getContext()) {}

  LogicalResult run() {
    SmallVector<tile::KernelOp> kernels;
    func.walk<WalkOrder::PreOrder>([&](tile::KernelOp kernel) {
      kernels.push_back(kernel);
      return WalkResult::skip();
    });
    if (failed(checkSignature()))
      return failure();
    SmallVector<Attribute> symbols;
    for (auto [i, kernel] : llvm::enumerate(kernels)) {
      std::string name = (func.getName() + "_kernel").str();
      if (kernels.size() > 1)
        name += std::to_string(i);
      FailureOr<gpu::GPUFuncOp> outlined = outline(kernel, name, int64_t(i));
      if (failed(outlined))
        return failure();
      symbols.push_back(SymbolRefAttr::get(
          gpuModule.getNameAttr(),
          {FlatSymbolRefAttr::get(outlined->getNameAttr())}));
    }
    func->setAttr("tile.kernels", ArrayAttr::get(ctx, symbols));
    return success();
  }

private:
  LogicalResult checkSignature() {
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      if (!kernelParamType(type))
        return func.emitError() << "argument #" << i << " of type " << type
                                << " cannot be passed to a GPU kernel";
      auto memref = dyn_cast<MemRefType>(type);
      if (memref && !memref.getLayout().isIdentity())
        return func.emitError() << "argument #" << i
                                << " must be a row-major tensor, not " << type;
    }
    return success();
  }

  /// The func argument that is symbol `name`, or null.
  Value symbolArg(StringRef name) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto sym = func.getArgAttrOfType<StringAttr>(i, "tile.symbol"))
        if (sym.getValue() == name)
          return func.getArgument(i);
    return nullptr;
  }

  /// The sizes of dynamic tensor argument `i` on the device: from its
  /// `tile.shape` attribute (symbol names or integers), or, without one,
  /// the only symbol argument of the func.
  FailureOr<SmallVector<OpFoldResult>> dynamicSizes(OpBuilder &b, unsigned i) {
    auto type = cast<MemRefType>(func.getArgument(i).getType());
    SmallVector<OpFoldResult> sizes;
    auto shape = func.getArgAttrOfType<ArrayAttr>(i, "tile.shape");
    SmallVector<Value> symbols;
    for (unsigned a = 0; a < func.getNumArguments(); ++a)
      if (func.getArgAttr(a, "tile.symbol"))
        symbols.push_back(func.getArgument(a));
    for (auto [d, extent] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(extent)) {
        sizes.push_back(b.getIndexAttr(extent));
        continue;
      }
      if (shape && d < shape.size()) {
        auto expr = dyn_cast<StringAttr>(shape[d]);
        Value size;
        auto lookup = [&](StringRef name) -> Value {
          Value arg = symbolArg(name);
          return arg ? mapping.lookupOrNull(arg) : Value();
        };
        if (expr)
          size = ExprParser(expr.getValue(), b, func.getLoc(), lookup).parse();
        if (!size)
          return func.emitError()
                 << "dimension " << d << " of argument #" << i << " is "
                 << shape[d]
                 << "; a dynamic dimension must be an integer expression "
                    "(+ - * / %, parentheses) over symbol names";
        sizes.push_back(size);
        continue;
      }
      if (symbols.size() != 1)
        return func.emitError()
               << "cannot tell which symbol is dimension " << d
               << " of argument #" << i
               << "; give the argument a `tile.shape` attribute naming "
                  "the symbol of each dynamic dimension";
      sizes.push_back(mapping.lookup(symbols.front()));
    }
    return sizes;
  }

  /// Entry of the kernel: func arguments and block indices as device values.
  LogicalResult mapArguments(OpBuilder &b, gpu::GPUFuncOp kernelFunc,
                             tile::KernelOp kernel) {
    Block &entry = kernelFunc.getBody().front();
    Location loc = kernel.getLoc();
    // Scalars first: dynamic shapes are built from symbols.
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      Value param = entry.getArgument(i);
      if (arg.getType().isIndex())
        mapping.map(
            arg, arith::IndexCastOp::create(b, loc, b.getIndexType(), param));
      else if (!isa<MemRefType>(arg.getType()) ||
               cast<MemRefType>(arg.getType()).hasStaticShape())
        mapping.map(arg, param);
    }
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape())
        continue;
      FailureOr<SmallVector<OpFoldResult>> sizes = dynamicSizes(b, i);
      if (failed(sizes))
        return failure();
      // Row-major strides: the product of the sizes to the right.
      SmallVector<OpFoldResult> strides(type.getRank());
      OpFoldResult running = b.getIndexAttr(1);
      for (int64_t d = type.getRank() - 1; d >= 0; --d) {
        strides[d] = running;
        if (d > 0)
          running = multiply(b, loc, running, (*sizes)[d]);
      }
      Value param = entry.getArgument(i);
      mapping.map(arg, memref::ReinterpretCastOp::create(b, loc, type, param,
                                                         b.getIndexAttr(0),
                                                         *sizes, strides));
    }
    static const gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                                          gpu::Dimension::z};
    for (auto [d, index] : llvm::enumerate(kernel.getBlockIndices()))
      mapping.map(index, gpu::BlockIdOp::create(b, loc, dims[d]));
    return success();
  }

  static OpFoldResult multiply(OpBuilder &b, Location loc, OpFoldResult x,
                               OpFoldResult y) {
    std::optional<int64_t> cx = getConstantIntValue(x);
    std::optional<int64_t> cy = getConstantIntValue(y);
    if (cx && cy)
      return b.getIndexAttr(*cx * *cy);
    if (cx == 1)
      return y;
    if (cy == 1)
      return x;
    auto materialize = [&](OpFoldResult v) -> Value {
      if (auto value = dyn_cast<Value>(v))
        return value;
      return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(v));
    };
    return arith::MulIOp::create(b, loc, materialize(x), materialize(y))
        .getResult();
  }

  /// Clones, into the kernel, the pure host computation of `value`.
  LogicalResult recompute(OpBuilder &b, Value value) {
    if (mapping.contains(value))
      return success();
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumRegions() != 0 || !isMemoryEffectFree(def)) {
      Operation *user = nullptr;
      for (Operation *u : value.getUsers())
        user = u;
      return (user ? user : func.getOperation())->emitError()
             << "the kernel uses a host value that cannot be recomputed on "
                "the device";
    }
    for (Value operand : def->getOperands())
      if (failed(recompute(b, operand)))
        return failure();
    b.clone(*def, mapping);
    return success();
  }

  FailureOr<gpu::GPUFuncOp> outline(tile::KernelOp kernel, StringRef name,
                                    int64_t index) {
    Location loc = kernel.getLoc();
    SmallVector<Type> paramTypes;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      // A 64-bit T.dynamic size (`tile.symbol_bits = 64`) stays int64.
      paramTypes.push_back(func.getArgAttr(i, "tile.symbol_bits")
                               ? IntegerType::get(ctx, 64)
                               : kernelParamType(type));
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(gpuModule.getBody());
    auto kernelFunc = gpu::GPUFuncOp::create(
        b, loc, name, FunctionType::get(ctx, paramTypes, {}));
    kernelFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                        b.getUnitAttr());
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      if (DictionaryAttr attrs = func.getArgAttrDict(i))
        for (NamedAttribute attr : attrs)
          kernelFunc.setArgAttr(i, attr.getName(), attr.getValue());
      if (isa<MemRefType>(func.getArgument(i).getType())) {
        // The launch header checks 16-byte alignment; LLVM's load/store
        // vectorizer needs both facts to form 16-byte accesses.
        // A T.ptr table is checked (and read) at 8 bytes only.
        bool table = func.getArgAttr(i, "tile.dtype") != nullptr;
        kernelFunc.setArgAttr(i, "llvm.noalias", b.getUnitAttr());
        kernelFunc.setArgAttr(i, "llvm.align",
                              b.getI64IntegerAttr(table ? 8 : 16));
      }
    }
    // The launch block: the kernel's threads, plus a producer warpgroup
    // when tile-plan-warp-specialize gave its pipelined loop warp roles
    // (the gpu.func keeps the roles: its layouts span the consumers).
    int64_t threads = kernel.getThreads();
    kernel.walk([&](tile::PipelinedOp loop) {
      if (auto roles = loop->getAttrOfType<tile::WarpSpecializeAttr>(
              tile::WarpSpecializeAttr::getAttrName())) {
        threads = roles.getThreads();
        kernelFunc->setAttr(tile::WarpSpecializeAttr::getAttrName(), roles);
      }
    });
    kernelFunc.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
    SmallVector<int32_t> grid;
    for (Value extent : kernel.getGrid()) {
      APInt value;
      if (!matchPattern(extent, m_ConstantInt(&value)))
        break;
      grid.push_back(int32_t(value.getSExtValue()));
    }
    // (A persistent kernel's launched grid is not its grid.)
    if (grid.size() == kernel.getGrid().size() &&
        !kernel->hasAttr(simt::kPersistentAttr)) {
      grid.resize(3, 1);
      kernelFunc.setKnownGridSizeAttr(b.getDenseI32ArrayAttr(grid));
    }
    for (NamedAttribute attr : kernel->getDiscardableAttrs())
      kernelFunc->setAttr(attr.getName(), attr.getValue());
    kernelFunc->setAttr("tile.threads", b.getI64IntegerAttr(threads));
    kernelFunc->setAttr("tile.func", func.getSymNameAttr());
    // The prim_func's index width (MLIRGen's decision) is its kernels':
    // tile-lower-simt and the LLVM lowering read it from the gpu.func.
    if (Attribute bits = func->getAttr("tile.index_bits"))
      kernelFunc->setAttr("tile.index_bits", bits);
    kernelFunc->setAttr("tile.launch", b.getI64IntegerAttr(index));
    kernelFunc->setAttr("tile.dynamic_shared_bytes", b.getI64IntegerAttr(0));

    // The body.
    mapping.clear();
    Block &entry = kernelFunc.getBody().front();
    b.setInsertionPointToStart(&entry);
    if (failed(mapArguments(b, kernelFunc, kernel)))
      return failure();
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(kernel.getRegion(), above);
    for (Value value : above)
      if (failed(recompute(b, value)))
        return failure();
    Indices virtualIds;
    if (kernel->hasAttr(simt::kPersistentAttr)) {
      FailureOr<Indices> ids = persistentLoop(b, kernel);
      if (failed(ids))
        return failure();
      virtualIds = *ids;
    }
    for (Operation &op : kernel.getBody()->without_terminator())
      b.clone(op, mapping);
    if (virtualIds.loop) {
      tile::BarrierOp::create(b, loc);
      b.setInsertionPointAfter(virtualIds.loop);
    }
    gpu::ReturnOp::create(b, loc);
    if (failed(lowerThreadIds(kernelFunc)) ||
        failed(lowerSwizzles(kernelFunc, kernel.getGrid().size(), virtualIds)))
      return failure();

    replaceWithLaunch(kernel, kernelFunc);
    LLVM_DEBUG(llvm::dbgs() << "outlined " << name << "\n");
    return kernelFunc;
  }

  /// The block indices of a persistent kernel: the loop over its grid's
  /// blocks, and x, y (each null where the grid has no such dimension)
  /// with the grid's static extents.
  struct Indices {
    scf::ForOp loop;
    Value bx, by;
    int64_t gx = 1, gy = 1;
  };

  /// Opens the persistent loop at `b` (which is left inside it) and maps
  /// the kernel's block indices to the loop's.
  FailureOr<Indices> persistentLoop(OpBuilder &b, tile::KernelOp kernel) {
    Location loc = kernel.getLoc();
    SmallVector<int64_t, 3> extents;
    for (Value extent : kernel.getGrid()) {
      APInt value;
      if (!matchPattern(extent, m_ConstantInt(&value)))
        return kernel.emitError("internal: a persistent kernel with a "
                                "dynamic grid");
      extents.push_back(value.getSExtValue());
    }
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    static const gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                                          gpu::Dimension::z};
    // The launched block's linear index and the launched grid's size.
    Value first = gpu::BlockIdOp::create(b, loc, dims[2]);
    Value launched = gpu::GridDimOp::create(b, loc, dims[2]);
    for (int d = 1; d >= 0; --d) {
      Value dim = gpu::GridDimOp::create(b, loc, dims[d]);
      first = arith::AddIOp::create(b, loc,
                                    arith::MulIOp::create(b, loc, first, dim),
                                    gpu::BlockIdOp::create(b, loc, dims[d]));
      launched = arith::MulIOp::create(b, loc, launched, dim);
    }
    int64_t total = 1;
    for (int64_t e : extents)
      total *= e;
    Indices ids;
    ids.loop = scf::ForOp::create(b, loc, first, cst(total), launched);
    ids.loop->setAttr(simt::kPersistentAttr, b.getUnitAttr());
    b.setInsertionPoint(ids.loop.getBody()->getTerminator());
    Value v = ids.loop.getInductionVar();
    int64_t below = 1;
    for (auto [d, index] : llvm::enumerate(kernel.getBlockIndices())) {
      Value id =
          d > 0 ? Value(arith::DivUIOp::create(b, loc, v, cst(below))) : v;
      if (d + 1 < extents.size())
        id = arith::RemUIOp::create(b, loc, id, cst(extents[d]));
      below *= extents[d];
      mapping.map(index, id);
      if (d == 0)
        ids.bx = id;
      if (d == 1)
        ids.by = id;
    }
    ids.gx = extents.size() > 0 ? extents[0] : 1;
    ids.gy = extents.size() > 1 ? extents[1] : 1;
    return ids;
  }

  static LogicalResult lowerThreadIds(gpu::GPUFuncOp kernelFunc) {
    SmallVector<tile::ThreadIdOp> ids;
    kernelFunc.walk([&](tile::ThreadIdOp op) { ids.push_back(op); });
    for (tile::ThreadIdOp op : ids) {
      OpBuilder b(op);
      // Blocks are one-dimensional (T.Kernel's `threads`): y and z are 0.
      Value id = op.getDim() == 0
                     ? Value(gpu::ThreadIdOp::create(b, op.getLoc(),
                                                     gpu::Dimension::x))
                     : Value(arith::ConstantIndexOp::create(b, op.getLoc(), 0));
      op.replaceAllUsesWith(id);
      op.erase();
    }
    return success();
  }

  /// Panel rasterization of a 2-D grid. Blocks launch in linear order
  /// L = by * gx + bx; `row` cuts the grid into panels of `panel` rows
  /// (the last panel may be shorter) and numbers the blocks of a panel
  /// column by column, so consecutive blocks stay within `panel` rows of
  /// the output (and share the same B tiles in L2); `col` does the same
  /// with panels of `panel` columns, numbered row by row.
  static LogicalResult lowerSwizzles(gpu::GPUFuncOp kernelFunc, size_t gridRank,
                                     const Indices &virt) {
    SmallVector<tile::UseSwizzleOp> ops;
    kernelFunc.walk([&](tile::UseSwizzleOp op) { ops.push_back(op); });
    Value bx = virt.bx, by = virt.by;
    if (!virt.loop)
      kernelFunc.walk([&](gpu::BlockIdOp id) {
        if (id.getDimension() == gpu::Dimension::x && !bx)
          bx = id;
        if (id.getDimension() == gpu::Dimension::y && !by)
          by = id;
      });
    for (tile::UseSwizzleOp op : ops) {
      if (!op.getEnable() || gridRank < 2 || !bx || !by) {
        op.erase();
        continue;
      }
      scf::ForOp loop = virt.loop;
      Block *top = loop ? loop.getBody() : &kernelFunc.getBody().front();
      if (op->getBlock() != top)
        return op.emitError("T.use_swizzle must be at the top level of the "
                            "kernel");
      // The remap is kernel-wide, as in TileLang (the pattern is an attribute
      // of the kernel): every use of the block indices, also one before the
      // op (such as `bh = by % H` computed first), must see the remapped
      // pair, or the blocks cover the grid twice in places and miss the rest.
      // (A persistent kernel's indices are the loop's, defined at its top.)
      OpBuilder b(op);
      if (!virt.loop) {
        Block &entry = kernelFunc.getBody().front();
        bx.getDefiningOp()->moveBefore(&entry, entry.begin());
        by.getDefiningOp()->moveAfter(bx.getDefiningOp());
      }
      b.setInsertionPointAfter(by.getDefiningOp());
      Location loc = op.getLoc();
      auto cst = [&](int64_t v) {
        return arith::ConstantIndexOp::create(b, loc, v).getResult();
      };
      Value gx = virt.loop
                     ? cst(virt.gx)
                     : Value(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
      Value gy = virt.loop
                     ? cst(virt.gy)
                     : Value(gpu::GridDimOp::create(b, loc, gpu::Dimension::y));
      bool rowPanels = op.getOrder() == tile::SwizzleOrder::row;
      // Along `major` the grid is cut into panels; `minor` is walked.
      Value majorId = rowPanels ? by : bx, minorId = rowPanels ? bx : by;
      Value majorDim = rowPanels ? gy : gx, minorDim = rowPanels ? gx : gy;
      Value panel = cst(op.getPanelSize());
      auto byRows = arith::MulIOp::create(b, loc, by, gx);
      auto linearOp = arith::AddIOp::create(b, loc, byRows, bx);
      Value linear = linearOp;
      Value span = arith::MulIOp::create(b, loc, panel, minorDim);
      Value p = arith::DivUIOp::create(b, loc, linear, span);
      Value o = arith::RemUIOp::create(b, loc, linear, span);
      Value first = arith::MulIOp::create(b, loc, p, panel);
      Value rows = arith::MinUIOp::create(
          b, loc, panel, arith::SubIOp::create(b, loc, majorDim, first));
      Value newMajor = arith::AddIOp::create(
          b, loc, first, arith::RemUIOp::create(b, loc, o, rows));
      Value newMinor = arith::DivUIOp::create(b, loc, o, rows);
      (void)majorId;
      (void)minorId;
      Value newBx = rowPanels ? newMinor : newMajor;
      Value newBy = rowPanels ? newMajor : newMinor;
      if (virt.loop) {
        // Always below the extents; said so the bounds tests of the
        // body's tile copies fold (a persistent kernel's indices are not
        // launch indices of a known grid), which keeps its epilogue free
        // of branches around wgmma's accumulators (ptxas serializes
        // wgmma when it must synchronize them on a divergent path, C7520).
        newBx = arith::MinUIOp::create(b, loc, newBx, cst(virt.gx - 1));
        newBy = arith::MinUIOp::create(b, loc, newBy, cst(virt.gy - 1));
      }
      bx.replaceAllUsesExcept(newBx, linearOp);
      by.replaceAllUsesExcept(newBy, byRows);
      op.erase();
    }
    return success();
  }

  void replaceWithLaunch(tile::KernelOp kernel, gpu::GPUFuncOp kernelFunc) {
    OpBuilder b(kernel);
    Location loc = kernel.getLoc();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<Value> grid(kernel.getGrid());
    grid.resize(3, one);
    Value threads = arith::ConstantIndexOp::create(b, loc, kernel.getThreads());
    SmallVector<Value> args;
    for (auto [arg, type] :
         llvm::zip(func.getArguments(), kernelFunc.getArgumentTypes())) {
      if (arg.getType() == type)
        args.push_back(arg);
      else if (arg.getType().isIndex())
        args.push_back(arith::IndexCastOp::create(b, loc, type, arg));
      else
        args.push_back(memref::ReinterpretCastOp::create(
            b, loc, cast<MemRefType>(type), arg, b.getIndexAttr(0),
            ArrayRef<OpFoldResult>{}, ArrayRef<OpFoldResult>{}));
    }
    gpu::LaunchFuncOp::create(b, loc, kernelFunc,
                              gpu::KernelDim3{grid[0], grid[1], grid[2]},
                              gpu::KernelDim3{threads, one, one},
                              /*dynamicSharedMemorySize=*/Value(), args);
    kernel.erase();
  }

  mlir::func::FuncOp func;
  gpu::GPUModuleOp gpuModule;
  MLIRContext *ctx;
  IRMapping mapping;
};

struct TileOutlineKernels
    : tilec::impl::TileOutlineKernelsBase<TileOutlineKernels> {
  using TileOutlineKernelsBase::TileOutlineKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<mlir::func::FuncOp> funcs;
    for (auto func : module.getOps<mlir::func::FuncOp>())
      if (func->hasAttr("tile.kernel"))
        funcs.push_back(func);
    if (funcs.empty())
      return markAllAnalysesPreserved();
    MLIRContext *ctx = &getContext();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(kModuleName);
    if (!gpuModule) {
      OpBuilder b(ctx);
      b.setInsertionPointToEnd(module.getBody());
      gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kModuleName);
    }
    for (mlir::func::FuncOp func : funcs)
      if (failed(Outliner(func, gpuModule).run()))
        return signalPassFailure();
  }
};

} // namespace
