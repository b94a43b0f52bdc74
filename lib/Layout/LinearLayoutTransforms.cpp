//===- LinearLayoutTransforms.cpp - Products, reshapes, transposes --------===//
//
// Rearranging a LinearLayout without GF(2) reasoning: products (tiling),
// reshapes of the flattened in/out spaces, dimension reorders and
// restriction to some dimensions.
//
//===----------------------------------------------------------------------===//

#include "Checks.h"
#include "tilec/Layout/LinearLayout.h"

using namespace llvm;
using namespace tilec::detail;

namespace tilec {

//===----------------------------------------------------------------------===//
// Products, reshapes, transposes, restriction
//===----------------------------------------------------------------------===//

Expected<LinearLayout> operator*(const LinearLayout &lhs,
                                 const LinearLayout &rhs) {
  using OutDim = LinearLayout::OutDim;
  using InDim = LinearLayout::InDim;
  using Basis = LinearLayout::Basis;
  // Output dims: lhs's, then rhs's new ones; a shared one has rhs above lhs.
  std::vector<OutDim> outs(lhs.getOutDims().begin(), lhs.getOutDims().end());
  for (const OutDim &out : rhs.getOutDims()) {
    if (lhs.hasOutDim(out.name))
      outs[lhs.outIndex(out.name)].log2Size += out.log2Size;
    else
      outs.push_back(out);
  }
  auto widen = [&](const LinearLayout &from, const Basis &basis, bool shift) {
    Basis wide(outs.size(), 0);
    for (auto [value, out] : llvm::zip(basis, from.getOutDims())) {
      int index = 0;
      while (outs[index].name != out.name)
        ++index;
      int lhsBits = shift ? lhs.getOutDimSizeLog2(out.name) : 0;
      wide[index] = int32_t(int64_t(value) << lhsBits);
    }
    return wide;
  };
  std::vector<InDim> ins;
  for (const InDim &in : lhs.getInDims()) {
    InDim dim{in.name, {}};
    for (const Basis &basis : in.bases)
      dim.bases.push_back(widen(lhs, basis, false));
    ins.push_back(std::move(dim));
  }
  for (const InDim &in : rhs.getInDims()) {
    int index = lhs.inIndex(in.name);
    if (index < 0) {
      ins.push_back({in.name, {}});
      index = int(ins.size()) - 1;
    }
    for (const Basis &basis : in.bases)
      ins[index].bases.push_back(widen(rhs, basis, true));
  }
  return LinearLayout::build(std::move(ins), std::move(outs));
}

Expected<LinearLayout> product(ArrayRef<LinearLayout> factors) {
  LinearLayout result;
  for (const LinearLayout &factor : factors) {
    Expected<LinearLayout> next = result * factor;
    if (!next)
      return next.takeError();
    result = std::move(*next);
  }
  return result;
}

Expected<LinearLayout>
LinearLayout::reshapeIns(ArrayRef<NamedSize> newIns) const {
  if (Error err = checkSizes(newIns, "input"))
    return std::move(err);
  std::vector<Basis> all;
  for (const InDim &in : inDims)
    all.insert(all.end(), in.bases.begin(), in.bases.end());
  size_t bits = 0;
  for (const auto &in : newIns)
    bits += size_t(log2Exact(in.second));
  if (bits != all.size())
    return makeLayoutError("reshapeIns to 2^" + Twine(bits) +
                           " inputs from 2^" + Twine(all.size()));
  std::vector<InDim> ins;
  size_t next = 0;
  for (const auto &in : newIns) {
    InDim dim{in.first, {}};
    for (int bit = 0; bit < log2Exact(in.second); ++bit)
      dim.bases.push_back(all[next++]);
    ins.push_back(std::move(dim));
  }
  return build(std::move(ins), outDims);
}

Expected<LinearLayout>
LinearLayout::reshapeOuts(ArrayRef<NamedSize> newOuts) const {
  if (Error err = checkSizes(newOuts, "output"))
    return std::move(err);
  int bits = 0;
  for (const auto &out : newOuts)
    bits += log2Exact(out.second);
  if (bits != getTotalOutBits())
    return makeLayoutError("reshapeOuts to 2^" + Twine(bits) +
                           " outputs from 2^" + Twine(getTotalOutBits()));
  return fromFlatColumns(inSizes(), newOuts, getFlatColumns());
}

Expected<LinearLayout>
LinearLayout::transposeIns(ArrayRef<std::string> order) const {
  if (Error err = checkUnique(order, "input"))
    return std::move(err);
  if (order.size() != inDims.size())
    return makeLayoutError("transposeIns needs all " + Twine(inDims.size()) +
                           " input dimensions, got " + Twine(order.size()));
  std::vector<InDim> ins;
  for (const std::string &name : order) {
    int index = inIndex(name);
    if (index < 0)
      return makeLayoutError("no input dimension `" + name + "`");
    ins.push_back(inDims[index]);
  }
  return build(std::move(ins), outDims);
}

Expected<LinearLayout>
LinearLayout::transposeOuts(ArrayRef<std::string> order) const {
  if (Error err = checkUnique(order, "output"))
    return std::move(err);
  if (order.size() != outDims.size())
    return makeLayoutError("transposeOuts needs all " + Twine(outDims.size()) +
                           " output dimensions, got " + Twine(order.size()));
  SmallVector<int> perm;
  for (const std::string &name : order) {
    int index = outIndex(name);
    if (index < 0)
      return makeLayoutError("no output dimension `" + name + "`");
    perm.push_back(index);
  }
  std::vector<OutDim> outs;
  for (int index : perm)
    outs.push_back(outDims[index]);
  std::vector<InDim> ins;
  for (const InDim &in : inDims) {
    InDim dim{in.name, {}};
    for (const Basis &basis : in.bases) {
      Basis permuted;
      for (int index : perm)
        permuted.push_back(basis[index]);
      dim.bases.push_back(std::move(permuted));
    }
    ins.push_back(std::move(dim));
  }
  return build(std::move(ins), std::move(outs));
}

Expected<LinearLayout>
LinearLayout::sublayout(ArrayRef<std::string> inNames,
                        ArrayRef<std::string> outNames) const {
  if (Error err = checkUnique(inNames, "input"))
    return std::move(err);
  if (Error err = checkUnique(outNames, "output"))
    return std::move(err);
  for (const std::string &name : inNames)
    if (!hasInDim(name))
      return makeLayoutError("no input dimension `" + name + "`");
  for (const std::string &name : outNames)
    if (!hasOutDim(name))
      return makeLayoutError("no output dimension `" + name + "`");
  auto isKept = [](ArrayRef<std::string> names, StringRef name) {
    return llvm::is_contained(names, name);
  };
  std::vector<OutDim> outs;
  SmallVector<int> kept;
  for (auto [index, out] : llvm::enumerate(outDims)) {
    if (!isKept(outNames, out.name))
      continue;
    outs.push_back(out);
    kept.push_back(int(index));
  }
  std::vector<InDim> ins;
  for (const InDim &in : inDims) {
    if (!isKept(inNames, in.name))
      continue;
    InDim dim{in.name, {}};
    for (const Basis &basis : in.bases) {
      Basis projected;
      for (int index : kept)
        projected.push_back(basis[index]);
      dim.bases.push_back(std::move(projected));
    }
    ins.push_back(std::move(dim));
  }
  return build(std::move(ins), std::move(outs));
}

} // namespace tilec
