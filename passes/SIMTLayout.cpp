//===- SIMTLayout.cpp - Fragment and loop layouts as the passes use them --===//
//
// Reading the recorded #tile.fragment, lookup tables, projections, the index
// evaluator and the per-iteration ownership check. Everything is enumerated
// exactly: layouts are small (at most a few thousand registers x 1024
// threads), and enumeration gives the precise counterexample an error
// message needs.
//
//===----------------------------------------------------------------------===//

#include "SIMTLayout.h"

#include "tilec/Layout/AffineLayout.h"
#include "tilec/Layout/BlockedLayout.h"
#include "tilec/Layout/PaddedLayout.h"

#include "tilec/Dialect/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::simt;

//===----------------------------------------------------------------------===//
// The recorded attribute
//===----------------------------------------------------------------------===//

std::optional<LinearLayout> simt::layoutFromAttr(tile::FragmentAttr attr,
                                                 ArrayRef<int64_t> shape,
                                                 std::string &error) {
  if (!attr) {
    error = "no #tile.fragment layout";
    return std::nullopt;
  }
  llvm::Expected<LinearLayout> layout = attr.getLinearLayout(shape);
  if (!layout) {
    error = llvm::toString(layout.takeError());
    return std::nullopt;
  }
  return *layout;
}

//===----------------------------------------------------------------------===//
// Layout tables
//===----------------------------------------------------------------------===//

std::optional<Layout> Layout::get(const LinearLayout &linear,
                                  ArrayRef<int64_t> shape, std::string &error,
                                  int64_t threads) {
  Layout result;
  result.lin = linear;
  result.tileShape.assign(shape.begin(), shape.end());
  result.flatShape = paddedShape(shape);
  size_t rank = shape.size();
  for (int64_t extent : shape)
    if (extent < 1) {
      error = "fragment layouts need positive extents, got " +
              std::to_string(extent);
      return std::nullopt;
    }
  // Position of each tile dimension among the layout's outputs.
  SmallVector<int> outPos(rank, -1);
  for (auto [pos, out] : llvm::enumerate(linear.getOutDims())) {
    int found = -1;
    for (size_t d = 0; d < rank; ++d)
      if (out.name == tensorDimName(d))
        found = int(d);
    if (found < 0 || (int64_t(1) << out.log2Size) != result.flatShape[found]) {
      error = "layout output `" + out.name + "` of size " +
              std::to_string(int64_t(1) << out.log2Size) +
              " does not match a tile of shape " + formatCoord(shape);
      return std::nullopt;
    }
    outPos[found] = int(pos);
  }
  for (const LinearLayout::InDim &in : linear.getInDims())
    if (in.name != kRegister && in.name != kLane && in.name != kWarp) {
      error = "unexpected layout input `" + in.name + "`";
      return std::nullopt;
    }

  auto coordOf = [&](const LinearLayout::Basis &basis) {
    SmallVector<int64_t> coord(rank, 0);
    for (size_t d = 0; d < rank; ++d)
      if (outPos[d] >= 0)
        coord[d] = basis[outPos[d]];
    return coord;
  };
  auto basesOf = [&](StringRef name) {
    SmallVector<SmallVector<int64_t>> coords;
    for (const LinearLayout::InDim &in : linear.getInDims())
      if (in.name == name)
        for (const LinearLayout::Basis &basis : in.bases)
          coords.push_back(coordOf(basis));
    return coords;
  };
  SmallVector<SmallVector<int64_t>> regBases = basesOf(kRegister);
  SmallVector<SmallVector<int64_t>> laneBases = basesOf(kLane);
  SmallVector<SmallVector<int64_t>> warpBases = basesOf(kWarp);
  if (regBases.size() > 12 || laneBases.size() + warpBases.size() > 10) {
    error = "layout with 2^" + std::to_string(regBases.size()) +
            " registers and 2^" +
            std::to_string(laneBases.size() + warpBases.size()) +
            " threads is too large";
    return std::nullopt;
  }
  result.lanes = int64_t(1) << laneBases.size();
  result.warps = int64_t(1) << warpBases.size();
  int64_t span = result.lanes * result.warps;
  // Phantom threads only where the real ones are more than half the span
  // (else the layout is simply over another thread count).
  bool phantoms = threads > span / 2 && threads < span;
  result.threadBasisCoords = laneBases;
  result.threadBasisCoords.append(warpBases);

  result.regMasks.assign(rank, 0);
  result.threadMasks.assign(rank, 0);
  for (const auto &basis : regBases)
    for (size_t d = 0; d < rank; ++d)
      result.regMasks[d] |= basis[d];
  for (const auto &basis : result.threadBasisCoords)
    for (size_t d = 0; d < rank; ++d)
      result.threadMasks[d] |= basis[d];

  auto table = [&](ArrayRef<SmallVector<int64_t>> bases) {
    std::vector<uint64_t> flats(size_t(1) << bases.size(), 0);
    SmallVector<uint64_t> basisFlats;
    for (const auto &basis : bases)
      basisFlats.push_back(result.flatten(basis));
    for (size_t i = 1; i < flats.size(); ++i) {
      int bit = llvm::countr_zero(i);
      flats[i] = flats[i & (i - 1)] ^ basisFlats[bit];
    }
    return flats;
  };
  result.regFlats = table(regBases);
  result.threadFlats = table(result.threadBasisCoords);
  if (result.flatShape != result.tileShape || phantoms) {
    // Registers past a non-power-of-two extent hold nothing: keep the
    // others, in order (the same ones on every real thread, checked).
    llvm::Expected<std::vector<int32_t>> kept =
        registersWithin(linear, shape, phantoms ? threads : 0);
    if (!kept) {
      error = llvm::toString(kept.takeError());
      return std::nullopt;
    }
    std::vector<uint64_t> flats;
    for (int32_t r : *kept)
      flats.push_back(result.regFlats[r]);
    result.regFlats = std::move(flats);
  }
  result.threads = phantoms ? threads : span;
  result.warps = (result.threads + result.lanes - 1) / result.lanes;
  for (auto [r, flat] : llvm::enumerate(result.regFlats))
    result.regOfFlat.try_emplace(flat, int64_t(r));
  return result;
}

