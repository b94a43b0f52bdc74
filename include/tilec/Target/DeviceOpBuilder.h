//===- DeviceOpBuilder.h - Vendor operations behind one interface -*- C++ -*-===//
//
// The tile-level passes decide (a named barrier over threads 128..255, a
// cp.async ring of 3 stages, an mma.sync m16n8k16 tile) and then emit the
// operation that carries out the decision. The decision is vendor-neutral;
// the operation is not (nvvm.barrier, nvvm.cp.async.shared.global,
// rocdl.mfma.*). DeviceOpBuilder is where the two meet: passes/ calls its
// builders, each taking an OpBuilder and a Location and returning the
// Values it made, and the vendor folders (targets/nvptx, targets/amdgpu)
// implement them. passes/ links this interface only; a vendor library
// registers its builder (InitDeviceOps.h), and get() hands out the one of a
// chip's vendor.
//
// Whether a chip has an operation at all is a TargetInfo question
// (hasNamedBarriers(), hasAsyncCopy(), hasTMA(), ...), asked before the
// builder is called: a builder the vendor does not implement is a
// programming error (report_fatal_error naming the operation), not a
// diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_DEVICEOPBUILDER_H
#define TILEC_TARGET_DEVICEOPBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace tilec {

class TargetInfo;

/// The vendors whose operations tilec emits.
enum class Vendor { NVIDIA, AMD };

/// `target`'s vendor.
Vendor vendorOf(const TargetInfo &target);

/// The shape of one matrix-multiply-accumulate instruction.
struct MmaShape {
  int64_t m, n, k;
};

/// Builds the vendor operations of recorded decisions. Stateless: one
/// instance per vendor, shared by every thread of the pass manager.
class DeviceOpBuilder {
public:
  virtual ~DeviceOpBuilder();

  /// The builder of `target`'s vendor. The vendor library must have been
  /// registered (registerAllDeviceOps in InitDeviceOps.h; tilec, tilec-opt
  /// and the unit tests do it in main); otherwise a fatal error.
  static const DeviceOpBuilder &get(const TargetInfo &target);
  /// Whether a builder is registered for `vendor`.
  static bool isRegistered(Vendor vendor);
  /// Makes `builder` the one of `vendor` (replacing an earlier one). Called
  /// once per vendor before any pass runs.
  static void registerBuilder(Vendor vendor,
                              std::unique_ptr<DeviceOpBuilder> builder);

  /// The vendor's name as diagnostics spell it ("NVIDIA", "AMD").
  virtual llvm::StringRef vendorName() const = 0;

  //===--- Barriers -------------------------------------------------------===//

