// GPU check of fragments whose extents are not powers of two (see
// nonpow2_check.sh) through their generated headers, on random inputs in
// [-1, 1); every output element against a float64 reference on the host,
// non-zero exit on any mismatch. Outputs start as NaN, so an element no
// thread wrote fails.
//
// mix24 (nonpow2-fragment.tile, 96 threads, B = 64 blocks): x = 2 X[b] + 1
// over 24 elements; S[b] = (sum x, max x); Y[b] = x - max x; c[j][k] =
// x[4 j + k + 8] (4 x 4, through shared memory); RS[b][j] = sum_k c[j][k];
// CM[b][k] = max_j c[j][k]; C[b][4 j + k] = c[j][k] / RS[b][j].
//
// rows (nonpow2-rows.tile, 96 threads): X[b] 6 x 24; RS[b][r] = sum of row
// r (24 elements); CM[b][k] = max of column k (6 elements).
//
// Sums are float32 in the kernel: tolerance 1e-5 of the sum of magnitudes;
// maxima and differences of maxima exact up to float32 rounding of 2X+1.
#include "check_host.h"
#include "mix24.h"
#include "rows.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

using namespace check_host;

constexpr int B = 64;

void mix24() {
  const int n = 24;
  std::vector<float> X = randoms(B * n);
  std::vector<float> Y(B * n, std::nanf("")), S(B * 2, std::nanf("")),
      RS(B * 4, std::nanf("")), CM(B * 4, std::nanf("")),
      C(B * 16, std::nanf(""));
  CUdeviceptr dX = upload(X), dY = upload(Y), dS = upload(S), dRS = upload(RS),
              dCM = upload(CM), dC = upload(C);
  const char *what = "mix24, sm_90a ([24] and [4, 4] fragments, 96 threads)";
  bool launched = ok(nonpow2::mix24::mix24(dX, dY, dS, dRS, dCM, dC), what);
  download(Y, dY);
  download(S, dS);
  download(RS, dRS);
  download(CM, dCM);
  download(C, dC);
  for (CUdeviceptr p : {dX, dY, dS, dRS, dCM, dC})
    cuMemFree(p);
  Tally t;
  for (int b = 0; b < B; ++b) {
    std::vector<double> x(n);
    double sum = 0, mag = 0, big = -INFINITY;
    for (int j = 0; j < n; ++j) {
      x[j] = double(X[b * n + j] * 2.0f + 1.0f);
      sum += x[j];
      mag += std::fabs(x[j]);
      big = std::max(big, x[j]);
    }
    t.add("S.sum", size_t(b * 2), S[b * 2], sum, 1e-5 * mag);
    t.add("S.max", size_t(b * 2 + 1), S[b * 2 + 1], big, 0);
    for (int j = 0; j < n; ++j)
      t.add("Y", size_t(b * n + j), Y[b * n + j], x[j] - big,
            1e-6 * std::fabs(x[j] - big) + 1e-7);
    for (int j = 0; j < 4; ++j) {
      double rs = 0, rmag = 0, cm = -INFINITY;
      for (int k = 0; k < 4; ++k) {
        rs += x[j * 4 + k + 8];
        rmag += std::fabs(x[j * 4 + k + 8]);
        cm = std::max(cm, x[k * 4 + j + 8]);
      }
      t.add("RS", size_t(b * 4 + j), RS[b * 4 + j], rs, 1e-5 * rmag);
      t.add("CM", size_t(b * 4 + j), CM[b * 4 + j], cm, 0);
      for (int k = 0; k < 4; ++k) {
        // c / rs with rs as the kernel summed it (float32): its rounding
        // is checked above, the division here.
        double ref = x[j * 4 + k + 8] / double(RS[b * 4 + j]);
        t.add("C", size_t(b * 16 + j * 4 + k), C[b * 16 + j * 4 + k], ref,
              1e-6 * std::fabs(ref) + 1e-7);
      }
    }
  }
  t.row(what, launched);
}

void rows() {
  const int r = 6, n = 24;
  std::vector<float> X = randoms(B * r * n);
  std::vector<float> RS(B * r, std::nanf("")), CM(B * n, std::nanf(""));
  CUdeviceptr dX = upload(X), dRS = upload(RS), dCM = upload(CM);
  const char *what = "rows, sm_90a ([6, 24] fragment, 96 threads)";
  bool launched = ok(nonpow2::rows::rows(dX, dRS, dCM), what);
  download(RS, dRS);
  download(CM, dCM);
  for (CUdeviceptr p : {dX, dRS, dCM})
    cuMemFree(p);
  Tally t;
  for (int b = 0; b < B; ++b) {
    const float *x = &X[size_t(b) * r * n];
    for (int i = 0; i < r; ++i) {
      double sum = 0, mag = 0;
      for (int k = 0; k < n; ++k) {
        sum += x[i * n + k];
        mag += std::fabs(x[i * n + k]);
      }
      t.add("RS", size_t(b * r + i), RS[b * r + i], sum, 1e-5 * mag);
    }
    for (int k = 0; k < n; ++k) {
      double big = -INFINITY;
      for (int i = 0; i < r; ++i)
        big = std::max(big, double(x[i * n + k]));
      t.add("CM", size_t(b * n + k), CM[b * n + k], big, 0);
    }
  }
  t.row(what, launched);
}

} // namespace

int main() {
  if (!initDevice())
    return 1;
  printCheckTableHeader();
  mix24();
  rows();
  std::printf("%s\n", allOk ? "all ok" : "FAILED");
  return allOk ? 0 : 1;
}