bool Layout::isInside(uint64_t e) const {
  SmallVector<int64_t> coord = unflatten(e);
  for (auto [c, extent] : llvm::zip(coord, tileShape))
    if (c >= extent)
      return false;
  return true;
}

int64_t Layout::numElements() const {
  int64_t n = 1;
  for (int64_t extent : tileShape)
    n *= extent;
  return n;
}

uint64_t Layout::flatten(ArrayRef<int64_t> coord) const {
  uint64_t flat = 0;
  for (auto [extent, c] : llvm::zip(flatShape, coord))
    flat = flat * uint64_t(extent) + uint64_t(c);
  return flat;
}

SmallVector<int64_t> Layout::unflatten(uint64_t flat) const {
  SmallVector<int64_t> coord(tileShape.size());
  for (size_t d = tileShape.size(); d-- > 0;) {
    coord[d] = int64_t(flat % uint64_t(flatShape[d]));
    flat /= uint64_t(flatShape[d]);
  }
  return coord;
}

int64_t Layout::findRegister(int64_t t, uint64_t e) const {
  auto it = regOfFlat.find(e ^ threadFlats[t]);
  return it == regOfFlat.end() ? -1 : it->second;
}

int64_t Layout::replicaThreadMask() const {
  int64_t mask = 0;
  for (auto [bit, basis] : llvm::enumerate(threadBasisCoords))
    if (llvm::all_of(basis, [](int64_t c) { return c == 0; }))
      mask |= int64_t(1) << bit;
  return mask;
}

bool Layout::isReplicatedInOrder() const {
  if (numRegisters() != numElements())
    return false;
  for (int64_t t = 0; t < numThreads(); ++t)
    if (threadFlats[t] != 0)
      return false;
  for (int64_t r = 0; r < numRegisters(); ++r)
    if (regFlats[r] != uint64_t(r))
      return false;
  return true;
}

int64_t Layout::contiguousRegisters() const {
  int64_t inner = tileShape.empty() ? 1 : tileShape.back();
  int64_t count = 1;
  while (count * 2 <= numRegisters() && count * 2 <= inner) {
    bool ok = true;
    for (int64_t r = count; r < count * 2 && ok; ++r)
      ok = regFlats[r] == uint64_t(r);
    if (!ok)
      break;
    count *= 2;
  }
  return count;
}

