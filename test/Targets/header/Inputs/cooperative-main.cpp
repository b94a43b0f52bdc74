// Calls the launch function of a kernel with T.sync_grid
// (cooperative.test) against a fake driver that records the launch: the
// header must count the co-resident blocks (occupancy x multiprocessors),
// launch with cuLaunchCooperativeKernel when the grid fits, reject a grid
// that does not with a message saying how many fit, and return the
// driver's error when the count cannot be read.
#include "kernels.h"

#include <cstdio>

static int sms = 132, perSM = 16;
static CUresult occupancyResult = CUDA_SUCCESS;
static unsigned grid[3], block[3];
static int cooperativeLaunches = 0, plainLaunches = 0;

extern "C" {
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *c) {
  *c = reinterpret_cast<CUcontext>(0x1000);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetId(CUcontext, unsigned long long *id) {
  *id = 1;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice(CUdevice *d) {
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  *v = a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? sms : 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorName(CUresult, const char **s) {
  *s = "fake";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLaunchKernel(CUfunction, unsigned gx, unsigned gy,
                                unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned, CUstream, void **,
                                void **) {
  grid[0] = gx, grid[1] = gy, grid[2] = gz;
  block[0] = bx, block[1] = by, block[2] = bz;
  ++plainLaunches;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction, unsigned gx, unsigned gy,
                                           unsigned gz, unsigned bx,
                                           unsigned by, unsigned bz, unsigned,
                                           CUstream, void **) {
  grid[0] = gx, grid[1] = gy, grid[2] = gz;
  block[0] = bx, block[1] = by, block[2] = bz;
  ++cooperativeLaunches;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction,
                                                             int threads,
                                                             size_t) {
  *n = threads == 128 ? perSM : 0;
  return occupancyResult;
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule, const char *) {
  *f = reinterpret_cast<CUfunction>(0x2000);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *m, const void *, unsigned,
                                    CUjit_option *, void **) {
  *m = reinterpret_cast<CUmodule>(0x3000);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuTensorMapEncodeTiled(
    CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
    const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
    CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
    CUtensorMapFloatOOBfill) {
  return CUDA_SUCCESS;
}
}

static void launch(const char *what, long long n) {
  grid[0] = grid[1] = grid[2] = 0;
  CUresult r = app::mirror(0x10000, 0x20000, 0x30000, n);
  std::printf("%s: rc %d grid (%u, %u, %u) block (%u, %u, %u) cooperative %d "
              "plain %d: %s\n",
              what, int(r), grid[0], grid[1], grid[2], block[0], block[1],
              block[2], cooperativeLaunches, plainLaunches,
              app::statusString());
}

int main() {
  launch("fits", 128 * 2112);
  launch("too large", 128 * 2113);
  occupancyResult = CUDA_ERROR_INVALID_HANDLE;
  launch("no occupancy", 128);
  return 0;
}
