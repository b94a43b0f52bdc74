//===- Report.cpp - What tilec-bench prints -------------------------------===//

#include "Report.h"

#include <cstdio>

namespace tilec::bench {

bool computeWork(const Plan &plan, const std::string &flopsExpr,
                 const std::string &bytesExpr, Work &work, std::string &error) {
  work = Work();
  if (!flopsExpr.empty()) {
    std::optional<double> f = evalReal(flopsExpr, plan.vars, error);
    if (!f) {
      error = "--flops: " + error;
      return false;
    }
    work.flops = *f;
  }
  if (!bytesExpr.empty()) {
    std::optional<double> b = evalReal(bytesExpr, plan.vars, error);
    if (!b) {
      error = "--bytes: " + error;
      return false;
    }
    work.bytes = *b;
    work.bytesFromTensors = false;
  } else {
    work.bytes = double(plan.totalBytes());
  }
  return true;
}

bool Result::checksPassed() const {
  for (const TensorCheck &c : checks)
    if (!c.result.ok(maxMismatchedRatio))
      return false;
  return true;
}

static std::string fmt(const char *format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string textReport(const Result &r) {
  const Timing &t = r.timing;
  std::string s = r.plan->function + " on " + r.device.name + " (sm_" +
                  std::to_string(r.device.ccMajor) + std::to_string(r.device.ccMinor) +
                  "): " + std::to_string(t.ms.size()) + " runs after " +
                  std::to_string(t.warmupIters) + " warm-up" +
                  (r.run.flushL2 ? ", L2 flushed before each" : ", L2 not flushed") + "\n";
  double median = t.median();
  s += "  median " + fmt("%.4f", median) + " ms   min " + fmt("%.4f", t.min()) +
       " ms   max " + fmt("%.4f", t.max()) + " ms";
  if (median > 0) {
    if (r.work.flops)
      s += "   " + fmt("%.1f", *r.work.flops / (median * 1e-3) / 1e12) + " TFLOP/s";
    s += "   " + fmt("%.1f", r.work.bytes / (median * 1e-3) / 1e9) + " GB/s" +
         (r.work.bytesFromTensors ? " (all tensors once)" : "");
  }
  s += "\n";
  for (const TensorCheck &c : r.checks) {
    const Comparison &cmp = c.result;
    s += "  check " + c.name + ": " + (cmp.ok(r.maxMismatchedRatio) ? "ok" : "FAILED") +
         ", " + std::to_string(cmp.mismatches) + " of " + std::to_string(cmp.elements) +
         " elements outside tolerance, max abs error " + fmt("%.3g", cmp.maxAbsError);
    if (cmp.mismatches)
      s += " (first at element " + std::to_string(cmp.firstMismatch) + ": got " +
           fmt("%.6g", cmp.firstGot) + ", want " + fmt("%.6g", cmp.firstWant) + ")";
    s += "\n";
  }
  return s;
}

nlohmann::ordered_json jsonReport(const Result &r) {
  nlohmann::ordered_json j;
  const Timing &t = r.timing;
  j["function"] = r.plan->function;
  j["device"] = r.device.name;
  j["compute_capability"] = std::to_string(r.device.ccMajor) + "." +
                            std::to_string(r.device.ccMinor);
  j["driver_version"] = r.device.driverVersion;
  j["median_ms"] = t.median();
  j["min_ms"] = t.min();
  j["max_ms"] = t.max();
  j["mean_ms"] = t.mean();
  j["runs"] = t.ms.size();
  j["warmup_runs"] = t.warmupIters;
  j["l2_flushed"] = r.run.flushL2;
  j["seed"] = r.run.seed;
  double median = t.median();
  if (r.work.flops) {
    j["flops"] = *r.work.flops;
    j["tflops"] = median > 0 ? *r.work.flops / (median * 1e-3) / 1e12 : 0;
  }
  j["bytes"] = r.work.bytes;
  j["gbps"] = median > 0 ? r.work.bytes / (median * 1e-3) / 1e9 : 0;
  nlohmann::ordered_json grid = nlohmann::ordered_json::array();
  for (const LaunchPlan &l : r.plan->launches)
    grid.push_back({{"entry", l.entry},
                    {"grid", l.grid},
                    {"block", l.block},
                    {"dynamic_shared_bytes", l.dynamicSharedBytes}});
  j["launches"] = grid;
  if (!r.checks.empty()) {
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const TensorCheck &c : r.checks)
      checks.push_back({{"tensor", c.name},
                        {"ok", c.result.ok(r.maxMismatchedRatio)},
                        {"mismatches", c.result.mismatches},
                        {"elements", c.result.elements},
                        {"max_abs_error", c.result.maxAbsError}});
    j["check"] = {{"ok", r.checksPassed()}, {"tensors", checks}};
  }
  return j;
}

} // namespace tilec::bench
