//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// tilec-bench must build and link on machines without CUDA's driver (the
// build machine, CI), so it does not link libcuda: the few entry points it
// uses are looked up with dlopen("libcuda.so.1") / dlsym when it runs. The
// types are the ABI's (CUdeviceptr is 64 bits, handles are pointers, enums
// ints), declared here so that no CUDA header is needed either.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_BENCH_CUDADRIVER_H
#define TILEC_BENCH_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tilec::bench::cu {

using Result = int; // CUresult; 0 is CUDA_SUCCESS
using Device = int;
using DevicePtr = unsigned long long;
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Event = struct CUevent_st *;

inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorNoDevice = 100;
// CUdevice_attribute values used here.
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr int kAttrL2CacheSize = 38;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;
inline constexpr int kAttrMaxSharedPerBlockOptin = 97;
// CUfunction_attribute.
inline constexpr int kFuncAttrMaxDynamicShared = 8;
// CUjit_option.
inline constexpr int kJitErrorLogBuffer = 5;
inline constexpr int kJitErrorLogBufferSize = 6;

/// The driver's entry points this tool calls.
struct Driver {
  Result (*init)(unsigned);
  Result (*driverGetVersion)(int *);
  Result (*deviceGetCount)(int *);
  Result (*deviceGet)(Device *, int);
  Result (*deviceGetName)(char *, int, Device);
  Result (*deviceGetAttribute)(int *, int, Device);
  Result (*primaryCtxRetain)(Context *, Device);
  Result (*primaryCtxRelease)(Device);
  Result (*ctxSetCurrent)(Context);
  Result (*ctxSynchronize)();
  Result (*moduleLoadDataEx)(Module *, const void *, unsigned, int *, void **);
  Result (*moduleUnload)(Module);
  Result (*moduleGetFunction)(Function *, Module, const char *);
  Result (*funcSetAttribute)(Function, int, int);
  Result (*memAlloc)(DevicePtr *, size_t);
  Result (*memFree)(DevicePtr);
  Result (*memcpyHtoD)(DevicePtr, const void *, size_t);
  Result (*memcpyDtoH)(void *, DevicePtr, size_t);
  Result (*memsetD32Async)(DevicePtr, unsigned, size_t, Stream);
  Result (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, Stream, void **,
                         void **);
  Result (*eventCreate)(Event *, unsigned);
  Result (*eventDestroy)(Event);
  Result (*eventRecord)(Event, Stream);
  Result (*eventSynchronize)(Event);
  Result (*eventElapsedTime)(float *, Event, Event);
  Result (*getErrorName)(Result, const char **);
  Result (*getErrorString)(Result, const char **);

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(Result r) const;
};

/// Loads the driver (the library named by $TILEC_BENCH_LIBCUDA, else
/// libcuda.so.1) and calls cuInit. Null with `error` set when there is no
/// driver, an entry point is missing, or cuInit fails (e.g. no device).
std::unique_ptr<Driver> loadDriver(std::string &error);

} // namespace tilec::bench::cu

#endif // TILEC_BENCH_CUDADRIVER_H
