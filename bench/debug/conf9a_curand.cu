// cuRAND's own values for conf9a_check's three random-number cases (see
// conf9a_check.cpp): one thread per row runs curand_init(seed, seq, off)
// and `draws` curand() calls, as TileLang's generated CUDA does; the values
// go to $CURAND_OUT/curand_<case>.bin for the harness to compare its host
// model with. Built by conf9a_check.sh only where nvcc is found.
#include <curand_kernel.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

__global__ void streams(unsigned *out, int rows, int draws, int which) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  unsigned long long seed, seq, off;
  if (which == 0) { // rand_uint: one thread per 128-value block
    seed = 42, seq = 0, off = 128ull * r;
  } else if (which == 1) { // rng_streams: 32 threads a block
    seed = 0x1234567890ull, seq = 3ull * (r / 32) + 1,
    off = (1ull << 34) + 5ull * (r % 32) + 3;
  } else { // rng_default
    seed = 7, seq = r, off = 0;
  }
  curandStatePhilox4_32_10_t st;
  curand_init(seed, seq, off, &st);
  for (int d = 0; d < draws; ++d)
    out[size_t(r) * draws + d] = curand(&st);
}

int main() {
  const char *dir = std::getenv("CURAND_OUT");
  const int rows[3] = {(100000 + 127) / 128, 128, 128}, draws[3] = {128, 9, 6};
  for (int k = 0; k < 3; ++k) {
    size_t n = size_t(rows[k]) * draws[k];
    unsigned *d = nullptr;
    if (cudaMalloc(&d, n * 4) != cudaSuccess)
      return 1;
    streams<<<(rows[k] + 127) / 128, 128>>>(d, rows[k], draws[k], k);
    std::vector<unsigned> h(n);
    if (cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost) != cudaSuccess)
      return 1;
    cudaFree(d);
    std::string path = std::string(dir ? dir : ".") + "/curand_" + std::to_string(k) + ".bin";
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f)
      return 1;
    std::fwrite(h.data(), 4, n, f);
    std::fclose(f);
  }
  return 0;
}
