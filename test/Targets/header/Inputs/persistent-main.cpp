// Calls the launch function of a persistent warp-specialized GEMM
// (persistent.test) against a fake driver that succeeds and records the
// launch: the header must start min(tiles, multiprocessors) blocks along x
// (the kernel walks its 16 x 32 = 512 tiles itself), and all 512 when the
// multiprocessor count cannot be read.
#include "kernels.h"

#include <cstdio>

static int sms = 132;
static CUresult smsResult = CUDA_SUCCESS;
static unsigned grid[3], block[3];

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
  return smsResult;
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
  return CUDA_SUCCESS;
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

static void launch(const char *what) {
  CUresult r = app::gemm::matmul(0x10000, 0x20000, 0x30000);
  std::printf("%s: rc %d grid (%u, %u, %u) block (%u, %u, %u)\n", what, int(r),
              grid[0], grid[1], grid[2], block[0], block[1], block[2]);
}

int main() {
  launch("132 SMs");
  sms = 1000;
  launch("1000 SMs");
  sms = 132;
  smsResult = CUDA_ERROR_INVALID_DEVICE;
  launch("no SM count");
  return 0;
}
