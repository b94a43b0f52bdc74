//===- WarpPlacement.cpp - Warp counts that are not powers of two --------===//
//
// A LinearLayout's warp input is a power of two, so a block of 12 warps is
// laid out as 16. That is correct only if the 4 phantom warps (which do
// not exist) own nothing but the padding past the tile: the tile's
// extent along the dimension with the odd count is rounded up to a power
// of two (PaddedLayout.h), and the phantom warps must own exactly the
// rounded-up part. Placing that dimension's warps in the high warp bits,
// each over a contiguous run of extent / count (3 warps of 64 rows of a
// 192-row tile, padded to 4 x 64 = 256), does that: warp 3 owns rows
// 192..255. It is also how wgmma warpgroups own their rows (group g rows
// 64 g .. 64 g + 63, LowerGemmWgmma.cpp). TileLang places such warps the
// same way for wgmma, and with its 16-row interleave for mma.sync, which
// is not linear over 3 warps; tilec's mma.sync lowering reads the
// placement from here, so the interleave is not needed.
//
//===----------------------------------------------------------------------===//

#include "WarpPlacement.h"

#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace tilec {

int64_t WarpPlacement::paddedWarps() const {
  return int64_t(PowerOf2Ceil(uint64_t(warpsM)) *
                 PowerOf2Ceil(uint64_t(warpsN)));
}

std::pair<int64_t, int64_t> WarpPlacement::coords(int64_t warp) const {
  if (mMinor)
    return {warp % warpsM, warp / warpsM};
  return {warp / warpsN, warp % warpsN};
}

std::pair<int64_t, int64_t> WarpPlacement::origin(int64_t warp) const {
  auto [wm, wn] = coords(warp);
  return {wm * strideM, wn * strideN};
}

Expected<WarpPlacement> placeWarps(int64_t atomM, int64_t atomN,
                                   int64_t blockM, int64_t blockN,
                                   WarpPartition warps, bool ownM, bool ownN) {
  if (warps.warpsM < 1 || warps.warpsN < 1)
    return makeLayoutError("warp partition " + Twine(warps.warpsM) + "x" +
                           Twine(warps.warpsN) + " has no warps");
  bool powM = isPowerOfTwo(warps.warpsM), powN = isPowerOfTwo(warps.warpsN);
  if (!powM && !powN)
    return makeLayoutError(
        "warp partition " + Twine(warps.warpsM) + "x" + Twine(warps.warpsN) +
        " cannot be laid out: only one of its counts may be other than a "
        "power of two");
  WarpPlacement placement;
  placement.warpsM = warps.warpsM;
  placement.warpsN = warps.warpsN;
  // The count that is not a power of two takes the high warp bits, so the
  // phantom warps are the last ones.
  placement.mMinor = powM;
  auto stride = [](int dim, int64_t count, int64_t atom, int64_t extent,
                   bool own) -> Expected<int64_t> {
    if (!own)
      return 0;
    if (isPowerOfTwo(count))
      return atom;
    int64_t run = extent / count;
    if (extent % count || run % atom || !isPowerOfTwo(run / atom))
      return makeLayoutError(
          "tile dimension " + Twine(dim) + " of " + Twine(extent) +
          " cannot be split over " + Twine(count) +
          " warps: each warp's part must be a power-of-two number of " +
          Twine(atom) + "-wide fragments");
    return run;
  };
  Expected<int64_t> sm = stride(0, warps.warpsM, atomM, blockM, ownM);
  if (!sm)
    return sm.takeError();
  Expected<int64_t> sn = stride(1, warps.warpsN, atomN, blockN, ownN);
  if (!sn)
    return sn.takeError();
  placement.strideM = *sm;
  placement.strideN = *sn;
  return placement;
}

namespace detail {

Expected<LinearLayout> tileOverPlacedWarps(const LinearLayout &atom,
                                           int64_t blockM, int64_t blockN,
                                           const WarpPlacement &placement,
                                           bool ownM, bool ownN) {
  int64_t atoms[2] = {atom.getOutDimSize("dim0"), atom.getOutDimSize("dim1")};
  int64_t extents[2] = {blockM, blockN};
  int64_t counts[2] = {placement.warpsM, placement.warpsN};
  bool own[2] = {ownM, ownN};
  int64_t padded[2];
  // Per dimension: the warps' bases and the register repeats' bases.
  std::vector<LinearLayout::Basis> warpBases[2], repeatBases[2];
  for (int d = 0; d < 2; ++d) {
    auto along = [&](int64_t v) {
      LinearLayout::Basis basis{0, 0};
      basis[d] = int32_t(v);
      return basis;
    };
    padded[d] = int64_t(PowerOf2Ceil(uint64_t(extents[d])));
    int64_t warpBits = Log2_64_Ceil(uint64_t(counts[d]));
    // The odd count's warps each own a contiguous run (placeWarps checked
    // it is a power-of-two number of atoms, so the phantom warps own the
    // padding); a power-of-two count's warps sit an atom apart and the
    // repeats go around all of them; warps that hold copies have zero
    // bases and the repeats cover the extent.
    if (!isPowerOfTwo(counts[d]) && own[d]) {
      int64_t run = extents[d] / counts[d];
      for (int bit = 0; bit < warpBits; ++bit)
        warpBases[d].push_back(along(run << bit));
      for (int64_t v = atoms[d]; v < run; v *= 2)
        repeatBases[d].push_back(along(v));
      continue;
    }
    int64_t span = atoms[d] * (own[d] ? counts[d] : 1);
    if (extents[d] % span)
      return makeLayoutError("tile dimension " + Twine(d) + " of " +
                             Twine(extents[d]) + " is not a multiple of " +
                             Twine(span));
    for (int bit = 0; bit < warpBits; ++bit)
      warpBases[d].push_back(along(own[d] ? atoms[d] << bit : 0));
    for (int64_t v = span; v < padded[d]; v *= 2)
      repeatBases[d].push_back(along(v));
  }

  LinearLayout::InDim reg{"register", {}}, lane{"lane", {}}, warp{"warp", {}};
  for (const LinearLayout::InDim &in : atom.getInDims()) {
    LinearLayout::InDim *to = in.name == "register" ? &reg
                              : in.name == "lane"   ? &lane
                              : in.name == "warp"   ? &warp
                                                    : nullptr;
    if (!to)
      return makeLayoutError("unexpected fragment input `" + in.name + "`");
    to->bases.insert(to->bases.end(), in.bases.begin(), in.bases.end());
  }
  // Repeats along N, then M, as tileOverBlock orders them.
  for (int d : {1, 0})
    reg.bases.insert(reg.bases.end(), repeatBases[d].begin(),
                     repeatBases[d].end());
  int warpOrder[2] = {placement.mMinor ? 0 : 1, placement.mMinor ? 1 : 0};
  for (int d : warpOrder)
    warp.bases.insert(warp.bases.end(), warpBases[d].begin(),
                      warpBases[d].end());
  return LinearLayout::create(
      {std::move(reg), std::move(lane), std::move(warp)},
      {{"dim0", int32_t(padded[0])}, {"dim1", int32_t(padded[1])}});
}

} // namespace detail
} // namespace tilec
