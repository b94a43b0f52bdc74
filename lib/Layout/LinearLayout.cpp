//===- LinearLayout.cpp - Validated construction --------------------------===//
//
// Building LinearLayouts: from bases, from flat columns, the 1-D identity,
// strided and broadcast layouts, and from a function (checked linear).
// Evaluation and printing are in LinearLayoutEval.cpp, products and
// reshapes in LinearLayoutTransforms.cpp, the GF(2) algorithms (compose,
// inverses, rank) in LinearLayoutAlgebra.cpp.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LinearLayout.h"
#include "Checks.h"

#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace tilec {

Error makeLayoutError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

int log2Exact(int64_t v) { return int(Log2_64(uint64_t(v))); }

using namespace tilec::detail;

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

Expected<LinearLayout> LinearLayout::create(std::vector<InDim> ins,
                                            ArrayRef<NamedSize> outs) {
  if (Error err = checkSizes(outs, "output"))
    return std::move(err);
  std::vector<OutDim> outDims;
  for (const auto &[name, size] : outs)
    outDims.push_back({name, log2Exact(size)});
  return build(std::move(ins), std::move(outDims));
}

Expected<LinearLayout> LinearLayout::build(std::vector<InDim> ins,
                                           std::vector<OutDim> outs) {
  SmallVector<std::string> inNames, outNames;
  for (const InDim &in : ins)
    inNames.push_back(in.name);
  for (const OutDim &out : outs)
    outNames.push_back(out.name);
  if (Error err = checkUnique(inNames, "input"))
    return std::move(err);
  if (Error err = checkUnique(outNames, "output"))
    return std::move(err);

  int outBits = 0;
  for (const OutDim &out : outs) {
    if (out.log2Size < 0 || out.log2Size > kMaxDimBits)
      return makeLayoutError("output dimension `" + out.name +
                             "` has log2 size " + Twine(out.log2Size));
    outBits += out.log2Size;
  }
  int inBits = 0;
  for (const InDim &in : ins) {
    if (in.bases.size() > size_t(kMaxDimBits))
      return makeLayoutError("input dimension `" + in.name + "` has " +
                             Twine(in.bases.size()) + " bits");
    inBits += int(in.bases.size());
    for (auto [bit, basis] : llvm::enumerate(in.bases)) {
      if (basis.size() != outs.size())
        return makeLayoutError("basis " + Twine(bit) + " of `" + in.name +
                               "` has " + Twine(basis.size()) + " values for " +
                               Twine(outs.size()) + " output dimensions");
      for (auto [value, out] : llvm::zip(basis, outs))
        if (value < 0 || int64_t(value) >= (int64_t(1) << out.log2Size))
          return makeLayoutError("basis " + Twine(bit) + " of `" + in.name +
                                 "` is " + Twine(value) + " along `" +
                                 out.name + "` of size " +
                                 Twine(int64_t(1) << out.log2Size));
    }
  }
  if (inBits > kMaxBits || outBits > kMaxBits)
    return makeLayoutError("layout of " + Twine(inBits) + " input bits and " +
                           Twine(outBits) + " output bits exceeds " +
                           Twine(kMaxBits));
  LinearLayout layout;
  layout.inDims = std::move(ins);
  layout.outDims = std::move(outs);
  return layout;
}

Expected<LinearLayout>
LinearLayout::createInferred(std::vector<InDim> ins,
                             ArrayRef<std::string> outNames) {
  std::vector<OutDim> outs;
  for (auto [index, name] : llvm::enumerate(outNames)) {
    uint64_t all = 0;
    for (const InDim &in : ins)
      for (const Basis &basis : in.bases)
        if (index < basis.size() && basis[index] > 0)
          all |= uint64_t(basis[index]);
    outs.push_back({name, int32_t(64 - llvm::countl_zero(all))});
  }
  return build(std::move(ins), std::move(outs));
}

Expected<LinearLayout> LinearLayout::strided1D(int32_t size, int32_t stride,
                                               StringRef inDim,
                                               StringRef outDim) {
  if (!isPowerOfTwo(size) || !isPowerOfTwo(stride))
    return makeLayoutError("layout `" + inDim + "` -> `" + outDim +
                           "` of size " + Twine(size) + " and stride " +
                           Twine(stride) + ": not a power of two");
  InDim in{inDim.str(), {}};
  for (int bit = 0; bit < log2Exact(size); ++bit)
    in.bases.push_back({int32_t(int64_t(stride) << bit)});
  return build({std::move(in)},
               {{outDim.str(), log2Exact(size) + log2Exact(stride)}});
}

Expected<LinearLayout> LinearLayout::identity1D(int32_t size, StringRef inDim,
                                                StringRef outDim) {
  return strided1D(size, 1, inDim, outDim);
}

