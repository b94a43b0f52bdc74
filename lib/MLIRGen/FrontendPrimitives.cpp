//===- FrontendPrimitives.cpp - T.* primitives that are elaboration only --===//
//
// TileLang primitives whose meaning tilec can give with what it already
// has, without new lowering: TIR's integer helpers (T.floordiv,
// T.floormod, T.shift_left, T.shift_right) as the operators they are, the
// hints T.assume and T.evaluate, the cp.async group fences
// T.ptx_commit_group / T.ptx_wait_group (no-ops: see below), T.alloc_buffer
// with an on-chip scope as the matching T.alloc_*, and T.thread_binding as the
// thread index. A global workspace (T.alloc_global, T.alloc_buffer in global
// scope) is a launch argument (Workspace.cpp). T.rng_init / T.rng_rand compute
// cuRAND's Philox stream (Random.cpp).
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

static const StringRef kFrontendPrimitives[] = {
    "floordiv", "floormod", "shift_left", "shift_right", "assume", "evaluate",
    "alloc_buffer", "alloc_global", "thread_binding",
    "disable_warp_group_reg_alloc",
    // TileLang's tile-level spellings of the TIR loops, and TIR's parallel
    "Serial", "Unroll", "Vectorized", "parallel",
    // a scalar's bits as another type of the same width
    "reinterpret",
    // cuRAND's Philox stream per thread (Random.cpp)
    "rng_init", "rng_rand",
    // a view of a buffer with another shape (Reshape.cpp)
    "reshape",
    // a global tensor at an address from a T.ptr table (PointerTensors.cpp)
    "make_tensor",
    // TVM's warp shuffle (CUDA's __shfl_sync with a width)
    "tvm_warp_shuffle"};

llvm::ArrayRef<StringRef> frontendPrimitiveNames() {
  return kFrontendPrimitives;
}

