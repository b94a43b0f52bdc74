//===- Random.cpp - T.rng_init / T.rng_rand ------------------------------===//
//
// TileLang's per-thread random numbers are cuRAND's device API:
// `T.rng_init(seed, seq, off)` is `curand_init(seed, seq, off, &state)` on a
// `curandStatePhilox4_32_10_t` (TileLang's default generator) and
// `T.rng_rand()` is `curand(&state)`, the next 32-bit value of the thread's
// stream. tilec has no cuRAND to call, so it computes the same stream:
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11) on a 128-bit counter and a 64-bit key, with cuRAND's mapping of
// (seed, subsequence, offset) onto them:
//
//   key = seed (low, high word); counter = (0, 0, subsequence);
//   then the offset skips `off` values: counter += off / 4, and the first
//   `off % 4` words of the block are skipped.
//   curand() returns the next word of Philox(counter, key); after the
//   fourth, counter += 1 and the block is recomputed.
//
// The state lives in eleven per-thread 32-bit variables (counter, key, the
// current block, the word index) allocated where T.rng_init runs; T.rng_rand
// finds them in the enclosing blocks by name, so a T.rng_rand that
// T.rng_init does not dominate is an error.
//
//===----------------------------------------------------------------------===//

#include "Elaborator.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using llvm::SMRange;
using llvm::StringRef;
using llvm::Twine;

namespace tilec::mlirgen {

namespace {
/// The state's variables, in this order.
constexpr unsigned kCtr = 0, kKey = 4, kOut = 6, kIdx = 10, kStateWords = 11;
const char *const kStateNames[kStateWords] = {
    "rng_ctr_x", "rng_ctr_y", "rng_ctr_z", "rng_ctr_w",
    "rng_key_x", "rng_key_y", "rng_out_x", "rng_out_y",
    "rng_out_z", "rng_out_w", "rng_index"};

/// Philox4x32's multipliers and Weyl key increments.
constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

struct Emitter {
  OpBuilder &b;
  Location l;
  Type i32() { return b.getI32Type(); }
  mlir::Value c32(uint32_t v) {
    return arith::ConstantOp::create(b, l, i32(),
                                     b.getI32IntegerAttr(int32_t(v)));
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return arith::AddIOp::create(b, l, x, y);
  }
  mlir::Value xori(mlir::Value x, mlir::Value y) {
    return arith::XOrIOp::create(b, l, x, y);
  }
  mlir::Value cmp(arith::CmpIPredicate p, mlir::Value x, mlir::Value y) {
    return arith::CmpIOp::create(b, l, p, x, y);
  }
  mlir::Value zext(mlir::Value i1) {
    return arith::ExtUIOp::create(b, l, i32(), i1);
  }
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y) {
    return arith::SelectOp::create(b, l, c, x, y);
  }

  /// Ten Philox rounds on (ctr, key).
  std::array<mlir::Value, 4> philox(std::array<mlir::Value, 4> c,
                                    std::array<mlir::Value, 2> k) {
    mlir::Value m0 = c32(kM0), m1 = c32(kM1), w0 = c32(kW0), w1 = c32(kW1);
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k[0] = add(k[0], w0);
        k[1] = add(k[1], w1);
      }
      auto p0 = arith::MulUIExtendedOp::create(b, l, m0, c[0]);
      auto p1 = arith::MulUIExtendedOp::create(b, l, m1, c[2]);
      c = {xori(xori(p1.getHigh(), c[1]), k[0]), p1.getLow(),
           xori(xori(p0.getHigh(), c[3]), k[1]), p0.getLow()};
    }
    return c;
  }

  /// counter += 1 (128 bits).
  std::array<mlir::Value, 4> increment(std::array<mlir::Value, 4> c) {
    mlir::Value one = c32(1), zero = c32(0);
    mlir::Value carry = one;
    for (int w = 0; w < 4; ++w) {
      c[w] = add(c[w], carry);
      if (w < 3)
        carry = arith::AndIOp::create(
            b, l, carry, zext(cmp(arith::CmpIPredicate::eq, c[w], zero)));
    }
    return c;
  }
};
} // namespace

