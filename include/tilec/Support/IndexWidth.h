//===- IndexWidth.h - Which kernels need 64-bit element offsets -*- C++ -*-===//
//
// A kernel's index arithmetic (`index` in the LLVM lowering: loop counters,
// thread coordinates, element offsets) is 32 bits wide unless one of its
// global tensors can hold more elements than a signed 32-bit offset can
// address. This is the decision, kept MLIR-free so that it can be unit
// tested: MLIRGen records it on every prim_func as `tile.index_bits`
// (lib/MLIRGen/IndexLimits.cpp), tile-lower-simt and the LLVM lowering read
// it per kernel (docs/language.md, "Index width").
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_INDEXWIDTH_H
#define TILEC_SUPPORT_INDEXWIDTH_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// `-findex-bits=`: `auto` proves per kernel, 32 and 64 force a width.
enum class IndexBits { Auto = 0, Bits32 = 32, Bits64 = 64 };

/// Parses "auto", "32" or "64".
std::optional<IndexBits> parseIndexBits(const std::string &text);

/// One global tensor of a kernel: its dimensions, nullopt for a run-time
/// (T.dynamic) one.
using TensorDims = std::vector<std::optional<int64_t>>;

struct IndexWidthDecision {
  /// 32 or 64.
  unsigned bits = 32;
  /// 32 bits only: the launch header must check that each tensor with
  /// run-time dimensions stays within INT32_MAX elements (the proof holds
  /// for the sizes the launch passes, not for every size).
  bool needsLaunchChecks = false;
  /// Why, for messages: the first tensor that needs 64 bits, or "".
  std::string reason;
};

/// The largest element count a 32-bit kernel addresses: every in-bounds
/// element offset of a tensor is below its element count, so a tensor of
/// at most INT32_MAX elements has only offsets a signed 32-bit index holds.
constexpr int64_t kMaxElements32 = INT32_MAX;
/// The largest static element count tilec accepts at all: 2^59 elements of
/// at most 8 bytes keep every byte offset within int64.
constexpr int64_t kMaxElements64 = int64_t(1) << 59;

/// The product of the static dimensions, nullopt past int64.
std::optional<int64_t> staticElementCount(const TensorDims &dims);

/// The decision for a kernel whose global tensors are `tensors` (`names`
/// parallel to it, for the reason; may be empty).
IndexWidthDecision decideIndexWidth(const std::vector<TensorDims> &tensors,
                                    const std::vector<std::string> &names,
                                    IndexBits option);

} // namespace tilec

#endif // TILEC_SUPPORT_INDEXWIDTH_H
