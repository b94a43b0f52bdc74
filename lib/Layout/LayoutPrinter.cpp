//===- LayoutPrinter.cpp - ASCII pictures of layouts ---------------------===//
//
// Both pictures are a labelled grid of strings; the work is deciding each
// cell's text deterministically (first owner in (thread, register) order).
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LayoutPrinter.h"
#include "tilec/Layout/BankConflicts.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace tilec {

namespace {
/// Column indices on top, row indices on the left, cells right-aligned to
/// the widest entry.
std::string formatGrid(int64_t rows, int64_t cols,
                       ArrayRef<std::string> cells) {
  size_t width = std::to_string(cols - 1).size();
  for (const std::string &cell : cells)
    width = std::max(width, cell.size());
  size_t label = std::to_string(rows - 1).size();
  std::string text;
  raw_string_ostream os(text);
  os.indent(label);
  for (int64_t c = 0; c < cols; ++c)
    os << " " << left_justify("", width - std::to_string(c).size()) << c;
  os << "\n";
  for (int64_t r = 0; r < rows; ++r) {
    std::string index = std::to_string(r);
    os.indent(label - index.size()) << index;
    for (int64_t c = 0; c < cols; ++c) {
      const std::string &cell = cells[r * cols + c];
      os << " ";
      os.indent(width - cell.size()) << cell;
    }
    os << "\n";
  }
  return text;
}
} // namespace

Expected<std::string> renderFragment(const LinearLayout &layout) {
  ArrayRef<LinearLayout::OutDim> outs = layout.getOutDims();
  if (outs.empty() || outs.size() > 2 || outs[0].name != "dim0" ||
      (outs.size() == 2 && outs[1].name != "dim1"))
    return makeLayoutError("a fragment picture needs outputs (dim0) or "
                           "(dim0, dim1), got\n" +
                           layout.toString());
  int64_t rows = outs.size() == 2 ? layout.getOutDimSize("dim0") : 1;
  int64_t cols = outs.size() == 2 ? layout.getOutDimSize("dim1")
                                  : layout.getOutDimSize("dim0");
  int64_t registers = layout.getInDimSize("register");
  int64_t threads = int64_t(layout.getTotalInSize()) / registers;

  std::vector<std::string> cells(size_t(rows * cols));
  SmallVector<int32_t> point(layout.getNumInDims(), 0);
  for (int64_t thread = 0; thread < threads; ++thread) {
    // Spread the thread id over the non-register dims, first one lowest.
    int64_t rest = thread;
    for (auto [index, in] : llvm::enumerate(layout.getInDims())) {
      if (in.name == "register")
        continue;
      point[index] = int32_t(rest & ((int64_t(1) << in.bases.size()) - 1));
      rest >>= in.bases.size();
    }
    for (int64_t reg = 0; reg < registers; ++reg) {
      for (auto [index, in] : llvm::enumerate(layout.getInDims()))
        if (in.name == "register")
          point[index] = int32_t(reg);
      Expected<SmallVector<int32_t>> coord = layout.apply(point);
      if (!coord)
        return coord.takeError();
      int64_t r = outs.size() == 2 ? (*coord)[0] : 0;
      int64_t c = outs.size() == 2 ? (*coord)[1] : (*coord)[0];
      std::string &cell = cells[size_t(r * cols + c)];
      if (cell.empty())
        cell = "T" + std::to_string(thread) + ":" + std::to_string(reg);
    }
  }
  for (std::string &cell : cells)
    if (cell.empty())
      cell = "-";

  std::string header;
  raw_string_ostream os(header);
  os << "fragment " << rows << "x" << cols << ", " << threads << " threads x "
     << registers << " registers";
  if (layout.getNumFreeBits() > 0)
    os << ", " << (int64_t(1) << layout.getNumFreeBits())
       << " copies of each element";
  os << "\n";
  return header + formatGrid(rows, cols, cells);
}

Expected<std::string> renderSharedBanks(const SharedLayout &layout) {
  if (layout.getShape().size() != 2)
    return makeLayoutError("a bank picture needs a 2-D tile, got rank " +
                           Twine(layout.getShape().size()));
  int64_t rows = layout.getShape()[0], cols = layout.getShape()[1];
  std::vector<std::string> cells;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      Expected<int64_t> address = layout.byteOffset({r, c});
      if (!address)
        return address.takeError();
      cells.push_back(std::to_string(bankOf(*address)));
    }
  }
  return "banks of " + layout.summary() + "\n" + formatGrid(rows, cols, cells);
}

} // namespace tilec
