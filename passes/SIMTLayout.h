//===- SIMTLayout.h - Fragment and loop layouts for the passes -*- C++ -*-===//
//
// The bridge between the layout library (LinearLayout values) and the SIMT
// passes: reading the #tile.fragment a pass recorded (tile-infer-layouts
// writes it, tile-lower-simt reads it; TileAttrs.td), tables that answer "which
// register of thread t holds element e" in O(1), projections (a reduction's
// output, a loop variable subset), and a small evaluator of index expressions
// used to check, iteration by iteration, that a thread holds every fragment
// element its loop iterations touch.
//
// Coordinates are flattened row-major (last dimension least significant)
// over the padded shape (every extent rounded up to a power of two,
// PaddedLayout.h), so a flat index is the concatenation of the
// coordinates' bits and XOR acts dimension by dimension: the element of
// register r of thread t is regFlat(r) ^ threadFlat(t). A tile with an
// extent that is not a power of two keeps only the registers inside it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PASSES_SIMTLAYOUT_H
#define TILEC_PASSES_SIMTLAYOUT_H

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Layout/LinearLayout.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace tilec::simt {

/// The input dimensions of every SIMT layout, in this order.
inline constexpr llvm::StringLiteral kRegister = "register";
inline constexpr llvm::StringLiteral kLane = "lane";
inline constexpr llvm::StringLiteral kWarp = "warp";

/// The linear layout `attr` records for a tile of `shape` (inputs
/// register, lane, warp; outputs dim0.. over the padded shape); nullopt
/// with the reason in `error` where it does not fit that shape (the ops'
/// verifiers reject such IR; passes may meet it before verification).
/// Layouts are recorded with tile::FragmentAttr::get(ctx, linear).
std::optional<LinearLayout> layoutFromAttr(tile::FragmentAttr attr,
                                           llvm::ArrayRef<int64_t> shape,
                                           std::string &error);

/// A validated (register, lane, warp) -> tile layout with lookup tables.
class Layout {
public:
  /// Fails (setting `error`) unless `linear` has exactly the inputs
  /// register, lane, warp (any may have size 1) and outputs dim0.. of
  /// `shape`. `threads` is how many threads exist where the layout runs
  /// (0: as many as it spans): a block of 12 warps has layouts over 16
  /// (MmaLayouts.h, placeWarps), whose phantom threads past `threads` are
  /// dropped here, after checking they hold nothing that a real thread
  /// does not (registersWithin). A count that is not between half the
  /// span and the span is left for the caller to compare with
  /// numThreads().
  static std::optional<Layout> get(const LinearLayout &linear,
                                   llvm::ArrayRef<int64_t> shape,
                                   std::string &error, int64_t threads = 0);

  const LinearLayout &linear() const { return lin; }
  llvm::ArrayRef<int64_t> shape() const { return tileShape; }
  size_t rank() const { return tileShape.size(); }
  int64_t numRegisters() const { return int64_t(regFlats.size()); }
  int64_t numLanes() const { return lanes; }
  int64_t numWarps() const { return warps; }
  /// Threads of the block (lanes * warps, or fewer where phantom warps
  /// were dropped); thread t is lane t % lanes of warp t / lanes.
  int64_t numThreads() const { return threads; }
  /// The block's thread that is the layout's thread 0: a partition's first
  /// thread (InferPartitions.cpp). Thread begin + t holds what thread t
  /// does; the lowering numbers threads from it (KernelLowering::
  /// layoutThreadId), since a partition of whole warps need not start at a
  /// multiple of its size.
  int64_t threadBegin() const { return begin; }
  void setThreadBegin(int64_t first) { begin = first; }
  /// The threads the linear layout spans (a power of two): numThreads()
  /// plus the phantom ones, which threadFlat and elementAt also answer
  /// for.
  int64_t spannedThreads() const { return int64_t(threadFlats.size()); }
  /// Whether flat element e lies inside the tile (not in the padding).
  bool isInside(uint64_t e) const;
  int64_t numElements() const;

  /// Flat element of register r of thread 0, and of thread t's register 0.
  uint64_t regFlat(int64_t r) const { return regFlats[r]; }
  uint64_t threadFlat(int64_t t) const { return threadFlats[t]; }
  uint64_t elementAt(int64_t r, int64_t t) const {
    return regFlats[r] ^ threadFlats[t];
  }
  uint64_t flatten(llvm::ArrayRef<int64_t> coord) const;
  llvm::SmallVector<int64_t> unflatten(uint64_t flat) const;

  /// The register of thread t that holds flat element e (the lowest if
  /// several do), or -1.
  int64_t findRegister(int64_t t, uint64_t e) const;

  /// Per thread bit (lane bits, then warp bits), its coordinate vector.
  llvm::ArrayRef<llvm::SmallVector<int64_t>> threadBases() const {
    return threadBasisCoords;
  }
  /// Per dimension, the OR of every register (thread) basis along it: when
  /// the two masks are disjoint, register part XOR thread part == sum.
  int64_t registerMask(size_t dim) const { return regMasks[dim]; }
  int64_t threadMask(size_t dim) const { return threadMasks[dim]; }

  /// Thread-id bits whose basis is zero: threads differing only there hold
  /// the same elements (replicas).
  int64_t replicaThreadMask() const;

  /// Every thread holds every element, element e in register e (the form
  /// makeReplicated builds), so an index computed at run time is the
  /// register index.
  bool isReplicatedInOrder() const;

  /// Number of low registers that hold consecutive elements of the last
  /// dimension (register r -> last coordinate r, other coordinates 0).
  int64_t contiguousRegisters() const;

  bool operator==(const Layout &other) const {
    return tileShape == other.tileShape && lin == other.lin;
  }

private:
  LinearLayout lin;
  llvm::SmallVector<int64_t> tileShape;
  /// tileShape with every extent rounded up to a power of two: what flat
  /// indices are taken over.
  llvm::SmallVector<int64_t> flatShape;
  int64_t lanes = 1, warps = 1, threads = 1, begin = 0;
  std::vector<uint64_t> regFlats, threadFlats;
  llvm::DenseMap<uint64_t, int64_t> regOfFlat; // thread-0 element -> reg
  llvm::SmallVector<llvm::SmallVector<int64_t>> threadBasisCoords;
  llvm::SmallVector<int64_t> regMasks, threadMasks;
};

/// LinearLayout::create over a tile of `shape` (output dimensions dim0,
/// dim1, ... with those extents: pad them first where they need not be
/// powers of two); nullopt with the reason in `error`.
std::optional<LinearLayout>
createTileLayout(std::vector<LinearLayout::InDim> ins,
                 llvm::ArrayRef<int64_t> shape, std::string &error);

/// `basis`, an image of `linear` in the order of its output dimensions,
/// as a coordinate in tile order (dim0 first) of a tile of `rank`
/// dimensions; a dimension `linear` does not name is 0.
llvm::SmallVector<int64_t> tileCoord(const LinearLayout &linear,
                                     const LinearLayout::Basis &basis,
                                     size_t rank);

/// A blocked layout (library's blockedLayout) for a tile of `shape` over
/// `threads` threads in warps of `warpSize`.
std::optional<LinearLayout> makeBlocked(llvm::ArrayRef<int64_t> shape,
                                        int64_t vec, int64_t threads,
                                        int64_t warpSize, std::string &error);

/// The fully replicated layout of a tile of `shape` (TileLang's
/// Fragment::FullyReplicated): every one of `threads` threads holds every
/// element, flat element e (row-major over the padded shape) in register
/// e; past an extent that is not a power of two the registers are padding,
/// which Layout::get drops.
std::optional<LinearLayout> makeReplicated(llvm::ArrayRef<int64_t> shape,
                                           int64_t threads, int64_t warpSize,
                                           std::string &error);

/// The layout of a tile whose dimension d is dimension `dims[d]` of
/// `layout`'s tile (other dimensions dropped), with `newShape` (an entry
/// of `dims` may be -1 for a new unit dimension). Registers that become
/// redundant (a zero basis, or one spanned by earlier register bases) are
/// dropped so a thread holds each element once; threads keep theirs (the
/// result is replicated over the threads that differed only along the
/// dropped dimensions).
std::optional<LinearLayout> selectDims(const Layout &layout,
                                       llvm::ArrayRef<int> dims,
                                       llvm::ArrayRef<int64_t> newShape,
                                       std::string &error);

/// `linear` (a layout of a tile of shape `from`) seen through a row-major
/// reshape to `to` (T.reshape of a fragment): every input bit, registers
/// included, keeps its place and maps to the same element, renamed; so
/// register r of thread t holds the same element in both. nullopt with the
/// reason in `error` unless both shapes have power-of-two extents and one
/// element count.
std::optional<LinearLayout> reshapeDims(const LinearLayout &linear,
                                        llvm::ArrayRef<int64_t> from,
                                        llvm::ArrayRef<int64_t> to,
                                        std::string &error);

/// Evaluates an index expression built from integer constants, `env`
/// values and arith integer ops; nullopt if it depends on anything else.
/// Memoizes into `env`.
std::optional<int64_t> evalIndex(mlir::Value value,
                                 llvm::DenseMap<mlir::Value, int64_t> &env);

/// For a loop laid out by `loop` with induction variables `ivs` and a
/// fragment access `indices` into a buffer laid out by `frag`: the
/// register of the fragment read/written by each loop register (the same
/// for every thread), or nullopt with a message in `why`.
/// `fixed` binds further values (e.g. the induction variables of inner
/// loops that will be unrolled) for the evaluation.
std::optional<llvm::SmallVector<int64_t>>
resolveRegisters(const Layout &loop, mlir::ValueRange ivs,
                 mlir::ValueRange indices, const Layout &frag, std::string &why,
                 const llvm::DenseMap<mlir::Value, int64_t> *fixed = nullptr);

/// A fragment access of a T.Parallel loop resolved per loop register:
/// register `base[r]`, plus `stride * runtime` where one index is a value
/// the loop's iterations do not change (TileLang's `frag[k, j]` with `k`
/// a serial loop's variable outside the T.Parallel): the register array is
/// then indexed at run time, as TileLang indexes its local array.
struct ResolvedAccess {
  llvm::SmallVector<int64_t> base;
  mlir::Value runtime; // null: every register a constant
  int64_t stride = 0;
};

/// Whether a fragment index inside the T.Parallel loop `loop` is a
/// run-time value: neither a constant nor computed from the variables of
/// the loop or of loops inside it.
bool isRuntimeIndex(mlir::Value index, mlir::Operation *loop);

/// A blocked layout (makeBlocked) of `shape` without dimension `dim`,
/// with dimension `dim` in each thread's registers on top: every thread
/// holds a whole run along `dim`, so an index along it known only at run
/// time is a register index (resolveAccess).
std::optional<LinearLayout>
makeRowsInRegisters(llvm::ArrayRef<int64_t> shape, int dim, int64_t vec,
                    int64_t threads, int64_t warpSize, std::string &error);

/// resolveRegisters, and where exactly one index is neither a constant nor
/// computed from the induction variables and `fixed` values, that index
/// taken at each of its in-bounds values: the registers must then be
/// evenly spaced along it (the same stride for every loop register),
/// else nullopt with a message in `why`.
std::optional<ResolvedAccess>
resolveAccess(const Layout &loop, mlir::Operation *loopOp,
              mlir::ValueRange indices, const Layout &frag, std::string &why,
              const llvm::DenseMap<mlir::Value, int64_t> *fixed = nullptr);

/// An access whose indices combine the loop's variables with the variable
/// of one loop around it of constant bounds (`x_frag[i, jj * 4 + j]` in
/// `for jj in T.serial(64)`): resolveRegisters at each value of that
/// variable, which must select registers `base + stride * variable`.
/// nullopt with `why` empty where the indices are not of that form.
std::optional<ResolvedAccess> resolveOffsetAccess(
    const Layout &loop, mlir::Operation *loopOp, mlir::ValueRange indices,
    const Layout &frag, std::string &why,
    const llvm::DenseMap<mlir::Value, int64_t> *fixed = nullptr);

/// For a reduction (or any projection) from `src` into `dst`, where dst
/// dimension d is src dimension `dims[d]` (-1: a unit dimension): the dst
/// register that receives each src register (the same on every thread), or
/// nullopt with a message in `why`.
std::optional<llvm::SmallVector<int64_t>>
resolveProjection(const Layout &src, llvm::ArrayRef<int> dims,
                  const Layout &dst, std::string &why);

/// Threads a kernel's layouts span: a `tile.kernel`'s, a warp-specialized
/// `gpu.func`'s consumers, or a `gpu.func`'s `tile.threads` or
/// `gpu.known_block_size`; nullopt for anything else.
std::optional<int64_t> kernelThreads(mlir::Operation *kernel);

/// The fragment buffer `value` is (a fragment `tile.alloc` result, or the
/// `tile.reshape` view of one), or null.
mlir::Operation *fragmentAlloc(mlir::Value value);

/// "file:line:col" of the first file location inside `loc`, or "?".
std::string formatLoc(mlir::Location loc);

/// "[a, b, c]".
std::string formatCoord(llvm::ArrayRef<int64_t> coord);

} // namespace tilec::simt

#endif // TILEC_PASSES_SIMTLAYOUT_H
