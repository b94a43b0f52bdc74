//===- Fill.h - Element types, seeded random data, comparisons --*- C++ -*-===//
//
// tilec-bench fills every tensor on the host before copying it to the GPU.
// The generator is a fixed algorithm (SplitMix64, Box-Muller), not the C++
// library's distributions, so a seed gives the same bytes on every machine
// and compiler: two configurations of a tuning run see the same inputs, and
// a saved output can be checked on another day. 16-bit floats round to
// nearest even, as the GPU's conversions do.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_BENCH_FILL_H
#define TILEC_BENCH_FILL_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::bench {

enum class DType {
  F16, BF16, F32, F64, F8E4M3, F8E5M2, Bool, I8, I16, I32, I64, U8, U16, U32, U64
};

/// The metadata's spelling ("float16", "bfloat16", "int32", ...) or nullopt.
std::optional<DType> parseDType(const std::string &name);
const char *dtypeName(DType t);
size_t dtypeBytes(DType t);
bool isFloat(DType t);

/// TileLang's TensorSupplyType, as far as a C++ runner can follow it.
enum class Distribution { Auto, Normal, Uniform, Integer, Zero, One };
std::optional<Distribution> parseDistribution(const std::string &name);
const char *distributionName(Distribution d);

/// IEEE half / bfloat16 / fp8 conversions (round to nearest even; fp8
/// e4m3fn saturates to +-448, e5m2 keeps infinities).
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBFloat16(float f);
float bfloat16ToFloat(uint16_t b);
uint8_t floatToF8E4M3(float f);
float f8E4M3ToFloat(uint8_t b);
uint8_t floatToF8E5M2(float f);
float f8E5M2ToFloat(uint8_t b);

/// Element `i` of `bytes` (of type `t`) as a double.
double loadElement(const uint8_t *bytes, DType t, size_t i);
/// Stores `v` (converted, rounded, saturated for integers) at element `i`.
void storeElement(uint8_t *bytes, DType t, size_t i, double v);

/// SplitMix64: small, fast, and the same everywhere.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal (Box-Muller; the second value of each pair is kept).
  double normal();

private:
  uint64_t state;
  bool haveSpare = false;
  double spare = 0;
};

/// `count` elements of `t` drawn from `d` with `seed` (in chunks of 2^20
/// elements, chunk c from the stream of seed ^ f(c)): Normal N(0, 1),
/// Uniform U[-1, 1), Integer uniform in {-2, ..., 2} (bool: 0 or 1), Zero,
/// One; Auto is Normal for floats and Integer for integers.
std::vector<uint8_t> randomTensor(DType t, size_t count, Distribution d,
                                  uint64_t seed);

/// torch.allclose-style comparison of `got` against `want`: an element
/// mismatches when |got - want| > atol + rtol * |want| (NaN matches only
/// NaN).
struct Comparison {
  size_t elements = 0;
  size_t mismatches = 0;
  double maxAbsError = 0;
  double maxRelError = 0;
  size_t firstMismatch = 0; ///< valid when mismatches > 0
  double firstGot = 0, firstWant = 0;
  /// mismatches <= maxMismatchRatio * elements.
  bool ok(double maxMismatchRatio) const {
    return double(mismatches) <= maxMismatchRatio * double(elements);
  }
};
Comparison compareTensors(const uint8_t *got, const uint8_t *want, DType t,
                          size_t count, double rtol, double atol);

} // namespace tilec::bench

#endif // TILEC_BENCH_FILL_H
