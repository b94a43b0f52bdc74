//===- Runner.cpp - Launching and timing a plan on the GPU ----------------===//

#include "Runner.h"

#include "CudaDriver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace tilec::bench {

double medianOf(const std::vector<double> &s) {
  if (s.empty())
    return 0;
  size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double Timing::median() const { return medianOf(ms); }

double Timing::mean() const {
  return ms.empty()
             ? 0
             : std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
}

namespace {

/// Owns what one run allocates, so every exit path releases it.
struct Session {
  cu::Driver &d;
  cu::Device dev = 0;
  cu::Context ctx = nullptr;
  cu::Module mod = nullptr;
  std::vector<cu::DevicePtr> buffers;
  std::vector<cu::Event> events;

  explicit Session(cu::Driver &d) : d(d) {}
  ~Session() {
    if (ctx) {
      d.ctxSynchronize();
      for (cu::Event e : events)
        d.eventDestroy(e);
      for (cu::DevicePtr p : buffers)
        d.memFree(p);
      if (mod)
        d.moduleUnload(mod);
      d.primaryCtxRelease(dev);
    }
  }
};

} // namespace

bool runPlan(const std::string &image, const Plan &plan,
             const RunOptions &options, DeviceInfo &device, Timing &timing,
             Snapshot *snapshot, std::string &error) {
  std::unique_ptr<cu::Driver> driver = cu::loadDriver(error);
  if (!driver)
    return false;
  cu::Driver &d = *driver;
  Session s(d);
  auto check = [&](cu::Result r, const std::string &what) {
    if (r == cu::kSuccess)
      return true;
    error = what + ": " + d.describe(r);
    return false;
  };

  int count = 0;
  if (!check(d.deviceGetCount(&count), "cuDeviceGetCount"))
    return false;
  if (options.device < 0 || options.device >= count) {
    error = "device " + std::to_string(options.device) + " does not exist (" +
            std::to_string(count) + " CUDA device(s))";
    return false;
  }
  if (!check(d.deviceGet(&s.dev, options.device), "cuDeviceGet"))
    return false;
  char name[256] = {};
  d.deviceGetName(name, sizeof name, s.dev);
  device.name = name;
  d.deviceGetAttribute(&device.ccMajor, cu::kAttrComputeCapabilityMajor, s.dev);
  d.deviceGetAttribute(&device.ccMinor, cu::kAttrComputeCapabilityMinor, s.dev);
  d.deviceGetAttribute(&device.sms, cu::kAttrMultiprocessorCount, s.dev);
  d.deviceGetAttribute(&device.l2Bytes, cu::kAttrL2CacheSize, s.dev);
  d.driverGetVersion(&device.driverVersion);
  if (!check(d.primaryCtxRetain(&s.ctx, s.dev), "cuDevicePrimaryCtxRetain"))
    return false;
  if (!check(d.ctxSetCurrent(s.ctx), "cuCtxSetCurrent"))
    return false;

  // The image: PTX must be NUL-terminated for the JIT.
  std::string bytes = image;
  if (bytes.size() < 4 || bytes.compare(0, 4,
                                        "\x7f"
                                        "ELF") != 0)
    bytes.push_back('\0');
  char log[8192] = {};
  int jitOptions[] = {cu::kJitErrorLogBuffer, cu::kJitErrorLogBufferSize};
  void *jitValues[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof log))};
  cu::Result r =
      d.moduleLoadDataEx(&s.mod, bytes.data(), 2, jitOptions, jitValues);
  if (r != cu::kSuccess) {
    error = "cannot load the image on " + device.name + " (sm_" +
            std::to_string(device.ccMajor) + std::to_string(device.ccMinor) +
            "): " + d.describe(r) + (log[0] ? std::string("\n") + log : "");
    s.mod = nullptr;
    return false;
  }
  std::vector<cu::Function> fns;
  for (const LaunchPlan &l : plan.launches) {
    cu::Function f = nullptr;
    if (!check(d.moduleGetFunction(&f, s.mod, l.entry.c_str()),
               "kernel `" + l.entry + "` is not in the image"))
      return false;
    if (l.dynamicSharedBytes > 0 &&
        !check(d.funcSetAttribute(f, cu::kFuncAttrMaxDynamicShared,
                                  int(l.dynamicSharedBytes)),
               "cannot allow " + std::to_string(l.dynamicSharedBytes) +
                   " bytes of dynamic shared memory for `" + l.entry + "`"))
      return false;
    fns.push_back(f);
  }

  // Tensors, filled on the host from per-tensor seeds.
  std::vector<cu::DevicePtr> ptrs;
  for (size_t t = 0; t < plan.tensors.size(); ++t) {
    const TensorPlan &tp = plan.tensors[t];
    cu::DevicePtr p = 0;
    if (!check(d.memAlloc(&p, std::max<size_t>(tp.bytes, 16)),
               "cannot allocate " + std::to_string(tp.bytes) + " bytes for `" +
                   tp.name + "`"))
      return false;
    s.buffers.push_back(p);
    ptrs.push_back(p);
    std::vector<uint8_t> host =
        randomTensor(tp.dtype, tp.elements, tp.fill,
                     options.seed * 0x100000001b3ull + tp.param + 1);
    if (tp.bytes && !check(d.memcpyHtoD(p, host.data(), tp.bytes),
                           "cannot copy `" + tp.name + "` to the GPU"))
      return false;
  }
  cu::DevicePtr flush = 0;
  size_t flushBytes = std::max<size_t>(size_t(std::max(device.l2Bytes, 0)) * 2,
                                       size_t(64) << 20);
  if (options.flushL2) {
    if (!check(d.memAlloc(&flush, flushBytes),
               "cannot allocate the L2 flush buffer"))
      return false;
    s.buffers.push_back(flush);
  }

  // Argument arrays: one slot per argument, pointers into stable storage.
  std::vector<std::vector<std::array<uint8_t, 8>>> storage(
      plan.launches.size());
  std::vector<std::vector<void *>> argv(plan.launches.size());
  for (size_t l = 0; l < plan.launches.size(); ++l) {
    const LaunchPlan &lp = plan.launches[l];
    storage[l].resize(lp.args.size());
    for (size_t a = 0; a < lp.args.size(); ++a) {
      const ArgPlan &arg = lp.args[a];
      if (arg.tensor >= 0) {
        cu::DevicePtr p = ptrs[size_t(arg.tensor)];
        std::memcpy(storage[l][a].data(), &p, 8);
      } else {
        storage[l][a] = arg.value;
      }
      argv[l].push_back(storage[l][a].data());
    }
  }
  // A persistent kernel walks its grid's blocks itself: as many blocks as
  // the device holds at once, along x.
  std::vector<std::array<int64_t, 3>> grids;
  for (const LaunchPlan &lp : plan.launches) {
    std::array<int64_t, 3> g = lp.grid;
    if (lp.persistentBlocksPerSM && device.sms > 0)
      g = {std::min<int64_t>(g[0] * g[1] * g[2],
                             int64_t(device.sms) * lp.persistentBlocksPerSM),
           1, 1};
    grids.push_back(g);
  }
  auto launchAll = [&]() -> cu::Result {
    for (size_t l = 0; l < plan.launches.size(); ++l) {
      const LaunchPlan &lp = plan.launches[l];
      const std::array<int64_t, 3> &g = grids[l];
      cu::Result res = d.launchKernel(fns[l], unsigned(g[0]), unsigned(g[1]),
                                      unsigned(g[2]), lp.block[0], lp.block[1],
                                      lp.block[2], lp.dynamicSharedBytes,
                                      nullptr, argv[l].data(), nullptr);
      if (res != cu::kSuccess)
        return res;
    }
    return cu::kSuccess;
  };

  // The first launch, on the fresh tensors: what a check compares.
  if (!check(launchAll(), "launch of `" + plan.function + "`") ||
      !check(d.ctxSynchronize(), "`" + plan.function + "` failed on the GPU"))
    return false;
  if (snapshot) {
    snapshot->assign(plan.tensors.size(), {});
    for (size_t t = 0; t < plan.tensors.size(); ++t) {
      (*snapshot)[t].resize(plan.tensors[t].bytes);
      if (plan.tensors[t].bytes &&
          !check(d.memcpyDtoH((*snapshot)[t].data(), ptrs[t],
                              plan.tensors[t].bytes),
                 "cannot copy `" + plan.tensors[t].name + "` back"))
        return false;
    }
  }

  auto newEvent = [&](cu::Event &e) {
    if (!check(d.eventCreate(&e, 0), "cuEventCreate"))
      return false;
    s.events.push_back(e);
    return true;
  };
  auto flushL2 = [&]() -> cu::Result {
    return options.flushL2 ? d.memsetD32Async(flush, 0, flushBytes / 4, nullptr)
                           : cu::kSuccess;
  };
  // Estimate one launch from 5 (do_bench's estimate), then size the runs.
  cu::Event e0, e1;
  if (!newEvent(e0) || !newEvent(e1))
    return false;
  // As do_bench, each of the 5 runs after a flush.
  if (!check(d.eventRecord(e0, nullptr), "cuEventRecord"))
    return false;
  for (int i = 0; i < 5; ++i)
    if (!check(flushL2(), "L2 flush") || !check(launchAll(), "launch"))
      return false;
  float estimate = 0;
  if (!check(d.eventRecord(e1, nullptr), "cuEventRecord") ||
      !check(d.eventSynchronize(e1),
             "`" + plan.function + "` failed on the GPU") ||
      !check(d.eventElapsedTime(&estimate, e0, e1), "cuEventElapsedTime"))
    return false;
  double one = std::max(double(estimate) / 5, 1e-4);
  int warmup = options.warmupIters > 0
                   ? options.warmupIters
                   : std::max(1, int(options.warmupMs / one));
  int reps = options.iters > 0
                 ? options.iters
                 : std::clamp(int(options.repMs / one), 1, options.maxIters);
  for (int i = 0; i < warmup; ++i)
    if (!check(launchAll(), "launch"))
      return false;
  std::vector<cu::Event> starts(static_cast<size_t>(reps)),
      ends(static_cast<size_t>(reps));
  for (int i = 0; i < reps; ++i)
    if (!newEvent(starts[size_t(i)]) || !newEvent(ends[size_t(i)]))
      return false;
  for (int i = 0; i < reps; ++i) {
    if (!check(flushL2(), "L2 flush") ||
        !check(d.eventRecord(starts[size_t(i)], nullptr), "cuEventRecord") ||
        !check(launchAll(), "launch") ||
        !check(d.eventRecord(ends[size_t(i)], nullptr), "cuEventRecord"))
      return false;
  }
  if (!check(d.eventSynchronize(ends.back()),
             "`" + plan.function + "` failed on the GPU"))
    return false;
  timing.ms.clear();
  timing.warmupIters = warmup;
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    if (!check(d.eventElapsedTime(&ms, starts[size_t(i)], ends[size_t(i)]),
               "cuEventElapsedTime"))
      return false;
    timing.ms.push_back(ms);
  }
  std::sort(timing.ms.begin(), timing.ms.end());
  return true;
}

} // namespace tilec::bench