//===----------------------------------------------------------------------===//
// Construction helpers
//===----------------------------------------------------------------------===//

std::optional<LinearLayout>
simt::createTileLayout(std::vector<LinearLayout::InDim> ins,
                       ArrayRef<int64_t> shape, std::string &error) {
  SmallVector<LinearLayout::NamedSize> outs;
  for (auto [d, extent] : llvm::enumerate(shape))
    outs.push_back({tensorDimName(d), int32_t(extent)});
  llvm::Expected<LinearLayout> result =
      LinearLayout::create(std::move(ins), outs);
  if (!result) {
    error = llvm::toString(result.takeError());
    return std::nullopt;
  }
  return std::move(*result);
}

SmallVector<int64_t> simt::tileCoord(const LinearLayout &linear,
                                     const LinearLayout::Basis &basis,
                                     size_t rank) {
  SmallVector<int64_t> coord(rank, 0);
  for (auto [pos, out] : llvm::enumerate(linear.getOutDims()))
    for (size_t d = 0; d < rank; ++d)
      if (out.name == tensorDimName(d))
        coord[d] = basis[pos];
  return coord;
}

std::optional<LinearLayout> simt::makeBlocked(ArrayRef<int64_t> shape,
                                              int64_t vec, int64_t threads,
                                              int64_t warpSize,
                                              std::string &error) {
  // A thread count that is not a power of two is laid out over the next
  // one; Layout::get then checks that the phantom threads hold only
  // copies of what real threads hold (a tile smaller than the threads),
  // and names an element they alone would hold otherwise.
  llvm::Expected<LinearLayout> layout = blockedLayout(
      shape, vec, int64_t(llvm::PowerOf2Ceil(uint64_t(threads))), warpSize);
  if (!layout) {
    error = llvm::toString(layout.takeError());
    return std::nullopt;
  }
  return *layout;
}

std::optional<LinearLayout> simt::makeReplicated(ArrayRef<int64_t> shape,
                                                int64_t threads,
                                                int64_t warpSize,
                                                std::string &error) {
  for (int64_t extent : shape)
    if (extent < 1) {
      error = "fragment layouts need positive extents, got " +
              std::to_string(extent);
      return std::nullopt;
    }
  // An extent that is not a power of two is padded to one: the registers
  // past it hold nothing on any thread and Layout::get drops them.
  SmallVector<int64_t> padded = paddedShape(shape);
  // Every thread holds everything, so phantom threads past a count that
  // is not a power of two hold copies only.
  threads = int64_t(llvm::PowerOf2Ceil(uint64_t(std::max<int64_t>(threads, 1))));
  // Register bit i is flat bit i: the last dimension's bits first.
  LinearLayout::InDim reg{kRegister.str(), {}};
  for (size_t d = shape.size(); d-- > 0;)
    for (int64_t bit = 1; bit < padded[d]; bit <<= 1) {
      LinearLayout::Basis basis(shape.size(), 0);
      basis[d] = int32_t(bit);
      reg.bases.push_back(basis);
    }
  int64_t lanes = std::min(threads, warpSize);
  auto zeros = [&](StringRef name, int64_t size) {
    LinearLayout::InDim in{name.str(), {}};
    for (int64_t n = 1; n < size; n <<= 1)
      in.bases.push_back(LinearLayout::Basis(shape.size(), 0));
    return in;
  };
  return createTileLayout(
      {std::move(reg), zeros(kLane, lanes), zeros(kWarp, threads / lanes)},
      padded, error);
}