/// The state variables T.rng_init allocated in a block around the
/// insertion point; empty when there are none.
static SmallVector<mlir::Value> findRngState(OpBuilder &builder) {
  for (Block *block = builder.getInsertionBlock(); block;) {
    SmallVector<mlir::Value> found(kStateWords);
    unsigned n = 0;
    for (Operation &op : *block)
      if (auto alloc = dyn_cast<tile::AllocOp>(op))
        for (unsigned k = 0; k < kStateWords; ++k)
          if (alloc.getName() == kStateNames[k]) {
            found[k] = alloc.getResult();
            ++n;
          }
    if (n == kStateWords)
      return found;
    Operation *parent = block->getParentOp();
    if (!parent || isa<func::FuncOp>(parent))
      break;
    block = parent->getBlock();
  }
  return {};
}

FailureOr<Value> Elaborator::callRandom(StringRef name, CallArgs &args) {
  if (failed(requireKernel(args)))
    return failure();
  Location l = loc(args.range.Start);
  Emitter e{builder, l};
  Type i64 = builder.getI64Type();
  auto load = [&](mlir::Value var) {
    return memref::LoadOp::create(builder, l, var, ValueRange{}).getResult();
  };
  auto store = [&](mlir::Value v, mlir::Value var) {
    memref::StoreOp::create(builder, l, v, var, ValueRange{});
  };

  if (name == "T.rng_init") {
    auto b = bindArgs(args, {"seed", "seq", "off", "generator"}, 1);
    if (failed(b))
      return failure();
    if ((*b)[3]) {
      const Arg *g = &*(*b)[3];
      if (!g->value.is(Value::Str) ||
          g->value.getStr() != "curandStatePhilox4_32_10_t") {
        error(g->range, "`T.rng_init` supports the generator "
                        "\"curandStatePhilox4_32_10_t\" (TileLang's default) "
                        "only, got `" +
                            g->value.repr() + "`");
        return failure();
      }
    }
    // Each of seed, seq and off is an unsigned long long in curand_init;
    // a signed value converts as C++ converts it (sign extension).
    auto as64 = [&](const Arg &a) -> FailureOr<mlir::Value> {
      FailureOr<Value> s = toScalar(a.value, a.range);
      if (failed(s))
        return failure();
      if (!s->isIntLike() &&
          !(s->is(Value::Runtime) && s->getRuntime().dtype.isInteger())) {
        error(a.range, "`T.rng_init` takes integers, got `" + s->repr() + "`");
        return failure();
      }
      return toIR(*s, i64, a.range);
    };
    FailureOr<mlir::Value> seed = as64(*(*b)[0]);
    if (failed(seed))
      return failure();
    FailureOr<mlir::Value> seq, off;
    if ((*b)[1] && !(*b)[1]->value.isNone()) {
      seq = as64(*(*b)[1]);
    } else {
      // TileLang's default sequence: the thread's global index,
      // tx + bx * (threads per block).
      CallArgs none;
      none.range = args.range;
      none.callee = "T.get_thread_binding";
      FailureOr<Value> tx = callPrimitive("T.get_thread_binding", none);
      none.callee = "T.get_block_binding";
      FailureOr<Value> bx = callPrimitive("T.get_block_binding", none);
      if (failed(tx) || failed(bx))
        return failure();
      // TileLang's T.kernel.get_thread_extent(): threadIdx.x's extent
      // (the first of threads=(x, y, ...)).
      int64_t threads = 1;
      if (!blockDims.empty()) {
        threads = blockDims.front();
      } else {
        Operation *op = builder.getInsertionBlock()->getParentOp();
        while (op && !isa<tile::KernelOp>(op))
          op = op->getParentOp();
        if (op)
          threads = int64_t(cast<tile::KernelOp>(op).getThreads());
      }
      FailureOr<mlir::Value> t = toIR(*tx, i64, args.range);
      FailureOr<mlir::Value> bk = toIR(*bx, i64, args.range);
      if (failed(t) || failed(bk))
        return failure();
      mlir::Value ext = arith::ConstantOp::create(
          builder, l, i64, builder.getI64IntegerAttr(threads));
      seq = arith::AddIOp::create(builder, l, *t,
                                  arith::MulIOp::create(builder, l, *bk, ext))
                .getResult();
    }
    if (failed(seq))
      return failure();
    if ((*b)[2])
      off = as64(*(*b)[2]);
    else
      off = arith::ConstantOp::create(builder, l, i64,
                                      builder.getI64IntegerAttr(0))
                .getResult();
    if (failed(off))
      return failure();

    auto lo = [&](mlir::Value v) -> mlir::Value {
      return arith::TruncIOp::create(builder, l, e.i32(), v);
    };
    auto hi = [&](mlir::Value v) -> mlir::Value {
      mlir::Value s = arith::ShRUIOp::create(
          builder, l, v,
          arith::ConstantOp::create(builder, l, i64,
                                    builder.getI64IntegerAttr(32)));
      return arith::TruncIOp::create(builder, l, e.i32(), s);
    };
    using P = arith::CmpIPredicate;
    mlir::Value zero = e.c32(0);
    std::array<mlir::Value, 2> key = {lo(*seed), hi(*seed)};
    // skipahead_sequence: the subsequence is the counter's high half.
    std::array<mlir::Value, 4> ctr = {zero, zero, lo(*seq), hi(*seq)};
    // skipahead(off): STATE = off % 4, counter += off / 4 (64-bit add into
    // the low half, carrying into the high half as cuRAND does).
    mlir::Value index = lo(arith::AndIOp::create(
        builder, l, *off,
        arith::ConstantOp::create(builder, l, i64,
                                  builder.getI64IntegerAttr(3))));
    mlir::Value blocks = arith::ShRUIOp::create(
        builder, l, *off,
        arith::ConstantOp::create(builder, l, i64,
                                  builder.getI64IntegerAttr(2)));
    mlir::Value nlo = lo(blocks), nhi = hi(blocks);
    ctr[0] = e.add(ctr[0], nlo);
    nhi = e.add(nhi, e.zext(e.cmp(P::ult, ctr[0], nlo)));
    ctr[1] = e.add(ctr[1], nhi);
    mlir::Value c2 = e.zext(e.cmp(P::ugt, nhi, ctr[1]));
    ctr[2] = e.add(ctr[2], c2);
    mlir::Value c3 = arith::AndIOp::create(builder, l, c2,
                                           e.zext(e.cmp(P::eq, ctr[2], zero)));
    ctr[3] = e.add(ctr[3], c3);
    std::array<mlir::Value, 4> out = e.philox(ctr, key);

    // The state, as per-thread variables.
    SmallVector<mlir::Value> init = {ctr[0], ctr[1], ctr[2], ctr[3],
                                     key[0], key[1], out[0], out[1],
                                     out[2], out[3], index};
    auto type = tile::getBufferType({}, e.i32(), tile::MemorySpace::local);
    for (unsigned k = 0; k < kStateWords; ++k) {
      mlir::Value var = tile::AllocOp::create(builder, l, type, kStateNames[k]);
      store(init[k], var);
    }
    return Value::none();
  }

  // T.rng_rand(): curand(&state).
  if (!args.positional.empty() || !args.keywords.empty()) {
    error(args.range, "`T.rng_rand` takes no arguments");
    return failure();
  }
  SmallVector<mlir::Value> state = findRngState(builder);
  if (state.empty()) {
    error(args.range, "`T.rng_rand` needs a `T.rng_init` before it in the "
                      "same kernel, at this level or an enclosing one");
    return failure();
  }
  using P = arith::CmpIPredicate;
  mlir::Value index = load(state[kIdx]);
  std::array<mlir::Value, 4> out;
  for (unsigned w = 0; w < 4; ++w)
    out[w] = load(state[kOut + w]);
  mlir::Value ret = e.select(
      e.cmp(P::eq, index, e.c32(1)), out[1],
      e.select(e.cmp(P::eq, index, e.c32(2)), out[2],
               e.select(e.cmp(P::eq, index, e.c32(3)), out[3], out[0])));
  mlir::Value next = e.add(index, e.c32(1));
  mlir::Value wrap = e.cmp(P::eq, next, e.c32(4));
  store(e.select(wrap, e.c32(0), next), state[kIdx]);
  // After the block's fourth word: the next counter and its block.
  auto ifOp = scf::IfOp::create(builder, l, TypeRange{}, wrap,
                                /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    std::array<mlir::Value, 4> ctr;
    for (unsigned w = 0; w < 4; ++w)
      ctr[w] = load(state[kCtr + w]);
    std::array<mlir::Value, 2> key = {load(state[kKey]), load(state[kKey + 1])};
    ctr = e.increment(ctr);
    std::array<mlir::Value, 4> fresh = e.philox(ctr, key);
    for (unsigned w = 0; w < 4; ++w) {
      store(ctr[w], state[kCtr + w]);
      store(fresh[w], state[kOut + w]);
    }
  }
  return wrapRuntime(ret, DType::UInt32, false);
}

} // namespace tilec::mlirgen
