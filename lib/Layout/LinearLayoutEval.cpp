//===- LinearLayoutEval.cpp - Queries, evaluation, printing ---------------===//
//
// Reading a LinearLayout: dimension sizes, apply (positional, named, flat),
// the flat column view the GF(2) algorithms work on, equality, toString.
//
//===----------------------------------------------------------------------===//

#include "Checks.h"
#include "tilec/Layout/LinearLayout.h"

using namespace llvm;
using namespace tilec::detail;

namespace tilec {

//===----------------------------------------------------------------------===//
// Queries and evaluation
//===----------------------------------------------------------------------===//

int LinearLayout::inIndex(StringRef name) const {
  for (auto [index, in] : llvm::enumerate(inDims))
    if (in.name == name)
      return int(index);
  return -1;
}

int LinearLayout::outIndex(StringRef name) const {
  for (auto [index, out] : llvm::enumerate(outDims))
    if (out.name == name)
      return int(index);
  return -1;
}

SmallVector<std::string> LinearLayout::getInDimNames() const {
  SmallVector<std::string> names;
  for (const InDim &in : inDims)
    names.push_back(in.name);
  return names;
}

SmallVector<std::string> LinearLayout::getOutDimNames() const {
  SmallVector<std::string> names;
  for (const OutDim &out : outDims)
    names.push_back(out.name);
  return names;
}

SmallVector<LinearLayout::NamedSize> LinearLayout::inSizes() const {
  SmallVector<NamedSize> sizes;
  for (const InDim &in : inDims)
    sizes.push_back({in.name, int32_t(1) << in.bases.size()});
  return sizes;
}

SmallVector<LinearLayout::NamedSize> LinearLayout::outSizes() const {
  SmallVector<NamedSize> sizes;
  for (const OutDim &out : outDims)
    sizes.push_back({out.name, int32_t(1) << out.log2Size});
  return sizes;
}

int32_t LinearLayout::getInDimSizeLog2(StringRef name) const {
  int index = inIndex(name);
  return index < 0 ? 0 : int32_t(inDims[index].bases.size());
}

int32_t LinearLayout::getOutDimSizeLog2(StringRef name) const {
  int index = outIndex(name);
  return index < 0 ? 0 : outDims[index].log2Size;
}

int LinearLayout::getTotalInBits() const {
  int bits = 0;
  for (const InDim &in : inDims)
    bits += int(in.bases.size());
  return bits;
}

int LinearLayout::getTotalOutBits() const {
  int bits = 0;
  for (const OutDim &out : outDims)
    bits += out.log2Size;
  return bits;
}

Expected<LinearLayout::Basis> LinearLayout::getBasis(StringRef inDim,
                                                     int bit) const {
  int index = inIndex(inDim);
  if (index < 0 || bit < 0 || size_t(bit) >= inDims[index].bases.size())
    return makeLayoutError("no bit " + Twine(bit) + " in input dimension `" +
                           inDim + "`");
  return inDims[index].bases[bit];
}

Expected<SmallVector<int32_t>>
LinearLayout::apply(ArrayRef<int32_t> ins) const {
  if (ins.size() != inDims.size())
    return makeLayoutError("apply got " + Twine(ins.size()) + " values for " +
                           Twine(inDims.size()) + " input dimensions");
  SmallVector<int32_t> out(outDims.size(), 0);
  for (auto [value, in] : llvm::zip(ins, inDims)) {
    if (value < 0 || int64_t(value) >= (int64_t(1) << in.bases.size()))
      return makeLayoutError("value " + Twine(value) + " is outside `" +
                             in.name + "` of size " +
                             Twine(int64_t(1) << in.bases.size()));
    for (auto [bit, basis] : llvm::enumerate(in.bases))
      if ((value >> bit) & 1)
        for (size_t o = 0; o < out.size(); ++o)
          out[o] ^= basis[o];
  }
  return out;
}

Expected<SmallVector<LinearLayout::NamedValue>>
LinearLayout::apply(ArrayRef<NamedValue> ins) const {
  SmallVector<int32_t> values(inDims.size(), 0);
  SmallVector<bool> given(inDims.size(), false);
  for (const auto &[name, value] : ins) {
    int index = inIndex(name);
    if (index < 0)
      return makeLayoutError("no input dimension `" + name + "`");
    if (given[index])
      return makeLayoutError("input dimension `" + name + "` given twice");
    given[index] = true;
    values[index] = value;
  }
  Expected<SmallVector<int32_t>> out = apply(values);
  if (!out)
    return out.takeError();
  SmallVector<NamedValue> named;
  for (auto [value, dim] : llvm::zip(*out, outDims))
    named.push_back({dim.name, value});
  return named;
}

SmallVector<uint64_t> LinearLayout::getFlatColumns() const {
  SmallVector<uint64_t> columns;
  for (const InDim &in : inDims) {
    for (const Basis &basis : in.bases) {
      uint64_t flat = 0;
      int shift = 0;
      for (auto [value, out] : llvm::zip(basis, outDims)) {
        flat |= uint64_t(value) << shift;
        shift += out.log2Size;
      }
      columns.push_back(flat);
    }
  }
  return columns;
}

Expected<uint64_t> LinearLayout::applyFlat(uint64_t flatIn) const {
  if (flatIn >= getTotalInSize())
    return makeLayoutError("flat input " + Twine(flatIn) +
                           " is outside the input space of size " +
                           Twine(getTotalInSize()));
  uint64_t out = 0;
  for (auto [bit, column] : llvm::enumerate(getFlatColumns()))
    if ((flatIn >> bit) & 1)
      out ^= column;
  return out;
}

//===----------------------------------------------------------------------===//
// Equality and printing
//===----------------------------------------------------------------------===//

bool LinearLayout::operator==(const LinearLayout &other) const {
  if (inDims.size() != other.inDims.size() ||
      outDims.size() != other.outDims.size())
    return false;
  for (auto [a, b] : llvm::zip(outDims, other.outDims))
    if (a.name != b.name || a.log2Size != b.log2Size)
      return false;
  for (auto [a, b] : llvm::zip(inDims, other.inDims))
    if (a.name != b.name || a.bases != b.bases)
      return false;
  return true;
}

std::string LinearLayout::toString() const {
  std::string text;
  raw_string_ostream os(text);
  auto printSizes = [&](ArrayRef<NamedSize> sizes) {
    os << "(";
    for (auto [index, dim] : llvm::enumerate(sizes))
      os << (index ? ", " : "") << dim.first << ":" << dim.second;
    os << ")";
  };
  printSizes(inSizes());
  os << " -> ";
  printSizes(outSizes());
  for (const InDim &in : inDims) {
    os << "\n  " << in.name << ":";
    if (in.bases.empty())
      os << " -";
    for (const Basis &basis : in.bases) {
      os << " [";
      for (auto [index, value] : llvm::enumerate(basis))
        os << (index ? "," : "") << value;
      os << "]";
    }
  }
  return text;
}

raw_ostream &operator<<(raw_ostream &os, const LinearLayout &layout) {
  return os << layout.toString();
}

} // namespace tilec
