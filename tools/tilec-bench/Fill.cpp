//===- Fill.cpp - Element types, seeded random data, comparisons ----------===//

#include "Fill.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace tilec::bench {

namespace {
struct DTypeInfo {
  DType type;
  const char *name;
  size_t bytes;
};
const DTypeInfo kDTypes[] = {
    {DType::F16, "float16", 2},     {DType::BF16, "bfloat16", 2},
    {DType::F32, "float32", 4},     {DType::F64, "float64", 8},
    {DType::F8E4M3, "float8_e4m3", 1}, {DType::F8E5M2, "float8_e5m2", 1},
    {DType::Bool, "bool", 1},       {DType::I8, "int8", 1},
    {DType::I16, "int16", 2},       {DType::I32, "int32", 4},
    {DType::I64, "int64", 8},       {DType::U8, "uint8", 1},
    {DType::U16, "uint16", 2},      {DType::U32, "uint32", 4},
    {DType::U64, "uint64", 8}};

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// A small float format with `expBits` exponent and `manBits` mantissa
/// bits: value of its bit pattern (no infinities when `finiteOnly`, where
/// the all-ones pattern is NaN: e4m3fn).
float decodeSmall(uint32_t bits, int expBits, int manBits, bool finiteOnly) {
  uint32_t sign = bits >> (expBits + manBits);
  uint32_t exp = (bits >> manBits) & ((1u << expBits) - 1);
  uint32_t man = bits & ((1u << manBits) - 1);
  int bias = (1 << (expBits - 1)) - 1;
  float v;
  if (exp == 0)
    v = std::ldexp(float(man), 1 - bias - manBits);
  else if (!finiteOnly && exp == (1u << expBits) - 1)
    v = man ? std::numeric_limits<float>::quiet_NaN()
            : std::numeric_limits<float>::infinity();
  else if (finiteOnly && exp == (1u << expBits) - 1 && man == (1u << manBits) - 1)
    v = std::numeric_limits<float>::quiet_NaN();
  else
    v = std::ldexp(float(man | (1u << manBits)), int(exp) - bias - manBits);
  return sign ? -v : v;
}

/// The nearest (ties to even) pattern of the small format, by search over
/// its 2^(1+e+m) values: exact and simple, and fp8 has only 256.
uint32_t encodeSmall(float f, int expBits, int manBits, bool finiteOnly) {
  uint32_t count = 1u << (expBits + manBits);
  uint32_t sign = std::signbit(f) ? count : 0;
  if (std::isnan(f))
    return finiteOnly ? (count - 1) | sign : (count - 1) | sign;
  float a = std::fabs(f);
  if (!finiteOnly) {
    // IEEE overflow: from the largest finite value plus half an ulp on,
    // the nearest representable value is infinity.
    uint32_t maxBits = ((1u << expBits) - 2) << manBits | ((1u << manBits) - 1);
    float maxFinite = decodeSmall(maxBits, expBits, manBits, false);
    float halfUlp = std::ldexp(1.0f, int((1u << expBits) - 2) -
                                         ((1 << (expBits - 1)) - 1) - manBits - 1);
    if (a >= maxFinite + halfUlp)
      return sign | (((1u << expBits) - 1) << manBits);
  }
  uint32_t best = 0;
  float bestErr = std::numeric_limits<float>::infinity();
  for (uint32_t b = 0; b < count; ++b) {
    float v = decodeSmall(b, expBits, manBits, finiteOnly);
    if (std::isnan(v))
      continue;
    float err = std::fabs(v - a);
    if (std::isinf(a) && std::isinf(v))
      err = 0;
    if (err < bestErr || (err == bestErr && (b & 1) == 0)) {
      best = b;
      bestErr = err;
    }
  }
  return best | sign;
}
} // namespace

std::optional<DType> parseDType(const std::string &name) {
  for (const DTypeInfo &i : kDTypes)
    if (name == i.name)
      return i.type;
  if (name == "half")
    return DType::F16;
  if (name == "float")
    return DType::F32;
  return std::nullopt;
}

const char *dtypeName(DType t) {
  for (const DTypeInfo &i : kDTypes)
    if (i.type == t)
      return i.name;
  return "?";
}

size_t dtypeBytes(DType t) {
  for (const DTypeInfo &i : kDTypes)
    if (i.type == t)
      return i.bytes;
  return 0;
}

bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64 || t == DType::F8E4M3 || t == DType::F8E5M2;
}

