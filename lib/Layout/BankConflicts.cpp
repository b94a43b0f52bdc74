//===- BankConflicts.cpp - Shared-memory wavefront counting --------------===//
//
// The phase model described in BankConflicts.h, plus the bridge from tile
// coordinates through a SharedLayout to byte addresses.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/BankConflicts.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <array>

using namespace llvm;

namespace tilec {

Expected<BankReport>
countWavefronts(ArrayRef<std::optional<int64_t>> laneByteAddresses,
                int64_t accessBytes) {
  if (!isPowerOfTwo(accessBytes) || accessBytes > 16)
    return makeLayoutError("access width " + Twine(accessBytes) +
                           " bytes is not 1, 2, 4, 8 or 16");
  if (laneByteAddresses.size() > 32)
    return makeLayoutError("a warp has 32 lanes, got " +
                           Twine(laneByteAddresses.size()) + " addresses");
  for (auto [lane, address] : llvm::enumerate(laneByteAddresses))
    if (address && (*address < 0 || *address % accessBytes != 0))
      return makeLayoutError("lane " + Twine(lane) + " address " +
                             Twine(*address) + " is not a valid " +
                             Twine(accessBytes) + "-byte access");

  // Lanes served together: 128 bytes' worth of accesses.
  size_t lanesPerPhase = size_t(128 / std::max<int64_t>(accessBytes, 4));
  int64_t wordsPerAccess = std::max<int64_t>(accessBytes / kBankBytes, 1);
  BankReport report;
  for (size_t first = 0; first < laneByteAddresses.size();
       first += lanesPerPhase) {
    DenseSet<int64_t> words;
    ArrayRef<std::optional<int64_t>> phase = laneByteAddresses.slice(
        first, std::min(lanesPerPhase, laneByteAddresses.size() - first));
    for (const std::optional<int64_t> &address : phase)
      if (address)
        for (int64_t w = 0; w < wordsPerAccess; ++w)
          words.insert(*address / kBankBytes + w);
    if (words.empty())
      continue;
    std::array<int64_t, kNumBanks> perBank{};
    for (int64_t word : words)
      ++perBank[word % kNumBanks];
    report.wavefronts += *std::max_element(perBank.begin(), perBank.end());
    report.ideal += 1;
  }
  return report;
}

Expected<BankReport>
countWavefronts(const SharedLayout &layout,
                ArrayRef<SmallVector<int64_t, 2>> laneCoords,
                int64_t accessBytes) {
  int64_t elemBytes = layout.getElemBytes();
  if (accessBytes % elemBytes != 0)
    return makeLayoutError(Twine(accessBytes) + "-byte accesses of " +
                           Twine(elemBytes) + "-byte elements");
  int64_t elems = accessBytes / elemBytes;
  SmallVector<std::optional<int64_t>> addresses;
  for (const SmallVector<int64_t, 2> &coord : laneCoords) {
    Expected<int64_t> first = layout.offset(coord);
    if (!first)
      return first.takeError();
    // The vector must stay one contiguous run under the layout.
    SmallVector<int64_t, 2> next(coord);
    for (int64_t e = 1; e < elems; ++e) {
      ++next.back();
      Expected<int64_t> offset = layout.offset(next);
      if (!offset)
        return offset.takeError();
      if (*offset != *first + e)
        return makeLayoutError("a " + Twine(accessBytes) +
                               "-byte access is not contiguous in " +
                               layout.toString());
    }
    addresses.push_back(*first * elemBytes);
  }
  return countWavefronts(addresses, accessBytes);
}

} // namespace tilec
