//===- RowVectors.cpp - tile-lower-simt: vectors of strided iterations ----===//
//
// A strided T.Parallel step clones the body once for each of a thread's
// `vec` consecutive iterations along the last dimension. LLVM's load/store
// vectorizer is meant to merge the clones' accesses, but it splits 8 x 16-bit
// chains into 8-, 4- and 2-byte pieces or leaves them scalar. Here the
// clones of a load or store whose index moves with the last induction
// variable (that variable, plus terms that do not depend on it, in the last
// dimension; the other dimensions independent of it) become one vector
// access when its start is provably a multiple of `vec` elements
// (knownDivisor, static strides; global and shared buffers are 16-byte
// aligned): the loads at the first clone's place, the stores at the last
// one's. Iterations of a T.Parallel loop are independent, so moving an
// access across other iterations is allowed; within an iteration nothing
// moves across a write: only loads that precede every write of the body
// and stores that no other memory access follows are merged.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {

bool dependsOn(Value value, Value iv, Block *body) {
  SmallVector<Value> work{value};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == iv)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !body->getParentOp()->isAncestor(def) || !seen.insert(def).second)
      continue;
    def->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        work.push_back(operand);
    });
  }
  return false;
}

/// `value` is iv + (terms independent of iv).
bool stepsWith(Value value, Value iv, Block *body) {
  if (value == iv)
    return true;
  auto add = value.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  Value x = add.getLhs(), y = add.getRhs();
  return (stepsWith(x, iv, body) && !dependsOn(y, iv, body)) ||
         (stepsWith(y, iv, body) && !dependsOn(x, iv, body));
}

/// Whether the access of `buffer` at `indices` starts at a multiple of
/// `vec` elements.
bool alignedStart(Value buffer, ValueRange indices, int64_t vec) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if ((knownDivisor(indices[d]) * stride) % vec != 0)
      return false;
    stride *= shape[d];
  }
  return true;
}

/// Replaces the `vec` consecutive clones `copies` of one load (or store)
/// by one vector access when its start is aligned.
void merge(bool load, ArrayRef<Operation *> copies, int64_t vec) {
    if (llvm::any_of(copies, [&](Operation *c) {
        return c->getBlock() != copies[0]->getBlock();
      }))
    return;
  Value base = load ? cast<memref::LoadOp>(copies[0]).getMemRef()
                    : cast<memref::StoreOp>(copies[0]).getMemRef();
  SmallVector<Value> start(
      load ? cast<memref::LoadOp>(copies[0]).getIndices()
           : cast<memref::StoreOp>(copies[0]).getIndices());
  if (!alignedStart(base, start, vec))
    return;
  Type elem = cast<MemRefType>(base.getType()).getElementType();
  auto vecType = VectorType::get({vec}, elem);
  llvm::MaybeAlign align(vec * std::max<int64_t>(
                                   1, elem.getIntOrFloatBitWidth() / 8));
  Location loc = copies[0]->getLoc();
  if (load) {
    OpBuilder b(copies[0]);
    Value loaded =
        vector::LoadOp::create(b, loc, vecType, base, start, false, align);
    SmallVector<Value> elements;
    for (int64_t v = 0; v < vec; ++v)
      elements.push_back(vector::ExtractOp::create(b, loc, loaded, v));
    for (auto [copy, element] : llvm::zip(copies, elements)) {
      copy->getResult(0).replaceAllUsesWith(element);
      copy->erase();
    }
    return;
  }
  OpBuilder b(copies.back());
  SmallVector<Value> values;
  for (Operation *copy : copies)
    values.push_back(cast<memref::StoreOp>(copy).getValueToStore());
  Value packed = vector::FromElementsOp::create(b, loc, vecType, values);
  vector::StoreOp::create(b, loc, packed, base, start, false, align);
  for (Operation *copy : copies)
    copy->erase();
}

} // namespace

void simt::formRowVectors(ArrayRef<Operation *> body, Block *parallelBody,
                          Value lastIv, ArrayRef<IRMapping> clones) {
  int64_t n = clones.size();
  if (n < 2 || !llvm::isPowerOf2_64(n))
    return;
  // Positions of the first write and of the last access other than a
  // store, in the body's order.
  size_t firstWrite = body.size(), lastNonStore = 0;
  for (auto [i, op] : llvm::enumerate(body)) {
    bool isLoad = isa<memref::LoadOp>(op), isStore = isa<memref::StoreOp>(op);
    if (!isMemoryEffectFree(op) && !isLoad && firstWrite == body.size())
      firstWrite = i;
    if (!isMemoryEffectFree(op) && !isStore)
      lastNonStore = i + 1;
  }
  for (auto [i, op] : llvm::enumerate(body)) {
    auto load = dyn_cast<memref::LoadOp>(op);
    auto store = dyn_cast<memref::StoreOp>(op);
    if ((!load || i > firstWrite) && (!store || i < lastNonStore))
      continue;
    Value buffer = load ? load.getMemRef() : store.getMemRef();
    ValueRange indices = load ? load.getIndices() : store.getIndices();
    if (indices.empty() || isSpace(buffer, tile::MemorySpace::local) ||
        isSpace(buffer, tile::MemorySpace::fragment) ||
        !stepsWith(indices.back(), lastIv, parallelBody) ||
        llvm::any_of(indices.drop_back(), [&](Value index) {
          return dependsOn(index, lastIv, parallelBody);
        }))
      continue;
    Type elem = cast<MemRefType>(buffer.getType()).getElementType();
    if (!elem.isIntOrFloat())
      continue;
    int64_t bytes = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
    int64_t vec = std::min<int64_t>(n, std::max<int64_t>(1, 16 / bytes));
    if (vec < 2)
      continue;
    for (int64_t k = 0; k < n; k += vec) {
      SmallVector<Operation *> copies;
      for (const IRMapping &m : clones.slice(k, vec))
        copies.push_back(m.lookupOrNull(op));
      if (llvm::is_contained(copies, nullptr))
        continue;
      merge(load != nullptr, copies, vec);
    }
  }
}

