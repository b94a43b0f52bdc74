// GPU check of conf10a's T.reshape (see conf10a_check.sh), for sm_90a and
// sm_80 through the generated headers, on random inputs: every element of
// B[i, j] = sum over h < 4 of (h + 1) * A[i, j * 4 + h] (A 256 x 128
// float32, B 256 x 32) against a float64 reference. Four float32 products
// of inputs in [-1, 1) summed: tolerance 1e-5 + 1e-6 |ref|.
#include "check_host.h"
#include "reshape_sm80.h"
#include "reshape_sm90.h"

#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

constexpr int M = 256, N = 128, H = 4;

template <typename Launch>
void checkReshape(const char *what, const std::vector<float> &a,
                  Launch launch) {
  std::vector<float> b(size_t(M) * (N / H), NAN);
  CUdeviceptr dA = upload(a), dB = upload(b);
  bool launched = ok(launch(dA, dB), what);
  download(b, dB);
  cuMemFree(dA);
  Tally t;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N / H; ++j) {
      double ref = 0;
      for (int h = 0; h < H; ++h)
        ref += double(h + 1) * a[size_t(i) * N + j * H + h];
      t.add(what, size_t(i) * (N / H) + j, b[size_t(i) * (N / H) + j], ref,
            1e-5 + 1e-6 * std::fabs(ref));
    }
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  std::vector<float> a = randoms(size_t(M) * N);
  checkReshape("reshape sm_90a", a, [](CUdeviceptr A, CUdeviceptr B) {
    return conf10a::reshape_sm90::group_sum(A, B);
  });
  checkReshape("reshape sm_80", a, [](CUdeviceptr A, CUdeviceptr B) {
    return conf10a::reshape_sm80::group_sum(A, B);
  });
  if (allOk)
    std::printf("all ok\n");
  return allOk ? 0 : 1;
}
