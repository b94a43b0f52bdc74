//===- MmaLayoutsNarrow.cpp - mma.sync fragments of 8- and 32-bit types ---===//
//
// The tf32 (m16n8k8) and 8-bit (m16n8k32) operand fragments, written down
// as bases read off the PTX ISA formulas (MmaLayouts.h; the unit tests
// check them against the formulas), and the reading of a b16 ldmatrix
// fragment as elements of another width: ldmatrix moves 16-byte rows in
// 16-bit halves, so on K-contiguous data a lane's 32-bit word holds the
// same bytes whatever the element type; only what counts as one element
// changes.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/MmaLayouts.h"

using namespace llvm;

namespace tilec {

namespace {
using InDim = LinearLayout::InDim;
using Basis = LinearLayout::Basis;

LinearLayout fixed(std::vector<InDim> ins, int32_t rows, int32_t cols) {
  return cantFail(
      LinearLayout::create(std::move(ins), {{"dim0", rows}, {"dim1", cols}}));
}

/// groupID (lane >> 2) along `groupDim` (+1, +2, +4), threadID_in_group
/// (lane & 3) along the other one in steps of `tigStep`.
InDim lanes(int groupDim, int32_t tigStep) {
  auto along = [](int dim, int32_t v) -> Basis {
    return dim == 0 ? Basis{v, 0} : Basis{0, v};
  };
  int tigDim = 1 - groupDim;
  return {"lane",
          {along(tigDim, tigStep), along(tigDim, 2 * tigStep),
           along(groupDim, 1), along(groupDim, 2), along(groupDim, 4)}};
}
} // namespace

LinearLayout mmaM16N8K8Tf32OperandA() {
  return fixed({{"register", {{8, 0}, {0, 4}}}, lanes(0, 1)}, 16, 8);
}

LinearLayout mmaM16N8K8Tf32OperandB() {
  return fixed({{"register", {{4, 0}}}, lanes(1, 1)}, 8, 8);
}

LinearLayout mmaM16N8K32B8OperandA() {
  return fixed({{"register", {{0, 1}, {0, 2}, {8, 0}, {0, 16}}}, lanes(0, 4)},
               16, 32);
}

LinearLayout mmaM16N8K32B8OperandB() {
  return fixed({{"register", {{1, 0}, {2, 0}, {16, 0}}}, lanes(1, 4)}, 32, 8);
}

Expected<MmaSyncOperands> mmaSyncOperands(int elemBits) {
  switch (elemBits) {
  case 8:
    return MmaSyncOperands{32, mmaM16N8K32B8OperandA(),
                           mmaM16N8K32B8OperandB()};
  case 16:
    return MmaSyncOperands{16, mmaM16N8K16OperandA(), mmaM16N8K16OperandB()};
  case 32:
    return MmaSyncOperands{8, mmaM16N8K8Tf32OperandA(),
                           mmaM16N8K8Tf32OperandB()};
  default:
    return makeLayoutError("mma.sync has no fragments for " + Twine(elemBits) +
                           "-bit operands here (8, 16 or 32)");
  }
}

Expected<LinearLayout> ldmatrixAsElements(const LdmatrixPlan &plan, int kDim,
                                          int elemBits) {
  const LinearLayout &fragment = plan.fragment;
  if (kDim != 0 && kDim != 1)
    return makeLayoutError("K dimension must be 0 or 1, got " + Twine(kDim));
  if (elemBits == 16)
    return fragment;
  if (elemBits != 8 && elemBits != 32)
    return makeLayoutError("ldmatrix fragments read as " + Twine(elemBits) +
                           "-bit elements: only 8, 16 or 32");
  if (plan.trans)
    return makeLayoutError("ldmatrix.trans moves 16-bit halves across rows: "
                           "its words do not hold whole " +
                           Twine(elemBits) + "-bit elements of one row");
  ArrayRef<LinearLayout::InDim> ins = fragment.getInDims();
  if (fragment.getNumOutDims() != 2 || ins.size() != 2 ||
      ins[0].name != "register" || ins[1].name != "lane" ||
      ins[0].bases.empty())
    return makeLayoutError("expected an ldmatrix (register, lane) -> (dim0, "
                           "dim1) fragment");
  // Register bit 0 is the half within a 32-bit word: one b16 step along K.
  Basis half(2, 0);
  half[kDim] = 1;
  if (ins[0].bases[0] != half)
    return makeLayoutError("register bit 0 of the ldmatrix fragment is not "
                           "the next 16-bit half along K");
  auto rescale = [&](Basis v) -> Expected<Basis> {
    if (elemBits == 8) {
      v[kDim] *= 2;
    } else {
      if (v[kDim] % 2)
        return makeLayoutError("a word boundary falls inside a 32-bit "
                               "element");
      v[kDim] /= 2;
    }
    return v;
  };
  std::vector<InDim> out;
  for (const InDim &in : ins) {
    InDim next{in.name, {}};
    size_t first = 0;
    if (in.name == "register") {
      if (elemBits == 8) {
        // Bytes 0..3 of a word: K + 1, K + 2 (the old half bit, doubled).
        Basis one(2, 0);
        one[kDim] = 1;
        next.bases.push_back(one);
      } else {
        first = 1; // a 32-bit element is the whole word
      }
    }
    for (size_t i = first; i < in.bases.size(); ++i) {
      Expected<Basis> v = rescale(in.bases[i]);
      if (!v)
        return v.takeError();
      next.bases.push_back(*v);
    }
    out.push_back(std::move(next));
  }
  SmallVector<LinearLayout::NamedSize, 2> outs;
  for (const LinearLayout::OutDim &dim : fragment.getOutDims()) {
    int32_t size = int32_t(1) << dim.log2Size;
    bool isK = &dim == &fragment.getOutDims()[kDim];
    outs.push_back(
        {dim.name, isK ? (elemBits == 8 ? size * 2 : size / 2) : size});
  }
  return LinearLayout::create(std::move(out), outs);
}

} // namespace tilec
