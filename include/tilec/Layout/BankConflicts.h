//===- BankConflicts.h - Shared-memory wavefront counting -------*- C++ -*-===//
//
// Shared memory has 32 banks of 4 bytes. One warp instruction is served in
// phases: all 32 lanes at once for accesses of up to 4 bytes, half-warps
// for 8-byte accesses, quarter-warps (8 lanes) for 16-byte accesses and for
// each 8x8 matrix of ldmatrix/stmatrix (lanes 8i..8i+7 address matrix i).
// Within a phase, lanes touching the same 4-byte word share it
// (broadcast); distinct words in one bank are served one per wavefront, so
// a phase costs as many wavefronts as the most distinct words any bank
// holds. Conflicts = wavefronts beyond one per active phase.
//
// Passes use this to choose and check shared layouts; the tests use it to
// prove the chosen swizzles conflict-free and row-major not.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_BANKCONFLICTS_H
#define TILEC_LAYOUT_BANKCONFLICTS_H

#include "tilec/Layout/SharedLayout.h"

#include <optional>

namespace tilec {

constexpr int64_t kNumBanks = 32;
constexpr int64_t kBankBytes = 4;

/// The bank of a byte address.
inline int64_t bankOf(int64_t byteAddress) {
  return (byteAddress / kBankBytes) % kNumBanks;
}

struct BankReport {
  /// Wavefronts the instruction takes.
  int64_t wavefronts = 0;
  /// The least it could take: one per phase with an active lane.
  int64_t ideal = 0;
  int64_t conflicts() const { return wavefronts - ideal; }
};

/// One warp instruction in which lane i accesses `accessBytes` (1, 2, 4, 8
/// or 16) bytes at laneByteAddresses[i] (nullopt: lane inactive). At most
/// 32 lanes; addresses must be non-negative and aligned to the width.
llvm::Expected<BankReport>
countWavefronts(llvm::ArrayRef<std::optional<int64_t>> laneByteAddresses,
                int64_t accessBytes);

/// The same where lane i accesses the accessBytes / elemBytes elements that
/// start at tile coordinate laneCoords[i] of `layout` and run along the
/// last dimension; fails if they are not contiguous and aligned in memory
/// under that layout (the vector would not be one access).
llvm::Expected<BankReport>
countWavefronts(const SharedLayout &layout,
                llvm::ArrayRef<llvm::SmallVector<int64_t, 2>> laneCoords,
                int64_t accessBytes);

} // namespace tilec

#endif // TILEC_LAYOUT_BANKCONFLICTS_H