Expected<LinearLayout> LinearLayout::zeros1D(int32_t size, StringRef inDim,
                                             StringRef outDim,
                                             int32_t outSize) {
  if (!isPowerOfTwo(size) || !isPowerOfTwo(outSize))
    return makeLayoutError("broadcast layout `" + inDim + "` -> `" + outDim +
                           "` of sizes " + Twine(size) + " and " +
                           Twine(outSize) + ": not a power of two");
  InDim in{inDim.str(), std::vector<Basis>(log2Exact(size), Basis{0})};
  return build({std::move(in)}, {{outDim.str(), log2Exact(outSize)}});
}

Expected<LinearLayout> LinearLayout::fromFunction(
    ArrayRef<NamedSize> ins, ArrayRef<NamedSize> outs,
    function_ref<SmallVector<int32_t>(ArrayRef<int32_t>)> fn) {
  if (Error err = checkSizes(ins, "input"))
    return std::move(err);
  if (Error err = checkSizes(outs, "output"))
    return std::move(err);
  // Every input is checked, so keep the domain small enough to enumerate.
  constexpr int kMaxCheckedBits = 24;
  int inBits = 0;
  for (const auto &in : ins)
    inBits += log2Exact(in.second);
  if (inBits > kMaxCheckedBits)
    return makeLayoutError("fromFunction checks every input; 2^" +
                           Twine(inBits) + " inputs are too many");

  auto call = [&](ArrayRef<int32_t> point) -> Expected<SmallVector<int32_t>> {
    SmallVector<int32_t> out = fn(point);
    if (out.size() != outs.size())
      return makeLayoutError("function returned " + Twine(out.size()) +
                             " values for " + Twine(outs.size()) +
                             " output dimensions");
    return out;
  };

  std::vector<InDim> inDims;
  SmallVector<int32_t> point(ins.size(), 0);
  for (auto [index, in] : llvm::enumerate(ins)) {
    InDim dim{in.first, {}};
    for (int bit = 0; bit < log2Exact(in.second); ++bit) {
      point[index] = int32_t(1) << bit;
      Expected<SmallVector<int32_t>> out = call(point);
      if (!out)
        return out.takeError();
      dim.bases.push_back(Basis(out->begin(), out->end()));
      point[index] = 0;
    }
    inDims.push_back(std::move(dim));
  }
  std::vector<OutDim> outDims;
  for (const auto &out : outs)
    outDims.push_back({out.first, log2Exact(out.second)});
  Expected<LinearLayout> layout = build(std::move(inDims), std::move(outDims));
  if (!layout)
    return layout.takeError();

  // Linearity: the function must agree with the XOR of its bases everywhere.
  for (uint64_t flat = 0; flat < (uint64_t(1) << inBits); ++flat) {
    uint64_t rest = flat;
    for (auto [index, in] : llvm::enumerate(ins)) {
      point[index] = int32_t(rest & uint64_t(in.second - 1));
      rest >>= log2Exact(in.second);
    }
    Expected<SmallVector<int32_t>> expected = call(point);
    if (!expected)
      return expected.takeError();
    Expected<SmallVector<int32_t>> actual = layout->apply(point);
    if (!actual)
      return actual.takeError();
    if (*expected != *actual) {
      std::string where;
      raw_string_ostream os(where);
      for (auto [index, in] : llvm::enumerate(ins))
        os << (index ? ", " : "") << in.first << "=" << point[index];
      return makeLayoutError("function is not linear over GF(2) at (" +
                             Twine(where) + ")");
    }
  }
  return layout;
}

Expected<LinearLayout>
LinearLayout::fromFlatColumns(ArrayRef<NamedSize> ins, ArrayRef<NamedSize> outs,
                              ArrayRef<uint64_t> columns) {
  if (Error err = checkSizes(ins, "input"))
    return std::move(err);
  if (Error err = checkSizes(outs, "output"))
    return std::move(err);
  size_t inBits = 0;
  for (const auto &in : ins)
    inBits += size_t(log2Exact(in.second));
  if (inBits != columns.size())
    return makeLayoutError(Twine(columns.size()) + " columns for " +
                           Twine(inBits) + " input bits");
  std::vector<OutDim> outDims;
  for (const auto &out : outs)
    outDims.push_back({out.first, log2Exact(out.second)});
  std::vector<InDim> inDims;
  size_t column = 0;
  for (const auto &in : ins) {
    InDim dim{in.first, {}};
    for (int bit = 0; bit < log2Exact(in.second); ++bit, ++column) {
      uint64_t flat = columns[column];
      Basis basis;
      for (const OutDim &out : outDims) {
        basis.push_back(int32_t(flat & ((uint64_t(1) << out.log2Size) - 1)));
        flat >>= out.log2Size;
      }
      if (flat != 0)
        return makeLayoutError("column " + Twine(column) + " is " +
                               Twine(columns[column]) +
                               ", outside the output space");
      dim.bases.push_back(std::move(basis));
    }
    inDims.push_back(std::move(dim));
  }
  return build(std::move(inDims), std::move(outDims));
}

} // namespace tilec