std::optional<LinearLayout> simt::reshapeDims(const LinearLayout &linear,
                                              ArrayRef<int64_t> from,
                                              ArrayRef<int64_t> to,
                                              std::string &error) {
  int64_t fromCount = 1, toCount = 1;
  for (int64_t extent : from)
    fromCount *= extent;
  for (int64_t extent : to)
    toCount *= extent;
  if (fromCount != toCount ||
      !llvm::all_of(llvm::concat<const int64_t>(from, to),
                    [](int64_t e) { return e > 0 && llvm::isPowerOf2_64(uint64_t(e)); })) {
    error = "a reshape of " + formatCoord(from) + " to " + formatCoord(to) +
            " is linear over the coordinate bits only between power-of-two "
            "extents of one element count";
    return std::nullopt;
  }
  // With power-of-two extents the row-major flat index is the
  // concatenation of the coordinates' bits, so each input bit's image in
  // the new shape is its image's flat index split the new way, and XORs
  // of images stay XORs.
  auto remap = [&](const LinearLayout::Basis &basis) {
    SmallVector<int64_t> coord = tileCoord(linear, basis, from.size());
    uint64_t flat = 0;
    for (auto [extent, c] : llvm::zip(from, coord))
      flat = flat * uint64_t(extent) + uint64_t(c);
    LinearLayout::Basis result(to.size(), 0);
    for (size_t d = to.size(); d-- > 0;) {
      result[d] = int32_t(flat % uint64_t(to[d]));
      flat /= uint64_t(to[d]);
    }
    return result;
  };
  std::vector<LinearLayout::InDim> ins;
  for (const LinearLayout::InDim &in : linear.getInDims()) {
    LinearLayout::InDim out{in.name, {}};
    for (const LinearLayout::Basis &basis : in.bases)
      out.bases.push_back(remap(basis));
    ins.push_back(std::move(out));
  }
  return createTileLayout(std::move(ins), to, error);
}

std::optional<LinearLayout> simt::selectDims(const Layout &layout,
                                             ArrayRef<int> dims,
                                             ArrayRef<int64_t> newShape,
                                             std::string &error) {
  auto project = [&](const LinearLayout::Basis &basis) {
    SmallVector<int64_t> coord =
        tileCoord(layout.linear(), basis, layout.rank());
    LinearLayout::Basis result;
    for (int d : dims)
      result.push_back(d < 0 ? 0 : int32_t(coord[d]));
    return result;
  };
  SmallVector<int64_t> padded = paddedShape(newShape);
  auto flatOf = [&](const LinearLayout::Basis &basis) {
    uint64_t flat = 0;
    for (auto [extent, c] : llvm::zip(padded, basis))
      flat = flat * uint64_t(extent) + uint64_t(c);
    return flat;
  };
  std::vector<LinearLayout::InDim> ins;
  for (StringRef name : {kRegister, kLane, kWarp}) {
    LinearLayout::InDim in{name.str(), {}};
    // An XOR basis of the kept register images: a register bit whose image
    // is already spanned would only duplicate elements.
    SmallVector<uint64_t> span;
    for (const LinearLayout::InDim &old : layout.linear().getInDims()) {
      if (old.name != name)
        continue;
      for (const LinearLayout::Basis &basis : old.bases) {
        LinearLayout::Basis projected = project(basis);
        if (name == kRegister) {
          uint64_t v = flatOf(projected);
          for (uint64_t b : span)
            v = std::min(v, v ^ b);
          if (v == 0)
            continue;
          span.push_back(v);
          llvm::sort(span, std::greater<uint64_t>());
        }
        in.bases.push_back(projected);
      }
    }
    ins.push_back(std::move(in));
  }
  return createTileLayout(std::move(ins), padded, error);
}

//===----------------------------------------------------------------------===//
// Index evaluation and the ownership check
//===----------------------------------------------------------------------===//

