// Calls the launch function of dynamic-size-checks.tile with sizes on both
// sides of each 32-bit limit. The fake driver (failing-driver.h) fails every
// call, so a launch that passed the header's checks returns
// CUDA_ERROR_NOT_INITIALIZED and one that a check rejected returns
// CUDA_ERROR_INVALID_VALUE.
#include "failing-driver.h"
#include "kernels.h"

#include <cstdio>
#include <cstring>

namespace k = tilec_kernels::sizes;

static int failures = 0;
static void expect(long long m, long long n, bool accepted,
                   const char *because) {
  CUresult r = k::k(16, 16, 16, m, n);
  bool ok = accepted ? r == CUDA_ERROR_NOT_INITIALIZED
                     : r == CUDA_ERROR_INVALID_VALUE &&
                           std::strstr(k::statusString(), because);
  std::printf("m=%lld n=%lld: %s (%s)\n", m, n, ok ? "ok" : "WRONG",
              k::statusString());
  failures += !ok;
}

int main() {
  // A: (m, 1024): m * 1024 elements.
  expect((1 << 21) - 1, 1, true, "");
  expect(1 << 21, 1, false, "m * 1024 <= 2147483647");
  // B: (m, n): m * n elements; the product of two symbols does not
  // overflow the host's check either.
  expect(1 << 20, 2047, true, "");
  expect(1 << 20, 2048, false, "m * n <= 2147483647");
  expect(2147483647LL, 2147483647LL, false, "m * 1024 <= 2147483647");
  // Each symbol alone is still checked against INT32_MAX.
  expect(1, 2147483648LL, false, "outside [1, INT32_MAX]");
  return failures;
}
