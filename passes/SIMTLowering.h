//===- SIMTLowering.h - Shared state of tile-lower-simt ---------*- C++ -*-===//
//
// tile-lower-simt is one pass whose op families live in separate files:
// LowerLoops.cpp (tile.for, tile.pipelined), LowerParallel.cpp
// (tile.parallel), LowerCopy.cpp (tile.copy, tile.fill), LowerReduce.cpp
// (tile.reduce) and LowerMisc.cpp (barriers, atomics, printing, asserts,
// local buffers). They share one KernelLowering per gpu.func: the thread
// id, each fragment's layout and register array, and this thread's
// coordinates under a layout, all created once at the kernel's entry.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PASSES_SIMTLOWERING_H
#define TILEC_PASSES_SIMTLOWERING_H

#include "SIMTLayout.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <map>

namespace tilec {
class TargetInfo;
} // namespace tilec

namespace tilec::simt {

struct LowerOptions {
  /// "assert" or "printf" (see the pass's option).
  std::string assertLowering = "assert";
  /// Strided loops with at most this many steps are unrolled.
  int64_t unrollLimit = 16;
  /// Mark float arith ops `contract` (FMA formation).
  bool fpContract = true;
  /// Width of `index` in the code emitter's LLVM lowering: the tensor-core
  /// family takes element addresses out of memref descriptors of that type.
  unsigned indexBitwidth = 32;
};

/// A fragment buffer once lowered: this thread's registers.
struct Fragment {
  Layout layout;
  /// memref<numRegisters x element>, allocated at the kernel's entry and
  /// only ever indexed by constants.
  mlir::Value registers;
  std::string name;
  mlir::Type elementType;
};

class KernelLowering {
public:
  KernelLowering(mlir::gpu::GPUFuncOp func, int64_t threads,
                 const LowerOptions &options);

  mlir::gpu::GPUFuncOp getFunc() { return func; }
  int64_t getThreads() const { return threads; }
  const LowerOptions &getOptions() const { return options; }

  /// gpu.thread_id x (index), created once at the entry.
  mlir::Value threadId() const { return tid; }

  /// Reads the layout of a fragment alloc and allocates its registers.
  mlir::LogicalResult addFragment(tile::AllocOp alloc);
  /// A T.reshape view of a fragment added before: the view's layout, over
  /// the fragment's registers (register r of a thread is the same element
  /// in both).
  mlir::LogicalResult addView(tile::ReshapeOp view);
  /// The lowered fragment `buffer` is, or null.
  const Fragment *fragment(mlir::Value buffer) const;
  /// Every fragment, by its alloc (or view) op; views after the allocs.
  llvm::MutableArrayRef<std::pair<mlir::Operation *, Fragment>> fragments() {
    return frags;
  }

  /// The thread id numbered from `layout`'s first thread (its partition's),
  /// computed once at the entry: what its thread bits are bits of.
  mlir::Value layoutThreadId(const Layout &layout);
  /// This thread's coordinate along `dim` of register 0 under `layout`,
  /// computed once at the entry from the thread id.
  mlir::Value threadCoord(const Layout &layout, size_t dim);
  /// This thread's coordinates of register `r` under `layout`, built at
  /// `b`'s insertion point (thread part + a constant).
  llvm::SmallVector<mlir::Value> coords(mlir::OpBuilder &b, mlir::Location loc,
                                        const Layout &layout, int64_t r);

  mlir::Value loadRegister(mlir::OpBuilder &b, mlir::Location loc,
                           const Fragment &frag, int64_t k);
  void storeRegister(mlir::OpBuilder &b, mlir::Location loc,
                     const Fragment &frag, int64_t k, mlir::Value value);

  /// A builder inserting at the kernel's entry, after what is there.
  mlir::OpBuilder entryBuilder();
  /// Runs `build` with a builder at the entry, after what is there; what
  /// it creates stays part of the entry (later entry ops go after it).
  void buildAtEntry(llvm::function_ref<void(mlir::OpBuilder &)> build);

  /// Warp specialization (WarpSpecialize.cpp): the producer's code, built
  /// where the pipelined loop was, waiting for splitWarpRoles.
  void setProducer(mlir::Operation *op) { producer = op; }
  mlir::Operation *getProducer() const { return producer; }

private:
  mlir::gpu::GPUFuncOp func;
  int64_t threads;
  const LowerOptions &options;
  mlir::Value tid;
  /// The last op created at the entry; new entry ops go after it.
  mlir::Operation *lastEntryOp = nullptr;
  mlir::Operation *producer = nullptr;
  std::vector<std::pair<mlir::Operation *, Fragment>> frags;
  /// Thread parts, keyed by the layout's first thread and the thread
  /// bases' components along one dim.
  std::map<std::pair<int64_t, std::vector<int64_t>>, mlir::Value>
      threadCoordCache;
  /// layoutThreadId, by first thread.
  std::map<int64_t, mlir::Value> threadIdFrom;
};

//===----------------------------------------------------------------------===//
// Helpers shared by the families
//===----------------------------------------------------------------------===//

mlir::Value constIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Converts a scalar between integer and float types (ext/trunc, int<->fp);
/// `value` itself when the types agree.
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, mlir::Type to);

