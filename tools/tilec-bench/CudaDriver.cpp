//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>

namespace tilec::bench::cu {

std::string Driver::describe(Result r) const {
  const char *name = nullptr, *text = nullptr;
  if (getErrorName)
    getErrorName(r, &name);
  if (getErrorString)
    getErrorString(r, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(r);
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

std::unique_ptr<Driver> loadDriver(std::string &error) {
  const char *env = std::getenv("TILEC_BENCH_LIBCUDA");
  std::string lib = env && *env ? env : "libcuda.so.1";
  // The handle is never closed: the driver stays loaded for the process.
  void *handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    error = "cannot load the CUDA driver (" + lib + ": " +
            (why ? why : "not found") +
            "); tilec-bench times kernels on an NVIDIA GPU and needs its "
            "driver: run it on the GPU machine";
    return nullptr;
  }
  auto d = std::make_unique<Driver>();
  bool ok = true;
  std::string missing;
  auto bind = [&](auto &fn, const char *name) {
    void *p = dlsym(handle, name);
    if (!p) {
      ok = false;
      missing += (missing.empty() ? "" : ", ") + std::string(name);
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  bind(d->init, "cuInit");
  bind(d->driverGetVersion, "cuDriverGetVersion");
  bind(d->deviceGetCount, "cuDeviceGetCount");
  bind(d->deviceGet, "cuDeviceGet");
  bind(d->deviceGetName, "cuDeviceGetName");
  bind(d->deviceGetAttribute, "cuDeviceGetAttribute");
  bind(d->primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(d->primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  bind(d->ctxSetCurrent, "cuCtxSetCurrent");
  bind(d->ctxSynchronize, "cuCtxSynchronize");
  bind(d->moduleLoadDataEx, "cuModuleLoadDataEx");
  bind(d->moduleUnload, "cuModuleUnload");
  bind(d->moduleGetFunction, "cuModuleGetFunction");
  bind(d->funcSetAttribute, "cuFuncSetAttribute");
  bind(d->memAlloc, "cuMemAlloc_v2");
  bind(d->memFree, "cuMemFree_v2");
  bind(d->memcpyHtoD, "cuMemcpyHtoD_v2");
  bind(d->memcpyDtoH, "cuMemcpyDtoH_v2");
  bind(d->memsetD32Async, "cuMemsetD32Async");
  bind(d->launchKernel, "cuLaunchKernel");
  bind(d->eventCreate, "cuEventCreate");
  bind(d->eventDestroy, "cuEventDestroy_v2");
  bind(d->eventRecord, "cuEventRecord");
  bind(d->eventSynchronize, "cuEventSynchronize");
  bind(d->eventElapsedTime, "cuEventElapsedTime");
  bind(d->getErrorName, "cuGetErrorName");
  bind(d->getErrorString, "cuGetErrorString");
  if (!ok) {
    error = lib + " lacks " + missing + " (a CUDA driver older than 11.0?)";
    return nullptr;
  }
  Result r = d->init(0);
  if (r != kSuccess) {
    error = "cuInit failed: " + d->describe(r) +
            (r == kErrorNoDevice ? "; this machine has no CUDA GPU" : "");
    return nullptr;
  }
  int count = 0;
  r = d->deviceGetCount(&count);
  if (r != kSuccess || count == 0) {
    error = "no CUDA device" + (r ? ": " + d->describe(r) : std::string());
    return nullptr;
  }
  return d;
}

} // namespace tilec::bench::cu