FailureOr<std::optional<Value>>
Elaborator::callFrontendPrimitive(StringRef name, CallArgs &args) {
  using R = std::optional<Value>;
  if (!llvm::is_contained(kFrontendPrimitives, name.drop_front(2)))
    return R();
  auto bind = [&](llvm::ArrayRef<StringRef> names, unsigned required) {
    return bindArgs(args, names, required);
  };

  if (name == "T.make_tensor") {
    FailureOr<Value> r = callMakeTensor(args);
    if (failed(r))
      return failure();
    return R(*r);
  }
  if (name == "T.reshape") {
    FailureOr<Value> r = callReshape(args);
    if (failed(r))
      return failure();
    return R(*r);
  }
  if (name == "T.rng_init" || name == "T.rng_rand") {
    FailureOr<Value> r = callRandom(name, args);
    if (failed(r))
      return failure();
    return R(*r);
  }

  // T.tvm_warp_shuffle(mask, value, lane, width, warp_size): TVM's
  // intrinsic, which TileLang prints as CUDA's __shfl_sync(mask, value,
  // lane, width): within each aligned group of `width` lanes, the value of
  // the group's lane `lane % width`. A gpu.shuffle idx over the whole warp
  // from that lane (its own `width` operand means "the first width lanes",
  // not groups), through 32 bits.
  if (name == "T.tvm_warp_shuffle") {
    auto b = bind({"mask", "value", "lane", "width", "warp_size"}, 5);
    if (failed(b))
      return failure();
    const TargetInfo *target = TargetInfo::lookup(options.target);
    int64_t warp = target ? int64_t(target->warpSize()) : 32;
    auto constInt = [&](const Arg &a, StringRef what) -> std::optional<int64_t> {
      if (a.value.isIntLike())
        return a.value.getInt();
      error(a.range, "`" + Twine(what) + "` of `T.tvm_warp_shuffle` must be "
                     "a compile-time integer, got `" + a.value.repr() + "`");
      return std::nullopt;
    };
    // `warp_size` is the lanes TVM's warp-memory pass assumed; CUDA's
    // code generator drops it, and so does tilec.
    std::optional<int64_t> mask = constInt(*(*b)[0], "mask");
    std::optional<int64_t> width = constInt(*(*b)[3], "width");
    if (!mask || !width)
      return failure();
    // TileLang passes CUDA's full mask on every target (HIP's shuffles
    // ignore it).
    if ((uint64_t(*mask) & 0xFFFFFFFFu) != 0xFFFFFFFFu) {
      error((*b)[0]->range, "`T.tvm_warp_shuffle` with a mask of only some "
                            "lanes is not supported yet by tilec: give the "
                            "full mask (0xFFFFFFFF), every lane taking part");
      return failure();
    }
    if (*width < 1 || *width > warp || !llvm::isPowerOf2_64(uint64_t(*width))) {
      error((*b)[3]->range, "`width` of `T.tvm_warp_shuffle` must be a power "
                            "of two from 1 to " + Twine(warp) + ", got " +
                            Twine(*width));
      return failure();
    }
    const Arg &valueArg = *(*b)[1];
    FailureOr<Value> scalar = toScalar(valueArg.value, valueArg.range);
    if (failed(scalar))
      return failure();
    FailureOr<Value> runtime = materialize(*scalar, valueArg.range);
    if (failed(runtime))
      return failure();
    if (!runtime->is(Value::Runtime) || runtime->getRuntime().dtype.bits() > 32 ||
        runtime->getRuntime().dtype.bits() == 1) {
      error(valueArg.range, "`T.tvm_warp_shuffle` moves a scalar of at most "
                            "32 bits, got `" + runtime->repr() + "`");
      return failure();
    }
    DType dtype = runtime->getRuntime().dtype;
    FailureOr<Value> laneScalar = toScalar((*b)[2]->value, (*b)[2]->range);
    if (failed(laneScalar))
      return failure();
    Location l = loc(args.range.Start);
    Type i32 = builder.getI32Type();
    FailureOr<mlir::Value> lane = toIR(*laneScalar, i32, (*b)[2]->range);
    FailureOr<mlir::Value> v = toIR(*runtime, irType(dtype), valueArg.range);
    if (failed(lane) || failed(v))
      return failure();
    auto c32 = [&](int64_t x) {
      return arith::ConstantIntOp::create(builder, l, i32, x).getResult();
    };
    mlir::Value src = arith::AndIOp::create(builder, l, *lane, c32(*width - 1));
    if (*width < warp) {
      mlir::Value self = arith::IndexCastUIOp::create(
          builder, l, i32, gpu::LaneIdOp::create(builder, l, nullptr));
      mlir::Value base =
          arith::AndIOp::create(builder, l, self, c32(~(*width - 1)));
      src = arith::OrIOp::create(builder, l, base, src);
    }
    // Through 32 bits: gpu.shuffle moves i32 / f32.
    Type ty = irType(dtype);
    unsigned bits = dtype.bits();
    mlir::Value wide = *v;
    if (bits < 32) {
      Type narrowInt = builder.getIntegerType(bits);
      if (!isa<IntegerType>(ty))
        wide = arith::BitcastOp::create(builder, l, narrowInt, wide);
      wide = arith::ExtUIOp::create(builder, l, i32, wide);
    }
    mlir::Value got = gpu::ShuffleOp::create(builder, l, wide, src, c32(warp),
                                             gpu::ShuffleMode::IDX)
                          .getShuffleResult();
    if (bits < 32) {
      Type narrowInt = builder.getIntegerType(bits);
      got = arith::TruncIOp::create(builder, l, narrowInt, got);
      if (!isa<IntegerType>(ty))
        got = arith::BitcastOp::create(builder, l, ty, got);
    }
    return R(wrapRuntime(got, dtype, false));
  }

  // T.reinterpret: the bits of a scalar as another dtype of the same
  // width (a bitcast). TIR writes (dtype, value); TileLang's examples also
  // write (value, dtype): whichever argument is a dtype is the type.
  if (name == "T.reinterpret") {
    auto b = bind({"a", "b"}, 2);
    if (failed(b))
      return failure();
    bool typeFirst = toDType((*b)[0]->value).has_value() &&
                     !toDType((*b)[1]->value).has_value();
    const Arg &typeArg = typeFirst ? *(*b)[0] : *(*b)[1];
    const Arg &valueArg = typeFirst ? *(*b)[1] : *(*b)[0];
    FailureOr<DType> to = requireDType(typeArg);
    if (failed(to))
      return failure();
    FailureOr<Value> scalar = toScalar(valueArg.value, valueArg.range);
    if (failed(scalar))
      return failure();
    FailureOr<Value> runtime = materialize(*scalar, valueArg.range);
    if (failed(runtime))
      return failure();
    if (!runtime->is(Value::Runtime)) {
      error(valueArg.range, "`T.reinterpret` takes a scalar value, got `" +
                                runtime->repr() + "`");
      return failure();
    }
    DType from = runtime->getRuntime().dtype;
    if (from.bits() != to->bits() || to->bits() == 1) {
      error(args.range, "`T.reinterpret` keeps the bits: " +
                            Twine(from.name()) + " (" + Twine(from.bits()) +
                            " bits) cannot be read as " + to->name() + " (" +
                            Twine(to->bits()) + " bits)");
      return failure();
    }
    FailureOr<mlir::Value> v =
        toIR(*runtime, irType(from), valueArg.range);
    if (failed(v))
      return failure();
    mlir::Value cast = *v;
    if (irType(from) != irType(*to))
      cast = arith::BitcastOp::create(builder, loc(args.range.Start),
                                      irType(*to), *v);
    return R(wrapRuntime(cast, *to, false));
  }

  // T.Serial / T.Unroll / T.Vectorized are TileLang's aliases of the
  // lower-case loops (tile/loop.py).
  if (name == "T.Serial" || name == "T.Unroll" || name == "T.Vectorized") {
    std::string lower = "T." + name.drop_front(2).lower();
    FailureOr<Value> loop = callPrimitive(lower, args);
    if (failed(loop))
      return failure();
    return R(*loop);
  }
  // TIR's T.parallel(extent) is a parallel For, which TileLang's layout
  // inference treats as T.Parallel does: nested T.parallel loops are a
  // T.Parallel nest. A start other than 0 has no T.Parallel form.
  if (name == "T.parallel") {
    auto b = bind({"start", "stop"}, 1);
    if (failed(b))
      return failure();
    CallArgs extent;
    extent.range = args.range;
    extent.callee = "T.Parallel";
    if ((*b)[1] && !(*b)[1]->value.isNone()) {
      const Value &start = (*b)[0]->value;
      if (!start.isIntLike() || start.getInt() != 0) {
        error((*b)[0]->range, "`T.parallel` with a start other than 0 is not "
                              "supported; write T.Parallel(stop - start) and "
                              "offset the index");
        return failure();
      }
      extent.positional.push_back(*(*b)[1]);
    } else {
      extent.positional.push_back(*(*b)[0]);
    }
    FailureOr<Value> loop = callPrimitive("T.Parallel", extent);
    if (failed(loop))
      return failure();
    return R(*loop);
  }

  // TIR's floordiv / floormod round toward negative infinity, as Python's
  // `//` and `%` do; the shifts are `<<` and `>>` (arithmetic on signed).
  static const std::pair<StringRef, ast::BinOpKind> kOps[] = {
      {"T.floordiv", ast::BinOpKind::FloorDiv},
      {"T.floormod", ast::BinOpKind::Mod},
      {"T.shift_left", ast::BinOpKind::LShift},
      {"T.shift_right", ast::BinOpKind::RShift}};
  for (auto [op, kind] : kOps) {
    if (name != op)
      continue;
    auto b = bind({"a", "b"}, 2);
    if (failed(b))
      return failure();
    for (const Arg *a : {&*(*b)[0], &*(*b)[1]}) {
      const Value &v = a->value;
      bool isFloat = v.is(Value::Float) ||
                     (v.is(Value::Runtime) && v.getRuntime().dtype.isFloat());
      if (isFloat && kind != ast::BinOpKind::FloorDiv &&
          kind != ast::BinOpKind::Mod) {
        error(a->range, "`" + name + "` needs integers, got a float");
        return failure();
      }
    }
    FailureOr<Value> r =
        evalBinary(kind, (*b)[0]->value, (*b)[1]->value, args.range);
    if (failed(r))
      return failure();
    return R(*r);
  }

  if (name == "T.assume") {
    // A fact for TVM's simplifier (`cta_id < 2`). tilec proves nothing
    // from it; the condition was evaluated as an argument and is dropped.
    auto b = bind({"cond"}, 1);
    if (failed(b))
      return failure();
    return R(Value::none());
  }
  if (name == "T.evaluate") {
    // An expression statement of TIR: the argument has been evaluated (and
    // emitted, when it has an effect) already.
    auto b = bind({"value"}, 1);
    if (failed(b))
      return failure();
    return R(Value::none());
  }
  if (name == "T.disable_warp_group_reg_alloc") {
    // A request not to rebalance registers between warp groups
    // (setmaxnreg): recorded on the kernel for the warp-specialized path;
    // tilec does not rebalance registers today, so it already holds.
    if (failed(requireKernel(args)) || failed(bind({}, 0)))
      return failure();
    Operation *op = builder.getInsertionBlock()->getParentOp();
    while (op && !isa<tile::KernelOp>(op))
      op = op->getParentOp();
    op->setAttr("tile.no_set_max_nreg", builder.getUnitAttr());
    return R(Value::none());
  }

  if (name == "T.alloc_buffer" || name == "T.alloc_global") {
    auto b = bind({"shape", "dtype", "scope"}, 2);
    if (failed(b))
      return failure();
    std::string scope = "global";
    if ((*b)[2]) {
      if (!(*b)[2]->value.is(Value::Str)) {
        error((*b)[2]->range, "`scope` must be a string");
        return failure();
      }
      scope = (*b)[2]->value.getStr();
    }
    std::optional<MemScope> onChip =
        scope == "shared" || scope == "shared.dyn" ? MemScope::Shared
        : scope == "local.fragment"                ? MemScope::Fragment
        : scope == "local"                         ? MemScope::Local
                                                   : std::optional<MemScope>();
    if (!onChip) {
      if (scope == "global") {
        // A workspace of the launch: a pointer argument (Workspace.cpp).
        FailureOr<Value> w = allocGlobalWorkspace(args);
        if (failed(w))
          return failure();
        return R(*w);
      } else {
        error((*b)[2]->range, "unknown buffer scope \"" + scope +
                                  "\" (expected global, shared, shared.dyn, "
                                  "local.fragment or local)");
      }
      return failure();
    }
    CallArgs alloc;
    alloc.range = args.range;
    alloc.callee = args.callee;
    alloc.positional = {*(*b)[0], *(*b)[1]};
    FailureOr<Value> v = allocate(*onChip, alloc);
    if (failed(v))
      return failure();
    return R(*v);
  }

  // T.thread_binding(start, extent, thread="threadIdx.x"): the thread (or
  // block) index the name is bound to, as `T.get_thread_binding()`.
  auto b = bind({"begin", "end", "thread", "annotations"}, 3);
  if (failed(b) || failed(requireKernel(args)))
    return failure();
  const Arg &tag = *(*b)[2];
  StringRef t = tag.value.is(Value::Str) ? StringRef(tag.value.getStr()) : "";
  FailureOr<int64_t> begin = requireInt(*(*b)[0], "the start of `T.thread_binding`");
  FailureOr<int64_t> end = requireInt(*(*b)[1], "the extent of `T.thread_binding`");
  if (failed(begin) || failed(end))
    return failure();
  if (*begin != 0) {
    error((*b)[0]->range, "`T.thread_binding` must start at 0");
    return failure();
  }
  Operation *op = builder.getInsertionBlock()->getParentOp();
  while (op && !isa<tile::KernelOp>(op))
    op = op->getParentOp();
  auto kernel = cast<tile::KernelOp>(op);
  if (t == "threadIdx.x") {
    if (*end != int64_t(kernel.getThreads())) {
      error((*b)[1]->range, "`T.thread_binding` over threadIdx.x must span "
                            "the kernel's " + Twine(kernel.getThreads()) +
                                " threads, not " + Twine(*end));
      return failure();
    }
    return R(wrapRuntime(tile::ThreadIdOp::create(builder, loc(args.range.Start), 0),
                         DType::Int32, true));
  }
  if (t == "threadIdx.y" || t == "threadIdx.z") {
    error(tag.range, "`T.thread_binding` over " + t + " needs a "
                     "multi-dimensional thread block, which tilec does not "
                     "support yet");
    return failure();
  }
  if (t == "blockIdx.x" || t == "blockIdx.y" || t == "blockIdx.z") {
    unsigned dim = t.back() - 'x';
    if (dim >= kernel.getBlockIndices().size()) {
      error(tag.range, "the kernel has only " +
                           Twine(kernel.getBlockIndices().size()) +
                           " grid dimension(s)");
      return failure();
    }
    return R(wrapRuntime(kernel.getBlockIndices()[dim], DType::Int32, true));
  }
  error(tag.range, "`thread` must be \"threadIdx.x\" or a \"blockIdx.*\"");
  return failure();
}

} // namespace tilec::mlirgen
