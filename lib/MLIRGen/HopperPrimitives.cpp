//===- HopperPrimitives.cpp - T.ws, mbarriers, T.tma_copy, T.set_max_nreg -===//
//
// TileLang's hand-written warp specialization (sm_90a): `with T.ws(i)`
// regions that only warpgroup i runs, mbarriers from T.alloc_barrier
// driven by T.barrier_arrive / T.barrier_wait (and their mbarrier_*
// spellings), TMA loads that complete on one (T.tma_copy(...,
// barrier=bar)), the async-proxy fence and the register re-allocation
// (T.set_max_nreg). Each is checked here, where the user wrote it, and
// becomes one tile op (TileOps.td, "Explicit warp specialization");
// tile-lower-simt lowers them (passes/LowerHopper.cpp).
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"
#include "tilec/Target/TargetInfo.h"

using namespace mlir;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

namespace {
constexpr int64_t kWarpgroup = 128;

tile::KernelOp enclosingKernel(OpBuilder &builder) {
  Block *block = builder.getInsertionBlock();
  Operation *op = block ? block->getParentOp() : nullptr;
  return op ? (isa<tile::KernelOp>(op) ? cast<tile::KernelOp>(op)
                                       : op->getParentOfType<tile::KernelOp>())
            : tile::KernelOp();
}

bool insideWs(OpBuilder &builder) {
  Block *block = builder.getInsertionBlock();
  Operation *op = block ? block->getParentOp() : nullptr;
  return op && (isa<tile::WsOp>(op) || op->getParentOfType<tile::WsOp>());
}
} // namespace

FailureOr<std::pair<mlir::Value, mlir::Value>>
Elaborator::barrierRef(const Arg &arg, StringRef role) {
  auto isBarrier = [](const BufferObject &b) {
    return b.memref && b.memref.getDefiningOp<tile::AllocBarrierOp>();
  };
  auto fail = [&]() -> FailureOr<std::pair<mlir::Value, mlir::Value>> {
    error(arg.range, "`" + role +
                         "` must be a barrier from T.alloc_barrier, "
                         "or one element of a list of them, got `" +
                         arg.value.repr() + "`");
    return failure();
  };
  SMLoc at = arg.range.Start;
  if (arg.value.is(Value::Buffer)) {
    BufferObject &b = arg.value.getBuffer();
    if (!isBarrier(b))
      return fail();
    if (b.staticDim(0).value_or(1) != 1) {
      error(arg.range, "`" + b.name + "` holds " + Twine(*b.staticDim(0)) +
                           " barriers: index it to pick one (`" + b.name +
                           "[i]`)");
      return failure();
    }
    mlir::Value zero = arith::ConstantIndexOp::create(builder, loc(at), 0);
    return std::make_pair(b.memref, zero);
  }
  if (!arg.value.is(Value::Subscript))
    return fail();
  sema::SubscriptObject &s = arg.value.getSubscript();
  if (!s.base.is(Value::Buffer) || !isBarrier(s.base.getBuffer()) ||
      s.indices.size() != 1)
    return fail();
  BufferObject &b = s.base.getBuffer();
  const Value &index = s.indices[0];
  if (index.isIntLike()) {
    int64_t count = *b.staticDim(0);
    if (index.getInt() < 0 || index.getInt() >= count) {
      error(arg.range, "barrier index " + Twine(index.getInt()) +
                           " is out of range: `" + b.name + "` holds " +
                           Twine(count) + " barrier" + (count == 1 ? "" : "s"));
      note(b.loc, "`" + b.name + "` allocated here");
      return failure();
    }
  }
  FailureOr<mlir::Value> i = toIndex(index, arg.range);
  if (failed(i))
    return failure();
  return std::make_pair(b.memref, *i);
}

// TileLang's T.wgmma_gemm always takes the wgmma path and fails where it
// cannot (it never falls back to mma.sync, whose synchronous result would
// differ from the asynchronous contract only in speed, but silently).
LogicalResult Elaborator::requireWgmmaTarget(const CallArgs &args) {
  const TargetInfo *target = TargetInfo::lookup(options.target);
  if (target && llvm::any_of(target->mmaInstructions(),
                             [](const MMAInstruction &i) {
                               return i.kind == MMAKind::Warpgroup;
                             }))
    return success();
  error(args.range, "`" + args.callee + "` issues wgmma, which target " +
                        options.target +
                        " does not have (sm_90a only; T.gemm is the "
                        "synchronous form for every target)");
  return failure();
}

