//===- RuntimeRegisters.cpp - Fragment indices known only at run time -----===//
//
// TileLang lowers a fragment to a per-thread local array, so an index
// computed at run time (FlashDecoding's combine reads `lse_local[k, j]`
// inside `for k in T.serial(num_split)`) is an array index. tilec's
// registers are an array too: where the registers an access reaches are
// evenly spaced along one run-time index, the access is register
// `base + stride * index`. The check enumerates every in-bounds value of
// that index (an out-of-bounds one is undefined in TileLang as well).
//
//===----------------------------------------------------------------------===//

#include "SIMTLayout.h"

#include "tilec/Layout/AffineLayout.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

namespace {
/// Whether `value` is computed from `roots` (through ops of any kind).
bool dependsOn(Value value, const DenseSet<Value> &roots) {
  SmallVector<Value> work{value};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (roots.contains(v))
      return true;
    if (Operation *def = v.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
  return false;
}
} // namespace

/// The loop's induction variables and those of the unrolled loops inside
/// it (resolveRegisters' `fixed` values cover them). A serial inner
/// loop's variable (a `tile.for serial`, or the `scf.for` it has become
/// by the time tile-lower-simt lowers the body; the unrolled ones are gone
/// by then) is a run-time value like one defined outside the loop:
/// mhc_post's `a_local[i_hci, i_hco]` in `for i_hci in T.serial(hc)`. The
/// lowering's clone of the body maps it to the cloned loop's variable.
static DenseSet<Value> loopVariables(Operation *loop) {
  DenseSet<Value> roots;
  loop->walk([&](Block *block) {
    Operation *owner = block->getParentOp();
    if (owner != loop) {
      if (isa<scf::ForOp>(owner))
        return;
      if (auto inner = dyn_cast<tile::ForOp>(owner))
        if (inner.getKind() == tile::LoopKind::serial)
          return;
    }
    for (BlockArgument arg : block->getArguments())
      roots.insert(arg);
  });
  return roots;
}

bool simt::isRuntimeIndex(Value index, Operation *loop) {
  DenseSet<Value> roots = loopVariables(loop);
  DenseMap<Value, int64_t> env;
  for (Value root : roots)
    env[root] = 0;
  return !evalIndex(index, env) && !dependsOn(index, roots);
}

/// The variable of a loop around `loopOp` (a `tile.for` or the `scf.for`
/// it has become) that the indices use along with the loop's own
/// variables, if there is exactly one such value and nothing else unknown;
/// with the values it takes (constant bounds).
static std::optional<std::pair<Value, SmallVector<int64_t>>>
offsetVariable(Operation *loopOp, ValueRange indices,
               const DenseMap<Value, int64_t> *fixed) {
  DenseSet<Value> roots = loopVariables(loopOp);
  Value free;
  SmallVector<Value> work(indices.begin(), indices.end());
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || roots.contains(v) ||
        (fixed && fixed->count(v)))
      continue;
    if (Operation *def = v.getDefiningOp()) {
      if (!matchPattern(v, m_Constant()))
        llvm::append_range(work, def->getOperands());
      continue;
    }
    if (free && free != v)
      return std::nullopt;
    free = v;
  }
  if (!free)
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(free);
  if (!arg)
    return std::nullopt;
  Operation *owner = arg.getOwner()->getParentOp();
  Value lb, ub, step;
  if (auto loop = dyn_cast<tile::ForOp>(owner)) {
    if (loop.getInductionVar() != free)
      return std::nullopt;
    lb = loop.getLb(), ub = loop.getUb(), step = loop.getStep();
  } else if (auto loop = dyn_cast<scf::ForOp>(owner)) {
    if (loop.getInductionVar() != free)
      return std::nullopt;
    lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  } else {
    return std::nullopt;
  }
  APInt l, u, st;
  if (!matchPattern(lb, m_ConstantInt(&l)) ||
      !matchPattern(ub, m_ConstantInt(&u)) ||
      !matchPattern(step, m_ConstantInt(&st)) || st.getSExtValue() <= 0)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (int64_t v = l.getSExtValue(); v < u.getSExtValue();
       v += st.getSExtValue()) {
    if (values.size() == 4096)
      return std::nullopt;
    values.push_back(v);
  }
  if (values.empty())
    return std::nullopt;
  return std::make_pair(free, std::move(values));
}

std::optional<ResolvedAccess>
simt::resolveOffsetAccess(const Layout &loop, Operation *loopOp,
                          ValueRange indices, const Layout &frag,
                          std::string &why,
                          const DenseMap<Value, int64_t> *fixed) {
  auto offset = offsetVariable(loopOp, indices, fixed);
  if (!offset)
    return std::nullopt;
  auto [variable, values] = *offset;
  ValueRange ivs = cast<tile::ParallelOp>(loopOp).getInductionVars();
  DenseMap<Value, int64_t> bound;
  if (fixed)
    bound = *fixed;
  SmallVector<SmallVector<int64_t>> byValue;
  for (int64_t v : values) {
    bound[variable] = v;
    std::optional<SmallVector<int64_t>> regs =
        resolveRegisters(loop, ivs, indices, frag, why, &bound);
    if (!regs) {
      why = "with the enclosing loop's variable at " + std::to_string(v) +
            ", " + why;
      return std::nullopt;
    }
    byValue.push_back(std::move(*regs));
  }
  // Register base + stride * variable, for every loop register.
  ResolvedAccess result;
  result.runtime = variable;
  if (values.size() > 1) {
    int64_t delta = byValue[1][0] - byValue[0][0];
    int64_t span = values[1] - values[0];
    if (delta % span != 0) {
      why = "the enclosing loop's variable does not select evenly spaced "
            "registers";
      return std::nullopt;
    }
    result.stride = delta / span;
  }
  for (int64_t b : byValue.front())
    result.base.push_back(b - result.stride * values.front());
  for (auto [i, regs] : llvm::enumerate(byValue))
    for (auto [r, reg] : llvm::enumerate(regs))
      if (reg != result.base[r] + result.stride * values[i]) {
        why = "the enclosing loop's variable does not select evenly spaced "
              "registers (at " +
              std::to_string(values[i]) + ", loop register " +
              std::to_string(r) + " is register " + std::to_string(reg) + ")";
        return std::nullopt;
      }
  return result;
}