static std::optional<int64_t> evalOp(Operation *op, ArrayRef<int64_t> v) {
  auto div = [](int64_t a, int64_t b) -> std::optional<int64_t> {
    if (b == 0)
      return std::nullopt;
    return a / b;
  };
  auto floorDiv = [](int64_t a, int64_t b) -> std::optional<int64_t> {
    if (b == 0)
      return std::nullopt;
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  };
  auto ceilDiv = [](int64_t a, int64_t b) -> std::optional<int64_t> {
    if (b == 0)
      return std::nullopt;
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
  };
  auto rem = [](int64_t a, int64_t b) -> std::optional<int64_t> {
    if (b == 0)
      return std::nullopt;
    return a % b;
  };
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case([&](arith::AddIOp) { return v[0] + v[1]; })
      .Case([&](arith::SubIOp) { return v[0] - v[1]; })
      .Case([&](arith::MulIOp) { return v[0] * v[1]; })
      .Case([&](arith::DivSIOp) { return div(v[0], v[1]); })
      .Case([&](arith::DivUIOp) { return div(v[0], v[1]); })
      .Case([&](arith::FloorDivSIOp) { return floorDiv(v[0], v[1]); })
      .Case([&](arith::CeilDivSIOp) { return ceilDiv(v[0], v[1]); })
      .Case([&](arith::CeilDivUIOp) { return ceilDiv(v[0], v[1]); })
      .Case([&](arith::RemSIOp) { return rem(v[0], v[1]); })
      .Case([&](arith::RemUIOp) { return rem(v[0], v[1]); })
      .Case([&](arith::AndIOp) { return v[0] & v[1]; })
      .Case([&](arith::OrIOp) { return v[0] | v[1]; })
      .Case([&](arith::XOrIOp) { return v[0] ^ v[1]; })
      .Case([&](arith::ShLIOp) { return v[0] << v[1]; })
      .Case([&](arith::ShRSIOp) { return v[0] >> v[1]; })
      .Case([&](arith::ShRUIOp) { return int64_t(uint64_t(v[0]) >> v[1]); })
      .Case([&](arith::MinSIOp) { return std::min(v[0], v[1]); })
      .Case([&](arith::MaxSIOp) { return std::max(v[0], v[1]); })
      .Case([&](arith::SelectOp) { return v[0] ? v[1] : v[2]; })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>([&](Operation *) { return v[0]; })
      .Case([&](arith::CmpIOp cmp) -> std::optional<int64_t> {
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq:
          return v[0] == v[1];
        case arith::CmpIPredicate::ne:
          return v[0] != v[1];
        case arith::CmpIPredicate::slt:
        case arith::CmpIPredicate::ult:
          return v[0] < v[1];
        case arith::CmpIPredicate::sle:
        case arith::CmpIPredicate::ule:
          return v[0] <= v[1];
        case arith::CmpIPredicate::sgt:
        case arith::CmpIPredicate::ugt:
          return v[0] > v[1];
        case arith::CmpIPredicate::sge:
        case arith::CmpIPredicate::uge:
          return v[0] >= v[1];
        }
        return std::nullopt;
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<int64_t> simt::evalIndex(Value value,
                                       DenseMap<Value, int64_t> &env) {
  auto it = env.find(value);
  if (it != env.end())
    return it->second;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    int64_t c = constant.getBitWidth() == 1 ? int64_t(constant.getZExtValue())
                                            : constant.getSExtValue();
    env[value] = c;
    return c;
  }
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumResults() != 1 || op->getNumRegions() != 0)
    return std::nullopt;
  SmallVector<int64_t> operands;
  for (Value operand : op->getOperands()) {
    std::optional<int64_t> v = evalIndex(operand, env);
    if (!v)
      return std::nullopt;
    operands.push_back(*v);
  }
  std::optional<int64_t> result = evalOp(op, operands);
  if (result)
    env[value] = *result;
  return result;
}

std::string simt::formatCoord(ArrayRef<int64_t> coord) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(coord, os);
  os << "]";
  return s;
}