FailureOr<std::optional<Value>>
Elaborator::callHopperPrimitive(StringRef name, CallArgs &args) {
  using R = std::optional<Value>;
  auto bind = [&](llvm::ArrayRef<StringRef> names, unsigned required) {
    return bindArgs(args, names, required);
  };
  SMLoc at = args.range.Start;
  auto toIdx = [&](const Arg &a) { return toIndex(a.value, a.range); };

  if (name == "T.ws") {
    error(args.range, "`T.ws` opens a region: write `with T.ws(i):`");
    return failure();
  }
  if (name == "T.barrier_arrive" || name == "T.mbarrier_arrive") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({name == "T.barrier_arrive" ? "barrier_id" : "mbarrier"}, 1);
    if (failed(b))
      return failure();
    auto bar = barrierRef(*(*b)[0], "barrier");
    if (failed(bar))
      return failure();
    tile::MBarrierArriveOp::create(builder, loc(at), bar->first, bar->second);
    return R(Value::none());
  }
  // T.barrier_wait() without arguments stays the block barrier
  // (Primitives.cpp); with a barrier it is TileLang's mbarrier wait.
  if ((name == "T.barrier_wait" && !args.positional.empty()) ||
      (name == "T.barrier_wait" && !args.keywords.empty()) ||
      name == "T.mbarrier_wait_parity") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = name == "T.barrier_wait" ? bind({"barrier_id", "parity"}, 2)
                                      : bind({"mbarrier", "parity"}, 2);
    if (failed(b))
      return failure();
    auto bar = barrierRef(*(*b)[0], "barrier");
    if (failed(bar))
      return failure();
    FailureOr<mlir::Value> parity = toIdx(*(*b)[1]);
    if (failed(parity))
      return failure();
    tile::MBarrierWaitOp::create(builder, loc(at), bar->first, bar->second,
                                 *parity);
    return R(Value::none());
  }
  if (name == "T.mbarrier_expect_tx") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"mbarrier", "tx"}, 2);
    if (failed(b))
      return failure();
    auto bar = barrierRef(*(*b)[0], "mbarrier");
    if (failed(bar))
      return failure();
    FailureOr<mlir::Value> bytes = toIdx(*(*b)[1]);
    if (failed(bytes))
      return failure();
    tile::MBarrierExpectTxOp::create(builder, loc(at), bar->first, bar->second,
                                     *bytes);
    return R(Value::none());
  }
  // T.wait_wgmma(n): at most n of this warpgroup's T.wgmma_gemm groups
  // stay in flight (the lowering checks which gemms it completes).
  if (name == "T.wait_wgmma") {
    if (failed(requireKernel(args)))
      return failure();
    auto b = bind({"id"}, 1);
    if (failed(b))
      return failure();
    FailureOr<int64_t> n =
        requireInt(*(*b)[0], "the group count of `T.wait_wgmma`");
    if (failed(n))
      return failure();
    if (*n < 0) {
      error((*b)[0]->range, "`T.wait_wgmma` takes the number of wgmma groups "
                            "left in flight, a non-negative integer; got " +
                                Twine(*n));
      return failure();
    }
    tile::WaitWgmmaOp::create(builder, loc(at), *n);
    return R(Value::none());
  }
  if (name == "T.fence_proxy_async") {
    if (failed(requireKernel(args)) || failed(bind({}, 0)))
      return failure();
    tile::FenceProxyAsyncOp::create(builder, loc(at));
    return R(Value::none());
  }
  // T.set_max_nreg(count, is_inc) and TileLang's spellings of one
  // direction: inc / dec_max_nreg(count), and the annotate_* forms with
  // FlashAttention-3's defaults (producers 24, consumers 240).
  bool inc =
      name == "T.inc_max_nreg" || name == "T.annotate_consumer_reg_alloc";
  bool dec =
      name == "T.dec_max_nreg" || name == "T.annotate_producer_reg_dealloc";
  if (name == "T.set_max_nreg" || inc || dec) {
    if (failed(requireKernel(args)))
      return failure();
    bool annotate = name.starts_with("T.annotate_");
    auto b = (inc || dec) ? bind({"reg_count"}, annotate ? 0 : 1)
                          : bind({"reg_count", "is_inc"}, 2);
    if (failed(b))
      return failure();
    int64_t count = inc ? 240 : 24;
    if ((*b)[0]) {
      FailureOr<int64_t> c = requireInt(*(*b)[0], "`reg_count`");
      if (failed(c))
        return failure();
      count = *c;
    }
    if (count < 24 || count > 256 || count % 8) {
      error((*b)[0] ? (*b)[0]->range : args.range,
            "`" + name +
                "` takes a register count that is a multiple of 8 "
                "in [24, 256] (setmaxnreg), got " +
                Twine(count));
      return failure();
    }
    bool increase = inc;
    if (!inc && !dec) {
      FailureOr<int64_t> isInc = requireInt(*(*b)[1], "`is_inc`");
      if (failed(isInc))
        return failure();
      if (*isInc != 0 && *isInc != 1) {
        error((*b)[1]->range, "`is_inc` is 1 (setmaxnreg.inc) or 0 "
                              "(setmaxnreg.dec), got " +
                                  Twine(*isInc));
        return failure();
      }
      increase = *isInc == 1;
    }
    tile::SetMaxNRegOp::create(builder, loc(at), count, increase);
    return R(Value::none());
  }
  if (name == "T.no_set_max_nreg") {
    // TileLang's request that its pass insert no setmaxnreg, recorded as
    // T.disable_warp_group_reg_alloc is (FrontendPrimitives.cpp).
    if (failed(requireKernel(args)) || failed(bind({}, 0)))
      return failure();
    enclosingKernel(builder)->setAttr("tile.no_set_max_nreg",
                                      builder.getUnitAttr());
    return R(Value::none());
  }
  return R();
}

