//===- GF2.h - Row reduction over GF(2) (private to TilecLayout) -*- C++
//-*-===//
//
// Column vectors over GF(2) packed into 64-bit words, reduced into an XOR
// basis that remembers, for each basis vector, which input columns it is
// the sum of. That single structure answers rank, independence and "which
// inputs produce this output" for every algorithm in LinearLayout.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_LAYOUT_GF2_H
#define TILEC_LIB_LAYOUT_GF2_H

#include <array>
#include <cstdint>
#include <optional>

namespace tilec::gf2 {

class XorBasis {
public:
  /// Adds a column whose value is `value` and whose identity in the
  /// combination space is `tag` (usually 1 << columnIndex). Returns true if
  /// the column is independent of the ones inserted before; a dependent
  /// column is not kept, so earlier columns win as pivots.
  bool insert(uint64_t value, uint64_t tag) {
    uint64_t combo = tag;
    for (int bit = 63; bit >= 0; --bit) {
      if (!((value >> bit) & 1))
        continue;
      if ((present >> bit) & 1) {
        value ^= vectors[bit];
        combo ^= combos[bit];
        continue;
      }
      vectors[bit] = value;
      combos[bit] = combo;
      present |= uint64_t(1) << bit;
      ++numVectors;
      return true;
    }
    return false;
  }

  /// The XOR of the tags of kept columns whose values XOR to `target`, or
  /// nullopt if `target` is outside their span.
  std::optional<uint64_t> solve(uint64_t target) const {
    uint64_t combo = 0;
    for (int bit = 63; bit >= 0; --bit) {
      if (!((target >> bit) & 1))
        continue;
      if (!((present >> bit) & 1))
        return std::nullopt;
      target ^= vectors[bit];
      combo ^= combos[bit];
    }
    return combo;
  }

  int rank() const { return numVectors; }

private:
  std::array<uint64_t, 64> vectors{};
  std::array<uint64_t, 64> combos{};
  uint64_t present = 0;
  int numVectors = 0;
};

} // namespace tilec::gf2

#endif // TILEC_LIB_LAYOUT_GF2_H
