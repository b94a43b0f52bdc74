//===- OutputFile.h - Saved kernel outputs ----------------------*- C++ -*-===//
//
// `--save-output FILE` keeps every tensor as it was after the first launch
// on the seeded inputs; `--check-against FILE` compares a later run (another
// configuration, another build of tilec) with it. The file is a fixed
// 8-byte magic "TILECOUT", a little-endian uint64 header length, a JSON
// header (function, seed, tensors with name, dtype, shape, offset, bytes)
// and the tensors' raw bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_BENCH_OUTPUTFILE_H
#define TILEC_BENCH_OUTPUTFILE_H

#include "Fill.h"
#include "Plan.h"
#include "Runner.h"

#include <string>
#include <vector>

namespace tilec::bench {

struct SavedTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

struct SavedOutput {
  std::string function;
  uint64_t seed = 0;
  std::vector<SavedTensor> tensors;
};

bool writeSavedOutput(const std::string &path, const Plan &plan, uint64_t seed,
                      const Snapshot &snapshot, std::string &error);
bool readSavedOutput(const std::string &path, SavedOutput &out,
                     std::string &error);

/// Per tensor of `plan`, the comparison with the saved tensor of the same
/// name. False with `error` when the saved file does not fit the plan (a
/// missing tensor, another dtype or shape, another seed).
struct TensorCheck {
  std::string name;
  Comparison result;
};
bool checkAgainstSaved(const Plan &plan, uint64_t seed, const Snapshot &snapshot,
                       const SavedOutput &saved, double rtol, double atol,
                       std::vector<TensorCheck> &checks, std::string &error);

} // namespace tilec::bench

#endif // TILEC_BENCH_OUTPUTFILE_H