LogicalResult Elaborator::emitTmaCopy(const Region &src, const Region &dst,
                                      llvm::ArrayRef<mlir::Value> srcOffsets,
                                      llvm::ArrayRef<mlir::Value> dstOffsets,
                                      const std::optional<Arg> &barrier,
                                      const CallArgs &args) {
  if (!barrier) {
    error(args.range, "`T.tma_copy` needs `barrier=`: the mbarrier the load "
                      "completes on (T.alloc_barrier)");
    return failure();
  }
  if (src.buffer->scope != MemScope::Global ||
      dst.buffer->scope != MemScope::Shared) {
    error(args.range, "`T.tma_copy` loads a global tensor into shared memory "
                      "(T.alloc_shared); `" +
                          src.buffer->name + "` is in " +
                          spelling(src.buffer->scope) + " memory and `" +
                          dst.buffer->name + "` in " +
                          spelling(dst.buffer->scope) + " memory");
    return failure();
  }
  auto bar = barrierRef(*barrier, "barrier");
  if (failed(bar))
    return failure();
  tile::TmaCopyOp::create(builder, loc(args.range.Start), src.buffer->memref,
                          srcOffsets, src.extents, dst.buffer->memref,
                          dstOffsets, dst.extents, bar->first, bar->second);
  return success();
}

Flow Elaborator::execWs(const ast::WithStmt &s, CallArgs &args, Frame &frame) {
  args.callee = "T.ws";
  if (failed(requireKernel(args)))
    return Flow::Error;
  if (s.getItems().size() != 1 || s.getItems()[0].target) {
    error(s.getItems()[0].context->getRange(),
          "`with T.ws(...)` takes no `as` name and no other context");
    return Flow::Error;
  }
  if (insideWs(builder)) {
    error(args.range, "`T.ws` regions cannot be nested");
    return Flow::Error;
  }
  if (!args.keywords.empty() || args.positional.empty()) {
    error(args.range, "`T.ws` takes one or more warpgroup ids, as in "
                      "`T.ws(0)` or `T.ws(0, 1)`");
    return Flow::Error;
  }
  tile::KernelOp kernel = enclosingKernel(builder);
  int64_t threads = kernel.getThreads();
  SmallVector<int64_t> ids;
  for (const Arg &a : args.positional) {
    if (!a.value.isIntLike() || a.value.getInt() < 0) {
      error(a.range, "a `T.ws` warpgroup id is a non-negative integer known "
                     "at compile time, got `" +
                         a.value.repr() + "`");
      return Flow::Error;
    }
    int64_t id = a.value.getInt();
    if (!ids.empty() && id != ids.back() + 1) {
      error(a.range, "the warpgroups of one `T.ws` must be consecutive ids; "
                     "tilec runs a region on one range of threads");
      return Flow::Error;
    }
    if ((id + 1) * kWarpgroup > threads) {
      error(a.range, "warpgroup " + Twine(id) + " (threads [" +
                         Twine(id * kWarpgroup) + ", " +
                         Twine((id + 1) * kWarpgroup) +
                         ")) is past the kernel's " + Twine(threads) +
                         " threads (a warpgroup is 128 threads)");
      return Flow::Error;
    }
    ids.push_back(id);
  }
  auto ws = tile::WsOp::create(builder, loc(args.range.Start),
                               builder.getDenseI64ArrayAttr(ids));
  Block *body = new Block();
  ws.getBody().push_back(body);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  unsigned depth = regionDepth++;
  Flow f = execBlock(s.getBody(), frame);
  regionDepth = depth;
  poisonRegionBindings(*frame.scope, depth,
                       "was computed inside the `T.ws` region above, by its "
                       "warpgroups only, and cannot be used after it");
  if (f == Flow::Break || f == Flow::Continue || f == Flow::Return) {
    error(s.getRange(), "`break`, `continue` and `return` cannot leave a "
                        "`T.ws` region");
    return Flow::Error;
  }
  return f;
}

} // namespace tilec::mlirgen
