//===- ShareStorage.cpp - tile-share-storage: shared buffers by lifetime --===//
//
// Decides which shared buffers of a kernel may share storage, as TileLang
// merges its shared allocations: two buffers whose uses in the kernel body
// do not overlap in program order (FlashAttention's or MLA's O_shared,
// written after the loop, and Q_shared, last read inside it) can start at
// one offset. The decision is `tile.storage_group = N` on each member's
// `tile.alloc` (GemmLayouts.h, kStorageGroupAttr): tile-plan-pipeline,
// tile-plan-warp-specialize and tile-plan-shared count a group once, at its
// largest member, and tile-plan-shared gives its members one offset.
//
// Taken only for a kernel whose shared buffers, with every T.Pipelined
// operand copy at its loop's stage count, do not fit a block's shared
// memory: a kernel that fits keeps its buffers apart (its code does not
// change), one that does not keeps its rings instead of losing them to
// tile-plan-pipeline's degraded schedules. tile-plan-warp-specialize also
// asks for it (gemm::shareStorage) where a deeper ring pays: FlashAttention
// 128x128's third K / V stage fits once O_shared takes Q_shared's storage.
//
// Lifetimes are intervals over the kernel body's top-level ops: a buffer is
// live from the first top-level op that uses it (anywhere inside) to the
// last; a loop using it holds it for all its iterations. Candidates are the
// static shared buffers allocated at the top of the body, except the
// destinations of copies inside a T.Pipelined body (they may become rings,
// which in a warp-specialized or persistent kernel a producer fills while
// the consumers run other code) and buffers of kernels that synchronize by
// hand (T.ws, mbarriers, T.tma_copy: their program order is not their
// execution order). Correctness rests on tile-insert-barriers, which runs
// after this pass: it puts a block barrier before every shared-memory
// writer that follows any shared access, whatever the buffer, so the first
// writer of a group member waits for the last reader of the one before.
//
//===----------------------------------------------------------------------===//

#include "GemmLayouts.h"
#include "SIMTLayout.h"

#include "tilec/Passes/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-share-storage"

