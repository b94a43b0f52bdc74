// Calls the launch function of a kernel with T.sync_grid
// (cooperative.test) against a fake driver that records the launch: the
// header must count the co-resident blocks (occupancy x multiprocessors),
// launch with cuLaunchCooperativeKernel when the grid fits, reject a grid
// that does not with a message saying how many fit, and return the
// driver's error when the count cannot be read.
#include "kernels.h"
#include "recording-driver.h"

#include <cstdio>

using fake::block;
using fake::grid;

static void launch(const char *what, long long n) {
  grid[0] = grid[1] = grid[2] = 0;
  CUresult r = app::mirror(0x10000, 0x20000, 0x30000, n);
  std::printf("%s: rc %d grid (%u, %u, %u) block (%u, %u, %u) cooperative %d "
              "plain %d: %s\n",
              what, int(r), grid[0], grid[1], grid[2], block[0], block[1],
              block[2], fake::cooperativeLaunches, fake::plainLaunches,
              app::statusString());
}

int main() {
  launch("fits", 128 * 2112);
  launch("too large", 128 * 2113);
  fake::occupancyResult = CUDA_ERROR_INVALID_HANDLE;
  launch("no occupancy", 128);
  return 0;
}