/// The zero of an integer, index or float type.
mlir::Value zeroOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type);

/// The largest power of two (up to 2^20) known to divide `value`: 2^20 for
/// 0, from constants, products, sums and shifts; 1 when unknown.
int64_t knownDivisor(mlir::Value value);

/// True for a memref without memory space (a global tensor).
bool isGlobalBuffer(mlir::Value buffer);
bool isSpace(mlir::Value buffer, tile::MemorySpace space);

/// A strided loop with this unit attribute runs its steps one by one (each
/// tested on its own, its stores in place); buildStridedLoop sets it.
inline constexpr llvm::StringLiteral kStepwiseKey = "tile.stepwise";

/// Builds `tile.parallel` over `extents` with a strided `{vec = vec}`
/// layout and a body filled by `body(builder, loc, ivs)`, and lowers it.
mlir::LogicalResult
buildStridedLoop(KernelLowering &kernel, mlir::OpBuilder &b, mlir::Location loc,
                 llvm::ArrayRef<int64_t> extents, int64_t vec,
                 llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                         mlir::ValueRange)>
                     body);

/// Merges the clones (one IRMapping per consecutive iteration along the
/// last dimension, a power of two of them, in a straight line) of each load
/// and store in `body` (the ops of one T.Parallel iteration in order,
/// `lastIv` its last induction variable) into vector accesses of up to 16
/// bytes where that is provably aligned and legal (RowVectors.cpp).
void formRowVectors(llvm::ArrayRef<mlir::Operation *> body,
                    mlir::Block *parallelBody, mlir::Value lastIv,
                    llvm::ArrayRef<mlir::IRMapping> clones);

/// Whether the strided T.Parallel loop `loop` can run as `vec`-element
/// vectors cut at its rows' 16-byte boundaries (RealignedLoops.cpp): a
/// body of bounds checks over global loads, arithmetic and stores, every
/// access at the same indices, stepping along the rows.
bool realignable(tile::ParallelOp loop, int64_t vec);
/// Lowers such a loop so; false (nothing changed) where its threads do not
/// divide it into whole vectors.
mlir::FailureOr<bool> lowerRealigned(KernelLowering &kernel,
                                     tile::ParallelOp loop, int64_t vec);

/// The threads of the block that run an op: [begin, begin + count).
struct ThreadSpan {
  int64_t begin = 0;
  int64_t count = 0;
};

/// Which threads run `op`, from the conditions on the thread index around
/// it (ThreadGuards.cpp); the whole block when there are none. A located
/// error when they cannot be told or are not one range.
mlir::FailureOr<ThreadSpan> threadSpan(KernelLowering &kernel,
                                       mlir::Operation *op);
/// Checks every block-wide op under a condition on the thread index before
/// anything is lowered, and gives barriers under one their thread range
/// (a named barrier on NVIDIA; AMD has none, an error).
mlir::LogicalResult checkThreadGuards(KernelLowering &kernel,
                                      const TargetInfo &target);
/// The barrier tile.barrier `op` stands for, at `b`.
void createBarrier(mlir::OpBuilder &b, tile::BarrierOp op);

//===----------------------------------------------------------------------===//
// The families, in the order the pass runs them
//===----------------------------------------------------------------------===//

/// Approximate exp / division (`afn`) in T.Parallel bodies whose results
/// reach memory only rounded to fp16 / bf16 (NarrowMath.cpp).
void relaxRoundedMath(mlir::gpu::GPUFuncOp func);
/// tile.for and tile.pipelined to scf.for (unrolled where asked and static).
mlir::LogicalResult lowerLoops(mlir::gpu::GPUFuncOp func);
/// One tile.parallel, by its loop_layout.
mlir::LogicalResult lowerParallel(KernelLowering &kernel,
                                  tile::ParallelOp loop);
/// After lowerParallel: a kernel without fragments whose unrolled steps
/// have their loads in flight together asks ptxas for the registers they
/// fill (LowerParallel.cpp, askLoadRegisters).
void askLoadRegisters(KernelLowering &kernel, const TargetInfo &target);
/// tile.copy and tile.fill.
mlir::LogicalResult lowerCopiesAndFills(KernelLowering &kernel);
/// tile.reduce.
mlir::LogicalResult lowerReductions(KernelLowering &kernel);
/// tile.scan over shared buffers (LowerScan.cpp).
mlir::LogicalResult lowerScans(KernelLowering &kernel,
                               const TargetInfo &target);
/// tile.barrier, tile.atomic_add, tile.print, tile.device_assert,
/// tile.annotate_layout; unsupported ops get an error.
mlir::LogicalResult lowerMisc(KernelLowering &kernel);
/// Fragment element reads and writes left outside T.Parallel loops (serial
/// code every thread runs) to register accesses (LowerFloating.cpp).
mlir::LogicalResult lowerFloatingAccesses(KernelLowering &kernel);
/// Local buffers to memref.alloca (after every other family, which tell
/// local buffers apart by their memory space).
mlir::LogicalResult lowerLocals(mlir::gpu::GPUFuncOp func);

} // namespace tilec::simt

#endif // TILEC_PASSES_SIMTLOWERING_H
