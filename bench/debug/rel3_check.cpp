// GPU check of 64-bit index arithmetic (see rel3_check.sh): kernels over
// tensors past 2^31 - 1 elements, launched through their generated headers.
// Inputs are a per-element hash, so an element read from or written to the
// wrong offset (a wrapped 32-bit offset) shows as a mismatch; every output
// element is compared bit for bit with the host's expected value, and a
// guard region after each output must keep its sentinel. One table row per
// check; exit 1 on any mismatch or launch failure.
#include "rel3_auto.h"
#include "rel3_wide.h"
#include "wide_buffers.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace check_host;

/// Compares host[0, n) with want(i) and the guard with the sentinel.
template <typename Want>
void compare(const char *what, const Buffers &buf, Want want, double ms,
             const char *note) {
  std::size_t bad = 0, firstBad = SIZE_MAX, guardBad = 0;
#pragma omp parallel for reduction(+ : bad) reduction(min : firstBad)
  for (std::size_t i = 0; i < buf.n; ++i)
    if (buf.host[i] != want(i)) {
      ++bad;
      firstBad = std::min(firstBad, i);
    }
  for (std::size_t i = buf.n; i < buf.n + kGuard; ++i)
    guardBad += buf.host[i] != kSentinel;
  // The elements the issue names, reported on their own: the last ones and
  // the first past 2^31 and 2^32.
  std::string spots;
  for (std::size_t i : {buf.n - 1, buf.n - 2, std::size_t(1) << 31,
                        (std::size_t(1) << 31) - 1, std::size_t(1) << 32})
    if (i < buf.n)
      spots += buf.host[i] == want(i) ? "" : " [" + std::to_string(i) + "]";
  bool good = bad == 0 && guardBad == 0;
  allOk &= good;
  double gbps = ms > 0 ? 2.0 * 2 * double(buf.n) / (ms * 1e6) : 0;
  std::printf("| %s | %zu | %zu | %s | %zu | %.2f | %.0f | %s | %s%s |\n",
              what, buf.n, bad,
              firstBad == SIZE_MAX ? "-" : std::to_string(firstBad).c_str(),
              guardBad, ms, gbps, good ? "ok" : "FAIL", note,
              spots.empty() ? "" : (" wrong at" + spots).c_str());
}

template <typename Launch>
double timed(Launch launch, bool &launched) {
  launched = ok(launch(), "launch");
  if (!launched)
    return 0;
  cuCtxSynchronize();
  auto t0 = std::chrono::steady_clock::now();
  launched = ok(launch(), "launch");
  cuCtxSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

template <typename Launch>
void copyCheck(const char *what, std::size_t n, Launch launch,
               const char *note) {
  Buffers buf(n);
  if (!buf.alloc())
    return;
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i)
    buf.host[i] = bitsAt(i);
  if (!buf.upload())
    return;
  bool launched = false;
  double ms = timed([&] { return launch(buf.a, buf.b); }, launched);
  if (!launched) {
    std::printf("| %s | %zu | - | - | - | - | - | FAIL | %s |\n", what, n,
                rel3::automatic::statusString());
    allOk = false;
    return;
  }
  if (buf.download())
    compare(what, buf, bitsAt, ms, note);
}

void scaleCheck(const char *what, std::size_t n,
                CUresult (*launch)(CUdeviceptr, CUdeviceptr),
                const char *note) {
  Buffers buf(n);
  if (!buf.alloc())
    return;
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i)
    buf.host[i] = toHalf(float(intAt(i)));
  if (!buf.upload())
    return;
  bool launched = false;
  double ms = timed([&] { return launch(buf.a, buf.b); }, launched);
  if (!launched || !buf.download())
    return;
  compare(what, buf, [](std::size_t i) { return toHalf(2.0f * intAt(i) + 1); },
          ms, note);
}

void rowsCheck() {
  constexpr std::int64_t rows = (1 << 19) + 1, cols = 4096;
  // 32-bit build: the launch function must refuse before launching.
  CUresult r = rel3::automatic::rows(0x10000, 0x10000, rows);
  std::string text = rel3::automatic::statusString();
  bool refused = r != CUDA_SUCCESS &&
                 text.find("n * 4096 <= 2147483647") != std::string::npos;
  allOk &= refused;
  std::printf("| rows, 32-bit build, n = %lld | - | - | - | - | - | - | %s | "
              "launch refused: %s |\n",
              static_cast<long long>(rows), refused ? "ok" : "FAIL",
              text.c_str());
  Buffers buf(std::size_t(rows) * cols);
  if (!buf.alloc())
    return;
#pragma omp parallel for
  for (std::size_t i = 0; i < buf.n; ++i)
    buf.host[i] = toHalf(float(intAt(i)));
  if (!buf.upload())
    return;
  bool launched = false;
  double ms = timed([&] { return rel3::wide::rows(buf.a, buf.b, rows); },
                    launched);
  if (!launched) {
    std::printf("| rows, -findex-bits=64 | %zu | - | - | - | - | - | FAIL | "
                "%s |\n",
                buf.n, rel3::wide::statusString());
    allOk = false;
    return;
  }
  if (buf.download())
    compare("rows, -findex-bits=64", buf,
            [](std::size_t i) { return toHalf(2.0f * intAt(i)); }, ms,
            "T.dynamic n = 2^19 + 1");
}

} // namespace

int main() {
  if (!initDevice())
    return 2;
  std::printf("| check | elements | bad | first bad | guard bad | ms | GB/s | "
              "result | note |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  auto launchCopy = [](auto fn) {
    return [fn](CUdeviceptr a, CUdeviceptr b) { return fn(a, b, nullptr); };
  };
  copyCheck("copy_small (32-bit)", 2145386499,
            launchCopy(rel3::automatic::copy_small), "2^31 - 2^21 + 3");
  copyCheck("copy_2p31 (64-bit)", 2148532227,
            launchCopy(rel3::automatic::copy_2p31), "2^31 + 2^20 + 3");
  copyCheck("copy_small, -findex-bits=64", 2145386499,
            launchCopy(rel3::wide::copy_small), "forced 64-bit");
  copyCheck("copy_2p32 (64-bit)", 4296015875,
            launchCopy(rel3::automatic::copy_2p32), "2^32 + 2^20 + 3");
  scaleCheck("scale_2p31 (64-bit)", std::size_t(2049) << 20,
             [](CUdeviceptr a, CUdeviceptr b) {
               return rel3::automatic::scale_2p31(a, b, nullptr);
             },
             "2049 x 2^20 through shared, 2A + 1");
  rowsCheck();
  std::printf("%s\n", allOk ? "rel3_check: all ok" : "rel3_check: FAILED");
  return allOk ? 0 : 1;
}