std::optional<Distribution> parseDistribution(const std::string &name) {
  if (name == "auto")
    return Distribution::Auto;
  if (name == "normal" || name == "randn")
    return Distribution::Normal;
  if (name == "uniform")
    return Distribution::Uniform;
  if (name == "integer")
    return Distribution::Integer;
  if (name == "zero")
    return Distribution::Zero;
  if (name == "one")
    return Distribution::One;
  return std::nullopt;
}

const char *distributionName(Distribution d) {
  switch (d) {
  case Distribution::Auto: return "auto";
  case Distribution::Normal: return "normal";
  case Distribution::Uniform: return "uniform";
  case Distribution::Integer: return "integer";
  case Distribution::Zero: return "zero";
  case Distribution::One: return "one";
  }
  return "?";
}

uint16_t floatToHalf(float f) {
  uint32_t x = bitsOf(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t man = x & 0x7fffff;
  if (exp == 0xff) // Inf / NaN
    return uint16_t(sign | 0x7c00 | (man ? 0x200 : 0));
  int e = int(exp) - 127 + 15;
  if (e >= 31)
    return uint16_t(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10)
      return uint16_t(sign);
    // Subnormal: shift the full mantissa, round to nearest even.
    uint32_t m = man | 0x800000;
    int shift = 14 - e;
    uint32_t half = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t h = (uint32_t(e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h; // may carry into the exponent, up to infinity: correct
  return uint16_t(sign | h);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0) {
    float v = std::ldexp(float(man), -24);
    return sign ? -v : v;
  }
  if (exp == 31)
    return floatOf(sign | 0x7f800000 | (man << 13));
  return floatOf(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t floatToBFloat16(float f) {
  uint32_t x = bitsOf(f);
  if ((x & 0x7fffffff) > 0x7f800000)
    return uint16_t((x >> 16) | 0x40); // quiet NaN
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fff + lsb;
  return uint16_t(x >> 16);
}

float bfloat16ToFloat(uint16_t b) { return floatOf(uint32_t(b) << 16); }

uint8_t floatToF8E4M3(float f) {
  if (!std::isnan(f))
    f = std::fmax(-448.f, std::fmin(448.f, f)); // saturate: no infinities
  return uint8_t(encodeSmall(f, 4, 3, /*finiteOnly=*/true));
}
float f8E4M3ToFloat(uint8_t b) { return decodeSmall(b, 4, 3, true); }
uint8_t floatToF8E5M2(float f) { return uint8_t(encodeSmall(f, 5, 2, false)); }
float f8E5M2ToFloat(uint8_t b) { return decodeSmall(b, 5, 2, false); }

template <typename T> static T loadAs(const uint8_t *bytes, size_t i) {
  T v;
  std::memcpy(&v, bytes + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T> static void storeAs(uint8_t *bytes, size_t i, T v) {
  std::memcpy(bytes + i * sizeof(T), &v, sizeof(T));
}
template <typename T> static T saturate(double v) {
  if (std::isnan(v))
    return T(0);
  double lo = double(std::numeric_limits<T>::min());
  double hi = double(std::numeric_limits<T>::max());
  return T(std::llround(std::fmax(lo, std::fmin(hi, v))));
}

double loadElement(const uint8_t *bytes, DType t, size_t i) {
  switch (t) {
  case DType::F16: return halfToFloat(loadAs<uint16_t>(bytes, i));
  case DType::BF16: return bfloat16ToFloat(loadAs<uint16_t>(bytes, i));
  case DType::F32: return loadAs<float>(bytes, i);
  case DType::F64: return loadAs<double>(bytes, i);
  case DType::F8E4M3: return f8E4M3ToFloat(bytes[i]);
  case DType::F8E5M2: return f8E5M2ToFloat(bytes[i]);
  case DType::Bool: return bytes[i] ? 1 : 0;
  case DType::I8: return loadAs<int8_t>(bytes, i);
  case DType::I16: return loadAs<int16_t>(bytes, i);
  case DType::I32: return loadAs<int32_t>(bytes, i);
  case DType::I64: return double(loadAs<int64_t>(bytes, i));
  case DType::U8: return bytes[i];
  case DType::U16: return loadAs<uint16_t>(bytes, i);
  case DType::U32: return loadAs<uint32_t>(bytes, i);
  case DType::U64: return double(loadAs<uint64_t>(bytes, i));
  }
  return 0;
}

void storeElement(uint8_t *bytes, DType t, size_t i, double v) {
  switch (t) {
  case DType::F16: return storeAs(bytes, i, floatToHalf(float(v)));
  case DType::BF16: return storeAs(bytes, i, floatToBFloat16(float(v)));
  case DType::F32: return storeAs(bytes, i, float(v));
  case DType::F64: return storeAs(bytes, i, v);
  case DType::F8E4M3: bytes[i] = floatToF8E4M3(float(v)); return;
  case DType::F8E5M2: bytes[i] = floatToF8E5M2(float(v)); return;
  case DType::Bool: bytes[i] = v != 0; return;
  case DType::I8: return storeAs(bytes, i, saturate<int8_t>(v));
  case DType::I16: return storeAs(bytes, i, saturate<int16_t>(v));
  case DType::I32: return storeAs(bytes, i, saturate<int32_t>(v));
  case DType::I64: return storeAs(bytes, i, saturate<int64_t>(v));
  case DType::U8: return storeAs(bytes, i, saturate<uint8_t>(v));
  case DType::U16: return storeAs(bytes, i, saturate<uint16_t>(v));
  case DType::U32: return storeAs(bytes, i, saturate<uint32_t>(v));
  case DType::U64: return storeAs(bytes, i, saturate<uint64_t>(v));
  }
}

uint64_t Random::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Random::uniform() { return double(next() >> 11) * 0x1.0p-53; }

double Random::normal() {
  if (haveSpare) {
    haveSpare = false;
    return spare;
  }
  double u1 = uniform(), u2 = uniform();
  if (u1 < 1e-300)
    u1 = 1e-300;
  double r = std::sqrt(-2.0 * std::log(u1));
  double theta = 6.283185307179586 * u2;
  spare = r * std::sin(theta);
  haveSpare = true;
  return r * std::cos(theta);
}

std::vector<uint8_t> randomTensor(DType t, size_t count, Distribution d,
                                  uint64_t seed) {
  std::vector<uint8_t> bytes(count * dtypeBytes(t));
  if (d == Distribution::Auto)
    d = isFloat(t) ? Distribution::Normal : Distribution::Integer;
  // Chunks of 2^20 elements, each from its own stream (the seed and the
  // chunk index), filled in parallel: FlashAttention's 134M-element tensors
  // take seconds on one core. The bytes do not depend on the thread count.
  constexpr size_t kChunk = size_t(1) << 20;
  size_t chunks = (count + kChunk - 1) / kChunk;
  auto fillChunk = [&](size_t c) {
    Random rng(seed ^ (0xd1b54a32d192ed03ull * (c + 1)));
    size_t end = std::min(count, (c + 1) * kChunk);
    for (size_t i = c * kChunk; i < end; ++i) {
      double v = 0;
      switch (d) {
      case Distribution::Normal: v = rng.normal(); break;
      case Distribution::Uniform: v = 2.0 * rng.uniform() - 1.0; break;
      case Distribution::Integer:
        v = t == DType::Bool ? double(rng.next() & 1)
                             : double(int64_t(rng.next() % 5) - 2);
        break;
      case Distribution::Zero: v = 0; break;
      case Distribution::One: v = 1; break;
      case Distribution::Auto: break;
      }
      storeElement(bytes.data(), t, i, v);
    }
  };
  size_t workers = std::min<size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  if (workers <= 1) {
    for (size_t c = 0; c < chunks; ++c)
      fillChunk(c);
    return bytes;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t c = next++; c < chunks; c = next++)
        fillChunk(c);
    });
  for (std::thread &th : pool)
    th.join();
  return bytes;
}

Comparison compareTensors(const uint8_t *got, const uint8_t *want, DType t,
                          size_t count, double rtol, double atol) {
  Comparison c;
  c.elements = count;
  for (size_t i = 0; i < count; ++i) {
    double g = loadElement(got, t, i), w = loadElement(want, t, i);
    bool bad;
    if (std::isnan(g) || std::isnan(w)) {
      bad = std::isnan(g) != std::isnan(w);
    } else if (std::isinf(g) || std::isinf(w)) {
      bad = g != w;
    } else {
      double err = std::fabs(g - w);
      c.maxAbsError = std::fmax(c.maxAbsError, err);
      if (w != 0)
        c.maxRelError = std::fmax(c.maxRelError, err / std::fabs(w));
      bad = err > atol + rtol * std::fabs(w);
    }
    if (bad) {
      if (c.mismatches == 0) {
        c.firstMismatch = i;
        c.firstGot = g;
        c.firstWant = w;
      }
      ++c.mismatches;
    }
  }
  return c;
}

} // namespace tilec::bench