namespace tilec {
#define GEN_PASS_DEF_TILESHARESTORAGE
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

using gemm::isStaticShared;
using gemm::sharedBytes;

/// Whether `kernel` synchronizes shared memory by hand.
bool handSynchronized(tile::KernelOp kernel) {
  return kernel
      ->walk([](Operation *op) {
        return isa<tile::WsOp, tile::AllocBarrierOp, tile::MBarrierArriveOp,
                   tile::MBarrierWaitOp, tile::MBarrierExpectTxOp,
                   tile::TmaCopyOp, tile::CpAsyncOp, tile::CpAsyncArriveOp>(
                   op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The first and last top-level op index of `kernel`'s body that uses
/// `alloc`'s buffer, or nullopt if nothing does.
std::optional<std::pair<int64_t, int64_t>>
lifetime(tile::AllocOp alloc, Block &body,
         const DenseMap<Operation *, int64_t> &index) {
  std::optional<std::pair<int64_t, int64_t>> span;
  for (Operation *user : alloc->getUsers()) {
    Operation *top = body.findAncestorOpInBlock(*user);
    if (!top)
      continue;
    int64_t at = index.lookup(top);
    span = span ? std::make_pair(std::min(span->first, at),
                                 std::max(span->second, at))
                : std::make_pair(at, at);
  }
  return span;
}

struct TileShareStorage : tilec::impl::TileShareStorageBase<TileShareStorage> {
  using TileShareStorageBase::TileShareStorageBase;

  void runOnOperation() override {
    SmallVector<tile::KernelOp> kernels;
    getOperation()->walk([&](tile::KernelOp k) { kernels.push_back(k); });
    if (kernels.empty())
      return;
    const TargetInfo *target = tile::requireTarget(getOperation());
    if (!target)
      return signalPassFailure();
    for (tile::KernelOp kernel : kernels)
      gemm::shareStorage(kernel, int64_t(target->maxSharedMemoryPerBlock()),
                         /*evenIfFits=*/false);
  }
};

} // namespace

bool gemm::shareStorage(tile::KernelOp kernel, int64_t maxBytes,
                        bool evenIfFits) {
  if (handSynchronized(kernel))
    return false;
  // TileLang's TL_DISABLE_SHARED_MEMORY_REUSE, on the prim_func.
  for (Operation *p = kernel; p; p = p->getParentOp())
    if (p->hasAttr("tile.disable_shared_memory_reuse"))
      return false;
  // Ring candidates, at their loop's stage count.
  DenseMap<Operation *, int64_t> ringStages;
  kernel.walk([&](tile::PipelinedOp loop) {
    for (Operation &op : loop.getBody()->without_terminator())
      if (auto copy = dyn_cast<tile::CopyOp>(op))
        if (auto alloc = copy.getDst().getDefiningOp<tile::AllocOp>()) {
          int64_t &stages = ringStages[alloc];
          stages = std::max<int64_t>({stages, 1, int64_t(loop.getNumStages())});
        }
  });
  int64_t requested = gemm::sharedFootprint(kernel,
                                            [&](tile::AllocOp alloc) {
                                              return std::max<int64_t>(
                                                  1, ringStages.lookup(alloc));
                                            }) +
                      gemm::reductionScratchBytes(kernel);
  if (requested <= maxBytes && !evenIfFits)
    return false;

  Block &body = *kernel.getBody();
  DenseMap<Operation *, int64_t> index;
  for (auto [i, op] : llvm::enumerate(body))
    index[&op] = int64_t(i);
  struct Candidate {
    tile::AllocOp alloc;
    int64_t first, last;
  };
  SmallVector<Candidate> candidates;
  for (Operation &op : body) {
    auto alloc = dyn_cast<tile::AllocOp>(op);
    if (!alloc || !isStaticShared(alloc) || ringStages.count(alloc) ||
        alloc->hasAttr(gemm::kStorageGroupAttr))
      continue;
    // A view of the buffer has uses of its own, which the lifetime below
    // would not see.
    if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
          return llvm::any_of(user->getResultTypes(),
                              [](Type t) { return isa<MemRefType>(t); });
        }))
      continue;
    if (auto span = lifetime(alloc, body, index))
      candidates.push_back({alloc, span->first, span->second});
  }
  llvm::sort(candidates, [](const Candidate &a, const Candidate &b) {
    return a.first < b.first || (a.first == b.first && a.last < b.last);
  });
  // Greedy interval colouring: each buffer joins the largest group whose
  // members all died before it starts (the biggest saving), else opens
  // a group of its own.
  struct Group {
    SmallVector<tile::AllocOp> members;
    int64_t last = -1, bytes = 0;
  };
  SmallVector<Group> groups;
  for (const Candidate &c : candidates) {
    Group *best = nullptr;
    for (Group &g : groups)
      if (g.last < c.first && (!best || g.bytes > best->bytes))
        best = &g;
    if (!best) {
      groups.emplace_back();
      best = &groups.back();
    }
    best->members.push_back(c.alloc);
    best->last = c.last;
    best->bytes = std::max(best->bytes, sharedBytes(c.alloc));
  }
  OpBuilder b(kernel.getContext());
  int64_t id = 0;
  kernel.walk([&](tile::AllocOp alloc) {
    if (auto g = alloc->getAttrOfType<IntegerAttr>(gemm::kStorageGroupAttr))
      id = std::max(id, g.getInt() + 1);
  });
  bool grouped = false;
  for (Group &g : groups) {
    if (g.members.size() < 2)
      continue;
    for (tile::AllocOp alloc : g.members)
      alloc->setAttr(gemm::kStorageGroupAttr, b.getI64IntegerAttr(id));
    grouped = true;
    LLVM_DEBUG(llvm::dbgs()
               << "storage group " << id << ": " << g.members.size()
               << " buffers, " << g.bytes << " bytes\n");
    ++id;
  }
  return grouped;
}

int64_t gemm::sharedBytes(tile::AllocOp alloc) {
  auto type = cast<MemRefType>(alloc.getType());
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

bool gemm::isStaticShared(tile::AllocOp alloc) {
  auto type = cast<MemRefType>(alloc.getType());
  return tile::getMemorySpace(type) == tile::MemorySpace::shared &&
         type.hasStaticShape();
}

int64_t
gemm::sharedFootprint(tile::KernelOp kernel,
                      llvm::function_ref<int64_t(tile::AllocOp)> copiesOf) {
  int64_t total = 0;
  DenseMap<int64_t, int64_t> groups;
  kernel.walk([&](tile::AllocOp alloc) {
    if (!isStaticShared(alloc))
      return;
    int64_t bytes = sharedBytes(alloc) * copiesOf(alloc);
    if (auto group = alloc->getAttrOfType<IntegerAttr>(kStorageGroupAttr)) {
      int64_t &largest = groups[group.getInt()];
      largest = std::max(largest, bytes);
      return;
    }
    total += bytes;
  });
  for (auto [group, bytes] : groups)
    total += bytes;
  return total;
}
