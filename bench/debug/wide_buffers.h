// fp16 buffers with a guard region, for the bench/debug checks of tensors
// past 2^31 elements (rel3_check.cpp, rel4_check.cpp): the output is
// followed by kGuard elements holding kSentinel, which a kernel indexing
// past its end would overwrite; inputs are a hash of the element index, so
// any element's expected value is known without storing a copy.
#ifndef TILEC_BENCH_DEBUG_WIDE_BUFFERS_H
#define TILEC_BENCH_DEBUG_WIDE_BUFFERS_H

#include "check_host.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace check_host {

constexpr std::size_t kGuard = 1 << 20; // elements after each output
constexpr std::uint16_t kSentinel = 0x7e5a;

inline std::uint64_t mix(std::uint64_t i) { // splitmix64's finalizer
  i += 0x9e3779b97f4a7c15ull;
  i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
  i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
  return i ^ (i >> 31);
}
/// Copies: any 16 bits but the sentinel.
inline std::uint16_t bitsAt(std::uint64_t i) {
  auto b = static_cast<std::uint16_t>(mix(i));
  return b == kSentinel ? 0 : b;
}
/// Scaling: an integer in [-256, 255], exact in fp16 (so is 2x + 1).
inline int intAt(std::uint64_t i) { return int(mix(i) % 512) - 256; }

struct Buffers {
  std::size_t n;
  CUdeviceptr a = 0, b = 0;
  std::vector<std::uint16_t> host;
  explicit Buffers(std::size_t n) : n(n), host(n + kGuard) {}
  bool alloc() {
    return ok(cuMemAlloc(&a, n * 2), "cuMemAlloc A") &&
           ok(cuMemAlloc(&b, (n + kGuard) * 2), "cuMemAlloc B") &&
           ok(cuMemsetD16(b, kSentinel, n + kGuard), "cuMemsetD16");
  }
  bool upload() { return ok(cuMemcpyHtoD(a, host.data(), n * 2), "upload"); }
  bool download() {
    return ok(cuCtxSynchronize(), "kernel") &&
           ok(cuMemcpyDtoH(host.data(), b, (n + kGuard) * 2), "download");
  }
  ~Buffers() {
    if (a)
      cuMemFree(a);
    if (b)
      cuMemFree(b);
  }
};

} // namespace check_host

#endif // TILEC_BENCH_DEBUG_WIDE_BUFFERS_H