std::optional<ResolvedAccess>
simt::resolveAccess(const Layout &loop, Operation *loopOp, ValueRange indices,
                    const Layout &frag, std::string &why,
                    const DenseMap<Value, int64_t> *fixed) {
  ValueRange ivs = cast<tile::ParallelOp>(loopOp).getInductionVars();
  // The one index that is not an expression of the loop's variables.
  int runtimeDim = -1;
  for (auto [d, index] : llvm::enumerate(indices)) {
    if (!isRuntimeIndex(index, loopOp))
      continue;
    if (runtimeDim >= 0) {
      why = "its indices #" + std::to_string(runtimeDim) + " and #" +
            std::to_string(d) +
            " are both run-time values (a fragment access may index one "
            "dimension at run time)";
      return std::nullopt;
    }
    runtimeDim = int(d);
  }
  ResolvedAccess result;
  if (runtimeDim < 0) {
    if (std::optional<ResolvedAccess> offset =
            resolveOffsetAccess(loop, loopOp, indices, frag, why, fixed))
      return offset;
    if (!why.empty())
      return std::nullopt;
    std::optional<SmallVector<int64_t>> regs =
        resolveRegisters(loop, ivs, indices, frag, why, fixed);
    if (!regs)
      return std::nullopt;
    result.base = std::move(*regs);
    return result;
  }
  Value runtime = indices[runtimeDim];
  if (!runtime.getType().isIntOrIndex()) {
    why = "its index #" + std::to_string(runtimeDim) + " is not an integer";
    return std::nullopt;
  }
  DenseMap<Value, int64_t> bound;
  if (fixed)
    bound = *fixed;
  SmallVector<SmallVector<int64_t>> byValue;
  for (int64_t v = 0; v < frag.shape()[runtimeDim]; ++v) {
    bound[runtime] = v;
    std::optional<SmallVector<int64_t>> regs =
        resolveRegisters(loop, ivs, indices, frag, why, &bound);
    if (!regs) {
      why = "at run-time index #" + std::to_string(runtimeDim) + " = " +
            std::to_string(v) + ", " + why;
      return std::nullopt;
    }
    byValue.push_back(std::move(*regs));
  }
  result.base = byValue.front();
  result.runtime = runtime;
  result.stride = byValue.size() > 1 ? byValue[1][0] - byValue[0][0] : 0;
  for (auto [v, regs] : llvm::enumerate(byValue))
    for (auto [r, reg] : llvm::enumerate(regs))
      if (reg != result.base[r] + int64_t(v) * result.stride) {
        why = "its run-time index #" + std::to_string(runtimeDim) +
              " does not select evenly spaced registers (value " +
              std::to_string(v) + " of loop register " + std::to_string(r) +
              " is register " + std::to_string(reg) +
              "); lay the fragment out with that dimension in registers";
        return std::nullopt;
      }
  return result;
}

std::optional<LinearLayout> simt::makeRowsInRegisters(ArrayRef<int64_t> shape,
                                                      int dim, int64_t vec,
                                                      int64_t threads,
                                                      int64_t warpSize,
                                                      std::string &error) {
  if (dim < 0 || dim >= int(shape.size()) || !isPowerOfTwo(shape[dim])) {
    error = "the run-time indexed dimension needs a power-of-two extent";
    return std::nullopt;
  }
  SmallVector<int64_t> rest;
  for (auto [d, extent] : llvm::enumerate(shape))
    if (int(d) != dim)
      rest.push_back(extent);
  if (rest.empty())
    rest.push_back(1);
  std::optional<LinearLayout> inner =
      makeBlocked(rest, vec, threads, warpSize, error);
  if (!inner)
    return std::nullopt;
  // The inner layout's bases, in tile order, with `dim` inserted as 0.
  auto widen = [&](const LinearLayout::Basis &basis) {
    SmallVector<int64_t> coord = simt::tileCoord(*inner, basis, rest.size());
    LinearLayout::Basis full;
    size_t r = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (int(d) == dim) {
        full.push_back(0);
        continue;
      }
      full.push_back(shape.size() == 1 ? 0 : int32_t(coord[r]));
      ++r;
    }
    return full;
  };
  std::vector<LinearLayout::InDim> ins;
  for (StringRef name : {kRegister, kLane, kWarp}) {
    LinearLayout::InDim in{name.str(), {}};
    for (const LinearLayout::InDim &old : inner->getInDims())
      if (old.name == name)
        for (const LinearLayout::Basis &basis : old.bases)
          in.bases.push_back(widen(basis));
    if (name == kRegister)
      for (int64_t bit = 1; bit < shape[dim]; bit <<= 1) {
        LinearLayout::Basis basis(shape.size(), 0);
        basis[dim] = int32_t(bit);
        in.bases.push_back(basis);
      }
    ins.push_back(std::move(in));
  }
  return simt::createTileLayout(std::move(ins), shape, error);
}
