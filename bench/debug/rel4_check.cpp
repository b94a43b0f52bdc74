// GPU check of 64-bit T.dynamic sizes and run-time loop bounds (see
// rel4_check.sh), launched through the generated header. Inputs are a
// per-element hash, so an element read from or written to a wrapped
// offset shows as a mismatch; every output element is compared bit for bit
// with the host's expected value and a guard region after each output must
// keep its sentinel. One table row per check; exit 1 on any mismatch.
#include "rel4_wide.h"
#define CHECK_HOST_STATUS rel4::statusString
#include "wide_buffers.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace check_host;

template <typename Want>
void compare(const std::string &what, const Buffers &buf, Want want,
             double ms) {
  std::size_t bad = 0, firstBad = SIZE_MAX, guardBad = 0;
#pragma omp parallel for reduction(+ : bad) reduction(min : firstBad)
  for (std::size_t i = 0; i < buf.n; ++i)
    if (buf.host[i] != want(i)) {
      ++bad;
      firstBad = std::min(firstBad, i);
    }
  for (std::size_t i = buf.n; i < buf.n + kGuard; ++i)
    guardBad += buf.host[i] != kSentinel;
  bool good = bad == 0 && guardBad == 0;
  allOk &= good;
  std::printf("| %s | %zu | %zu | %s | %zu | %.2f | %s |\n", what.c_str(),
              buf.n, bad,
              firstBad == SIZE_MAX ? "-" : std::to_string(firstBad).c_str(),
              guardBad, ms, good ? "ok" : "FAIL");
}

template <typename Launch> double timed(Launch launch, bool &launched) {
  auto t0 = std::chrono::steady_clock::now();
  launched = ok(launch(), "launch") && ok(cuCtxSynchronize(), "kernel");
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

void copyCheck(std::size_t n) {
  Buffers buf(n);
  if (!buf.alloc())
    return;
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i)
    buf.host[i] = bitsAt(i);
  bool launched = false;
  double ms = 0;
  if (buf.upload())
    ms = timed([&] { return rel4::copy64(buf.a, buf.b, std::int64_t(n)); },
               launched);
  if (launched && buf.download())
    compare("copy64, n = " + std::to_string(n), buf, bitsAt, ms);
}

void scaleCheck(std::int64_t rows) {
  Buffers buf(std::size_t(rows) * 1024);
  if (!buf.alloc())
    return;
#pragma omp parallel for
  for (std::size_t i = 0; i < buf.n; ++i)
    buf.host[i] = toHalf(float(intAt(i)));
  bool launched = false;
  double ms = 0;
  if (buf.upload())
    ms = timed([&] { return rel4::scale_rows(buf.a, buf.b, rows); }, launched);
  if (launched && buf.download())
    compare("scale_rows, m = " + std::to_string(rows) + " (x 1024)", buf,
            [](std::size_t i) { return toHalf(2.0f * intAt(i) + 1); }, ms);
}

/// The launch function must refuse a size outside [1, 2^59] and a tensor
/// past 2^59 elements, without launching.
void refuseCheck(const char *what, CUresult r, const char *because) {
  std::string text = rel4::statusString();
  bool refused = r == CUDA_ERROR_INVALID_VALUE &&
                 text.find(because) != std::string::npos;
  allOk &= refused;
  std::printf("| %s | - | - | - | - | - | %s (%s) |\n", what,
              refused ? "ok" : "FAIL", text.c_str());
}

template <typename T>
void countCheck(const char *what,
                CUresult (*launch)(CUdeviceptr, CUdeviceptr, CUstream),
                T bound) {
  const std::int64_t step = 1 << 20;
  std::int64_t want[2] = {(std::int64_t(bound) + step - 1) / step,
                          (std::int64_t(bound) + step - 1) / step * step - step};
  T in[2] = {bound, 0};
  std::int64_t out[2] = {-7, -7};
  CUdeviceptr l = 0, c = 0;
  if (!ok(cuMemAlloc(&l, sizeof in), "cuMemAlloc") ||
      !ok(cuMemAlloc(&c, sizeof out), "cuMemAlloc") ||
      !ok(cuMemcpyHtoD(l, in, sizeof in), "upload") ||
      !ok(launch(l, c, nullptr), "launch") || !ok(cuCtxSynchronize(), "kernel") ||
      !ok(cuMemcpyDtoH(out, c, sizeof out), "download"))
    return;
  cuMemFree(l);
  cuMemFree(c);
  bool good = out[0] == want[0] && out[1] == want[1];
  allOk &= good;
  std::printf("| %s, bound %lld | %lld iterations, last %lld (want %lld, "
              "%lld) | | | | | %s |\n",
              what, static_cast<long long>(bound),
              static_cast<long long>(out[0]), static_cast<long long>(out[1]),
              static_cast<long long>(want[0]), static_cast<long long>(want[1]),
              good ? "ok" : "FAIL");
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  std::printf("| check | elements | wrong | first wrong | guard clobbered | "
              "ms | result |\n|---|---|---|---|---|---|---|\n");
  countCheck("T.serial(0, L[0], 2^20), int64 L", rel4::count_i64,
             std::int64_t((1ll << 32) + 5));
  countCheck("T.serial(0, L[0], 2^20), uint32 L", rel4::count_u32,
             std::uint32_t(3000000000u));
  refuseCheck("copy64, n = 2^59 + 1", rel4::copy64(16, 16, (1ll << 59) + 1),
              "outside [1, 2^59]");
  refuseCheck("copy64, n = 0", rel4::copy64(16, 16, 0), "outside [1, 2^59]");
  refuseCheck("scale_rows, m = 2^50", rel4::scale_rows(16, 16, 1ll << 50),
              "m <= 576460752303423488 / 1024");
  copyCheck((std::size_t(1) << 31) + (1 << 20) + 3);
  copyCheck((std::size_t(1) << 32) + 5);
  scaleCheck((std::int64_t(1) << 21) + 5);
  std::printf("rel4_check: %s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
