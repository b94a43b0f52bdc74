//===- IndexWidth.cpp - Which kernels need 64-bit element offsets ---------===//
//
// See IndexWidth.h. The proof for the 32-bit fast path is per tensor: the
// flat offset of an in-bounds element of a tensor is below its element
// count, so a kernel whose global tensors all have at most INT32_MAX
// elements never forms an offset a signed 32-bit index cannot hold (a
// shared or register buffer is far smaller). With run-time dimensions the
// count is only known at launch: under `auto` such a kernel stays 32-bit and
// the launch header rejects sizes past the bound, because 64-bit arithmetic
// in every kernel with a T.dynamic size would cost the common case (more
// registers, 64-bit multiplies in every address) for the rare tensor past
// 2^31 elements; `-findex-bits=64` is the way to launch those.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/IndexWidth.h"

using namespace tilec;

std::optional<IndexBits> tilec::parseIndexBits(const std::string &text) {
  if (text == "auto")
    return IndexBits::Auto;
  if (text == "32")
    return IndexBits::Bits32;
  if (text == "64")
    return IndexBits::Bits64;
  return std::nullopt;
}

std::optional<int64_t> tilec::staticElementCount(const TensorDims &dims) {
  int64_t count = 1;
  for (const std::optional<int64_t> &d : dims)
    if (d && *d > 0 && __builtin_mul_overflow(count, *d, &count))
      return std::nullopt;
  return count;
}

IndexWidthDecision
tilec::decideIndexWidth(const std::vector<TensorDims> &tensors,
                        const std::vector<std::string> &names,
                        IndexBits option) {
  IndexWidthDecision d;
  if (option == IndexBits::Bits64) {
    d.bits = 64;
    d.reason = "-findex-bits=64";
    return d;
  }
  for (size_t k = 0; k < tensors.size(); ++k) {
    std::optional<int64_t> count = staticElementCount(tensors[k]);
    bool dynamic = false;
    for (const std::optional<int64_t> &dim : tensors[k])
      dynamic |= !dim.has_value();
    if (!count || *count > kMaxElements32) {
      // Under -findex-bits=32 elaboration has reported this tensor already.
      if (d.bits == 32 && option == IndexBits::Auto) {
        d.bits = 64;
        d.reason = (k < names.size() ? "`" + names[k] + "`" : "a tensor") +
                   " has " +
                   (count ? std::to_string(*count) : std::string("> 2^63")) +
                   (dynamic ? " elements in its static dimensions alone"
                            : " elements");
      }
      continue;
    }
    // A lone dynamic dimension is itself an int32 launch argument (the
    // header checks it against INT32_MAX): only a product can pass it.
    size_t dynamicDims = 0;
    for (const std::optional<int64_t> &dim : tensors[k])
      dynamicDims += !dim.has_value();
    if (dynamicDims > 1 || (dynamicDims == 1 && *count > 1))
      d.needsLaunchChecks = true;
  }
  if (d.bits == 64)
    d.needsLaunchChecks = false;
  return d;
}
