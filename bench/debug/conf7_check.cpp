// GPU check of conf7's `break` / `continue` in T.serial (see
// conf7_check.sh), through the kernel's generated header, on random
// inputs; references on the host, every element
// compared, non-zero exit on any mismatch.
// serial_break (X 256 x 64 in [-1, 1)): per row, walking i = 0..63: skip
// X[i] < 0 (continue); acc += X[i], cnt += 1; stop at the first acc > 4
// (break, Stop = i; else Stop = 64). The control decisions are replayed in
// float32 in the kernel's order (Count, Stop exact); Sum against the
// float64 sum of the same entries (tolerance 1e-5 x their |sum|).
#include "serial_break.h"
#include "check_host.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

template <typename Launch>
void checkSerialBreak(const char *what, Launch launch) {
  constexpr int R = 256, N = 64;
  constexpr float limit = 4.0f;
  // Skewed up so that most rows pass the limit somewhere inside the row.
  std::vector<float> x = randoms(size_t(R) * N);
  for (float &v : x)
    v += 0.3f;
  std::vector<float> sum(R, std::nanf(""));
  std::vector<std::int32_t> count(R, -1), stop(R, -1);
  CUdeviceptr dX = upload(x), dS = upload(sum), dC = upload(count),
              dT = upload(stop);
  bool launched = ok(launch(dX, dS, dC, dT), what);
  download(sum, dS);
  download(count, dC);
  download(stop, dT);
  cuMemFree(dX);
  Tally t;
  int broke = 0;
  for (int r = 0; r < R; ++r) {
    float acc = 0;
    double ref = 0, mag = 0;
    int cnt = 0, at = N;
    for (int i = 0; i < N; ++i) {
      float v = x[size_t(r) * N + i];
      if (v < 0)
        continue;
      acc += v;
      ref += v;
      mag += std::fabs(v);
      ++cnt;
      if (acc > limit) {
        at = i;
        break;
      }
    }
    broke += at < N;
    t.add("Sum", r, sum[r], ref, 1e-5 * mag);
    t.add("Count", r, count[r], cnt, 0);
    t.add("Stop", r, stop[r], at, 0);
  }
  std::printf("  (%d of %d rows stopped by the break)\n", broke, R);
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  checkSerialBreak("break / continue in T.serial (256 rows x 64)",
                   [](auto... a) {
                     return conf7::serial_break::serial_break(a...);
                   });
  return allOk ? 0 : 1;
}
