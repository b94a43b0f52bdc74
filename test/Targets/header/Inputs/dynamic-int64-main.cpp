// Calls the launch function of dynamic-int64.tile with sizes on both sides
// of each 64-bit limit. The fake driver (failing-driver.h) fails every call, so
// a launch that passed the header's checks returns CUDA_ERROR_NOT_INITIALIZED
// and one that a check rejected returns CUDA_ERROR_INVALID_VALUE.
#include "failing-driver.h"
#include "kernels.h"

#include <cstdio>
#include <cstring>

namespace k = tilec_kernels::wide;

static int failures = 0;
static void expect(long long m, long long n, bool accepted,
                   const char *because) {
  CUresult r = k::k(16, 16, m, n);
  bool ok = accepted ? r == CUDA_ERROR_NOT_INITIALIZED
                     : r == CUDA_ERROR_INVALID_VALUE &&
                           std::strstr(k::statusString(), because);
  std::printf("m=%lld n=%lld: %s (%s)\n", m, n, ok ? "ok" : "WRONG",
              k::statusString());
  failures += !ok;
}

int main() {
  const long long limit = 1LL << 59;
  // Past 2^31 elements, and m itself past INT32_MAX: a 32-bit symbol
  // stopped at INT32_MAX, a 32-bit kernel at m * 1024 <= INT32_MAX.
  expect(1LL << 21, 1, true, "");
  expect(1LL << 40, 1, true, "");
  // Y (m, n): m * n against 2^59 as n <= 2^59 / m (no int64 overflow).
  expect(1LL << 39, 1 << 20, true, "");
  expect(1LL << 40, 1 << 20, false, "n <= 576460752303423488 / (m)");
  // X (m, 1024) at m = 2^59 has 2^69 elements.
  expect(limit, 1, false, "m <= 576460752303423488 / 1024");
  expect(limit + 1, 1, false, "outside [1, 2^59]");
  // The int32 symbol keeps its range.
  expect(1, 2147483648LL, false, "outside [1, INT32_MAX]");
  return failures;
}
