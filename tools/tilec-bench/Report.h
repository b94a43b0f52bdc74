//===- Report.h - What tilec-bench prints -----------------------*- C++ -*-===//
#ifndef TILEC_BENCH_REPORT_H
#define TILEC_BENCH_REPORT_H

#include "OutputFile.h"
#include "Plan.h"
#include "Runner.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace tilec::bench {

/// Work per run: `--flops` if given, and bytes from `--bytes`, else the sum
/// of the tensors' sizes.
struct Work {
  std::optional<double> flops;
  double bytes = 0;
  bool bytesFromTensors = true;
};
bool computeWork(const Plan &plan, const std::string &flopsExpr,
                 const std::string &bytesExpr, Work &work, std::string &error);

/// Everything a run found.
struct Result {
  const Plan *plan = nullptr;
  DeviceInfo device;
  Timing timing;
  Work work;
  RunOptions run;
  std::vector<TensorCheck> checks; ///< empty: no check
  double maxMismatchedRatio = 0;
  bool checksPassed() const;
};

std::string textReport(const Result &r);
nlohmann::ordered_json jsonReport(const Result &r);

} // namespace tilec::bench

#endif // TILEC_BENCH_REPORT_H