std::optional<SmallVector<int64_t>>
simt::resolveRegisters(const Layout &loop, ValueRange ivs, ValueRange indices,
                       const Layout &frag, std::string &why,
                       const DenseMap<Value, int64_t> *fixed) {
  if (loop.numThreads() != frag.numThreads()) {
    why = "the loop is laid out over " + std::to_string(loop.numThreads()) +
          " threads but the buffer over " + std::to_string(frag.numThreads());
    return std::nullopt;
  }
  // Same layout, indexed by the induction variables in order: register r
  // of the loop is register r of the buffer.
  if (loop == frag && indices.size() == ivs.size() && llvm::equal(indices, ivs))
    return llvm::to_vector(llvm::seq<int64_t>(0, loop.numRegisters()));

  SmallVector<int64_t> result;
  DenseMap<Value, int64_t> env;
  SmallVector<int64_t> coord(indices.size());
  for (int64_t r = 0; r < loop.numRegisters(); ++r) {
    int64_t chosen = -1;
    for (int64_t t = 0; t < loop.numThreads(); ++t) {
      SmallVector<int64_t> point = loop.unflatten(loop.elementAt(r, t));
      env.clear();
      if (fixed)
        env = *fixed;
      for (auto [iv, c] : llvm::zip(ivs, point))
        env[iv] = c;
      for (auto [d, index] : llvm::enumerate(indices)) {
        std::optional<int64_t> v = evalIndex(index, env);
        if (!v) {
          why = "its index #" + std::to_string(d) +
                " depends on a value other than the loop variables and "
                "constants (a fragment index may use the variables of "
                "inner T.unroll loops, not of serial ones)";
          return std::nullopt;
        }
        coord[d] = *v;
        if (*v < 0 || *v >= frag.shape()[d]) {
          why = "iteration " + formatCoord(point) +
                " indexes it out of its "
                "shape " +
                formatCoord(frag.shape()) + " (index #" + std::to_string(d) +
                " is " + std::to_string(*v) + ")";
          return std::nullopt;
        }
      }
      int64_t k = frag.findRegister(t, frag.flatten(coord));
      if (k < 0) {
        why = "thread " + std::to_string(t) + " runs iteration " +
              formatCoord(point) + " but does not hold element " +
              formatCoord(coord);
        return std::nullopt;
      }
      if (chosen >= 0 && k != chosen) {
        why = "element " + formatCoord(coord) + " of iteration " +
              formatCoord(point) +
              " sits in a different register on different threads";
        return std::nullopt;
      }
      chosen = k;
    }
    result.push_back(chosen);
  }
  return result;
}

std::optional<SmallVector<int64_t>> simt::resolveProjection(const Layout &src,
                                                            ArrayRef<int> dims,
                                                            const Layout &dst,
                                                            std::string &why) {
  if (src.numThreads() != dst.numThreads()) {
    why = "the source is laid out over " + std::to_string(src.numThreads()) +
          " threads but the destination over " +
          std::to_string(dst.numThreads());
    return std::nullopt;
  }
  SmallVector<int64_t> result;
  SmallVector<int64_t> coord(dims.size());
  for (int64_t r = 0; r < src.numRegisters(); ++r) {
    int64_t chosen = -1;
    for (int64_t t = 0; t < src.numThreads(); ++t) {
      SmallVector<int64_t> from = src.unflatten(src.elementAt(r, t));
      for (auto [d, s] : llvm::enumerate(dims))
        coord[d] = s < 0 ? 0 : from[s];
      int64_t k = dst.findRegister(t, dst.flatten(coord));
      if (k < 0) {
        why = "thread " + std::to_string(t) + " holds source element " +
              formatCoord(from) + " but not destination element " +
              formatCoord(coord);
        return std::nullopt;
      }
      if (chosen >= 0 && k != chosen) {
        why = "destination element " + formatCoord(coord) +
              " sits in a different register on different threads";
        return std::nullopt;
      }
      chosen = k;
    }
    result.push_back(chosen);
  }
  return result;
}

std::optional<int64_t> simt::kernelThreads(Operation *kernel) {
  if (auto k = dyn_cast<tile::KernelOp>(kernel))
    return k.getThreads();
  // A warp-specialized kernel's layouts span its consumers (threads 0 ..
  // consumers - 1); the producer warpgroup after them only issues loads.
  if (auto roles = kernel->getAttrOfType<tile::WarpSpecializeAttr>(
          tile::WarpSpecializeAttr::getAttrName()))
    return roles.getConsumers();
  if (auto threads = kernel->getAttrOfType<IntegerAttr>("tile.threads"))
    return threads.getInt();
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
    if (std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize()) {
      int64_t n = 1;
      for (int32_t extent : *block)
        n *= extent;
      return n;
    }
  return std::nullopt;
}

Operation *simt::fragmentAlloc(Value value) {
  // A fragment's view is a fragment of its own shape to every pass that
  // lays out or lowers accesses (its layout follows the fragment's).
  if (auto view = value.getDefiningOp<tile::ReshapeOp>())
    return view.getOperation();
  auto alloc = value.getDefiningOp<tile::AllocOp>();
  if (!alloc)
    return nullptr;
  std::optional<tile::MemorySpace> space =
      tile::getMemorySpace(cast<MemRefType>(alloc.getType()));
  return space == tile::MemorySpace::fragment ? alloc.getOperation() : nullptr;
}

std::string simt::formatLoc(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().strref() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  return "?";
}
