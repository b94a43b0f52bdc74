// A CUDA driver whose every call fails with CUDA_ERROR_NOT_INITIALIZED, for
// host programs that call a launch header's functions: a launch that
// passed the header's argument checks returns that error, one a check
// rejected returns CUDA_ERROR_INVALID_VALUE without calling the driver.
#ifndef TILEC_TEST_FAILING_DRIVER_H
#define TILEC_TEST_FAILING_DRIVER_H

#include <cuda.h>

#define FAKE(name, ...)                                                        \
  CUresult CUDAAPI name(__VA_ARGS__) { return CUDA_ERROR_NOT_INITIALIZED; }
extern "C" {
FAKE(cuCtxGetCurrent, CUcontext *)
FAKE(cuCtxGetId, CUcontext, unsigned long long *)
FAKE(cuFuncSetAttribute, CUfunction, CUfunction_attribute, int)
FAKE(cuGetErrorName, CUresult, const char **)
FAKE(cuLaunchKernel, CUfunction, unsigned, unsigned, unsigned, unsigned,
     unsigned, unsigned, unsigned, CUstream, void **, void **)
FAKE(cuModuleGetFunction, CUfunction *, CUmodule, const char *)
FAKE(cuModuleLoadDataEx, CUmodule *, const void *, unsigned, CUjit_option *,
     void **)
FAKE(cuModuleUnload, CUmodule)
}
#undef FAKE

#endif // TILEC_TEST_FAILING_DRIVER_H
