// Calls the launch function of a persistent warp-specialized GEMM
// (persistent.test) against a fake driver that succeeds and records the
// launch: the header must start min(tiles, multiprocessors) blocks along x
// (the kernel walks its 16 x 32 = 512 tiles itself), and all 512 when the
// multiprocessor count cannot be read.
#include "kernels.h"
#include "recording-driver.h"

#include <cstdio>

using fake::block;
using fake::grid;

static void launch(const char *what) {
  CUresult r = app::gemm::matmul(0x10000, 0x20000, 0x30000);
  std::printf("%s: rc %d grid (%u, %u, %u) block (%u, %u, %u)\n", what, int(r),
              grid[0], grid[1], grid[2], block[0], block[1], block[2]);
}

int main() {
  launch("132 SMs");
  fake::sms = 1000;
  launch("1000 SMs");
  fake::sms = 132;
  fake::smsResult = CUDA_ERROR_INVALID_DEVICE;
  launch("no SM count");
  return 0;
}