  /// A barrier among `threads` threads (an i32, whole warps) with barrier
  /// number `id` (i32; 0 is the block's own): bar.sync id, threads.
  virtual void namedBarrier(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value id, mlir::Value threads) const;
  /// Arrives at barrier `id` of `threads` threads without waiting
  /// (bar.arrive id, threads): the producer's side of a named barrier
  /// whose other threads wait on it with namedBarrier.
  virtual void namedBarrierArrive(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value id, mlir::Value threads) const;
  /// Waits until every lane of the warp gets here (bar.warp.sync -1).
  virtual void warpSync(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Waits until every thread of every block of the grid gets here, with
  /// the writes before it visible after it (T.sync_grid). Needs a
  /// cooperative launch: every block resident at once.
  virtual void gridSync(mlir::OpBuilder &b, mlir::Location loc) const;

  //===--- Asynchronous global -> shared copies ---------------------------===//

  /// Copies `bytes` (16) from the global pointer `src` (address space 1) to
  /// the shared pointer `dst`, bypassing L1 and registers; only `srcBytes`
  /// (an i32, 0 or `bytes`) are read and the rest of the destination is
  /// zero-filled (cp.async.cg.shared.global).
  virtual void asyncCopy(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value dst, mlir::Value src, int64_t bytes,
                         mlir::Value srcBytes) const;
  /// Closes the group of this thread's asynchronous copies issued since
  /// the last one (cp.async.commit_group).
  virtual void asyncCopyCommit(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Waits until at most `pending` of this thread's groups are in flight
  /// (cp.async.wait_group pending).
  virtual void asyncCopyWait(mlir::OpBuilder &b, mlir::Location loc,
                             int64_t pending) const;

  //===--- Transaction barriers (mbarrier) --------------------------------===//
  //
  // `mbar` is a pointer to the 64-bit barrier in shared memory; counts,
  // byte counts, parities and tick limits are i32 values.

  /// Initializes the barrier to expect `count` arrivals.
  virtual void mbarrierInit(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value mbar, mlir::Value count) const;
  /// This thread arrives.
  virtual void mbarrierArrive(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value mbar) const;
  /// This thread arrives when `flag` (i32) is nonzero: a predicated
  /// instruction, not a branch (a branch between a wgmma and the reads of
  /// its accumulators makes ptxas serialize the kernel's wgmmas).
  virtual void mbarrierArriveIf(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value flag, mlir::Value mbar) const;
  /// This thread arrives and the current phase expects `bytes` more bytes
  /// of asynchronous transactions.
  virtual void mbarrierArriveExpectTx(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value mbar,
                                      mlir::Value bytes) const;
  /// The barrier receives one of its expected arrivals once every
  /// asynchronous copy this thread issued before has completed
  /// (cp.async.mbarrier.arrive.noinc: the arrival is not added to the
  /// pending count).
  virtual void mbarrierArriveOnAsyncCopies(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value mbar) const;
  /// The current phase expects `bytes` more bytes, without arriving.
  virtual void mbarrierExpectTx(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value mbar, mlir::Value bytes) const;
  /// Waits until the phase of parity `parity` (0 or 1) has completed,
  /// suspending for up to `ticks` between tries (mbarrier.try_wait.parity
  /// in a loop).
  virtual void mbarrierWaitParity(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value mbar, mlir::Value parity,
                                  mlir::Value ticks) const;

  //===--- Tensor memory access and proxies -------------------------------===//

  /// A TMA tile load: the box at `coords` (i32, innermost first) of the
  /// tensor map `tensorMap` into shared `dst` (a shared::cluster pointer),
  /// completing as transactions on `mbar`.
  virtual void tmaLoad(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value dst, mlir::Value tensorMap,
                       mlir::ValueRange coords, mlir::Value mbar) const;
  /// A TMA tile store: shared `src` (a shared::cta pointer) into the box
  /// at `coords` (i32, innermost first) of `tensorMap`, elements past the
  /// tensor's edges not written; tracked by this thread's bulk groups.
  virtual void tmaStore(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value tensorMap, mlir::Value src,
                        mlir::ValueRange coords) const;
  /// Closes this thread's uncommitted bulk copies into a group
  /// (cp.async.bulk.commit_group).
  virtual void bulkCommitGroup(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Waits until at most `pending` of this thread's bulk groups still
  /// read their shared sources (cp.async.bulk.wait_group.read).
  virtual void bulkWaitGroupRead(mlir::OpBuilder &b, mlir::Location loc,
                                 int32_t pending) const;
  /// Orders this thread's generic-proxy shared-memory accesses before
  /// later async-proxy ones (TMA, wgmma): fence.proxy.async.shared::cta.
  virtual void fenceAsyncShared(mlir::OpBuilder &b, mlir::Location loc) const;

  //===--- Register reallocation ------------------------------------------===//

  /// Raises (`increase`) or lowers this warpgroup's register limit to
  /// `registers` per thread (setmaxnreg.inc / .dec).
  virtual void setMaxRegisters(mlir::OpBuilder &b, mlir::Location loc,
                               int32_t registers, bool increase) const;

  //===--- Matrix instructions --------------------------------------------===//

  /// Warp-wide load of `count` (2 or 4) 8x8 matrices of 16-bit elements
  /// from shared memory at `ptr` (each lane's row address), transposed when
  /// `transpose`: the i32 words this lane receives (ldmatrix .x2 / .x4).
  virtual llvm::SmallVector<mlir::Value, 4>
  matrixLoad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
             int count, bool transpose) const;
  /// Warp-wide store of `words.size()` (1, 2 or 4) 8x8 matrices of 16-bit
  /// elements into shared memory at `ptr` (each lane's row address), word
  /// i of a lane holding its two elements of matrix i (stmatrix .x1/.x2/.x4).
  virtual void matrixStore(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value ptr, mlir::ValueRange words) const;
  /// One warp-synchronous MMA of `shape` with A row-major and B
  /// column-major, A and B of element types `aType` / `bType` (f16, bf16,
  /// f32 multiplied as tf32, f8E4M3FN, f8E5M2) packed in i32 words `a`, `b`
  /// and an f32 accumulator `c` (4 floats for m16n8): the f32 results
  /// (mma.sync.aligned.m16n8kK.row.col.f32).
  virtual llvm::SmallVector<mlir::Value, 4>
  mmaSync(mlir::OpBuilder &b, mlir::Location loc, MmaShape shape,
          mlir::Type aType, mlir::Type bType, mlir::ValueRange a,
          mlir::ValueRange bWords, mlir::ValueRange c) const;
  /// The matrix instruction named by a `#tile.mma` decision's op
  /// (`instruction`, e.g. "rocdl.mfma.f32.32x32x8f16") on operands `a`,
  /// `b` and accumulator `acc` (of `accType`), with no broadcast between
  /// blocks or lanes: the new accumulator (AMD's MFMA).
  virtual mlir::Value mfma(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::StringRef instruction, mlir::Type accType,
                           mlir::Value a, mlir::Value bOperand,
                           mlir::Value acc) const;

  //===--- Warpgroup MMA (wgmma) -------------------------------------------===//
  //
  // `acc` is the accumulator of one instruction as the vendor holds it (an
  // LLVM struct of shape.n / 2 f32 on NVIDIA, the type `accType`); A and B
  // in shared memory are 64-bit matrix descriptors.

  /// Orders this warpgroup's register writes before its next wgmmas.
  virtual void wgmmaFence(mlir::OpBuilder &b, mlir::Location loc) const;
  /// One asynchronous m64nNkK MMA, A and B through the descriptors `descA`,
  /// `descB` (K-major when `aKMajor` / `bKMajor`), element types `aType`,
  /// `bType` (f16, bf16, f8E4M3FN, f8E5M2), f32 accumulation: the new
  /// accumulator. Without `accumulate` (wgmma's scale-d = 0) the product
  /// ignores `acc`, which may then be undefined: a cleared accumulator
  /// needs no zeroed registers.
  virtual mlir::Value wgmmaMma(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Type accType, mlir::Value acc,
                               mlir::Value descA, mlir::Value descB,
                               MmaShape shape, mlir::Type aType,
                               mlir::Type bType, bool aKMajor, bool bKMajor,
                               bool accumulate = true) const;
  /// The same with A (f16 or bf16, k16) in registers: `aWords` the four i32
  /// words of this thread's A fragment.
  virtual mlir::Value wgmmaMmaRegisterA(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Type accType, mlir::Value acc,
                                        mlir::ValueRange aWords,
                                        mlir::Value descB, MmaShape shape,
                                        mlir::Type aType, bool bKMajor,
                                        bool accumulate = true) const;
  /// Closes the group of wgmmas issued since the last one.
  virtual void wgmmaCommit(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Waits until at most `pending` wgmma groups are in flight.
  virtual void wgmmaWait(mlir::OpBuilder &b, mlir::Location loc,
                         int64_t pending) const;
  /// `value` (an f32 accumulator element read after a wait, or an i32 /
  /// i64 address) through a no-op the optimizer cannot look through, so
  /// that its uses stay after the wait, or in the loop (an empty inline
  /// asm tied to it).
  virtual mlir::Value opaqueRegister(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value value) const;

  //===--- 8-bit float conversions ----------------------------------------===//

  /// Whether the vendor's conversions between f32 / f16 and the OCP 8-bit
  /// floats (e4m3, e5m2) are implemented (the chip must also have them:
  /// TargetInfo::hasMMA with an F8E4M3 operand).
  virtual bool hasOcpFp8Conversions() const { return false; }
  /// Two f32 values `hi`, `lo` rounded (to nearest even, saturating) to the
  /// 8-bit float type `fp8`, packed in an i16 with `lo` in the low byte.
  virtual mlir::Value packOcpFp8x2(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value hi, mlir::Value lo,
                                   mlir::Type fp8) const;
  /// The two 8-bit floats of type `fp8` packed in the i16 `bits`, widened
  /// exactly to vector<2xf16> (element 0: the low byte).
  virtual mlir::Value unpackOcpFp8x2(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value bits, mlir::Type fp8) const;

protected:
  DeviceOpBuilder() = default;
  DeviceOpBuilder(const DeviceOpBuilder &) = delete;
  DeviceOpBuilder &operator=(const DeviceOpBuilder &) = delete;

  /// The fatal error of a builder the vendor does not implement.
  [[noreturn]] void unsupported(llvm::StringRef what) const;
};

} // namespace tilec

#endif // TILEC_TARGET_DEVICEOPBUILDER_H
