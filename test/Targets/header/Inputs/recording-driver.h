// A CUDA driver whose calls succeed and record what a launch header asked
// for, for host programs that test a header's launch logic without a GPU:
// the grid and block of the last launch, how many launches went through
// cuLaunchKernel and how many through cuLaunchCooperativeKernel. The
// multiprocessor count, the occupancy and the results of those two queries
// are settable, so a test can also make them fail.
#ifndef TILEC_TEST_RECORDING_DRIVER_H
#define TILEC_TEST_RECORDING_DRIVER_H

#include <cuda.h>

namespace fake {
static int sms = 132;
static CUresult smsResult = CUDA_SUCCESS;
/// Blocks per multiprocessor for a launch of `occupancyThreads` threads (0
/// for any other count, so a header that asks with the wrong one fails).
static int perSM = 16, occupancyThreads = 128;
static CUresult occupancyResult = CUDA_SUCCESS;
static unsigned grid[3], block[3];
static int cooperativeLaunches = 0, plainLaunches = 0;
} // namespace fake

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
  *v = a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? fake::sms : 0;
  return fake::smsResult;
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
  fake::grid[0] = gx, fake::grid[1] = gy, fake::grid[2] = gz;
  fake::block[0] = bx, fake::block[1] = by, fake::block[2] = bz;
  ++fake::plainLaunches;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction, unsigned gx, unsigned gy,
                                           unsigned gz, unsigned bx,
                                           unsigned by, unsigned bz, unsigned,
                                           CUstream, void **) {
  fake::grid[0] = gx, fake::grid[1] = gy, fake::grid[2] = gz;
  fake::block[0] = bx, fake::block[1] = by, fake::block[2] = bz;
  ++fake::cooperativeLaunches;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction,
                                                             int threads,
                                                             size_t) {
  *n = threads == fake::occupancyThreads ? fake::perSM : 0;
  return fake::occupancyResult;
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

#endif // TILEC_TEST_RECORDING_DRIVER_H
