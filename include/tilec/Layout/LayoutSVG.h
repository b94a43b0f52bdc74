//===- LayoutSVG.h - SVG pictures of layouts --------------------*- C++ -*-===//
//
// `tilec --emit=layouts`: for a fragment, which thread and which register
// hold each element (cells coloured by warp, lighter for higher lanes,
// "T<thread>" over "r<register>"); for a shared buffer, the 4-byte bank of
// each element (coloured by bank) under its swizzle. Each picture is a
// self-contained <svg>; pictures are stacked into one SVG document or put
// on one HTML page. Every cell carries a <title> (a tooltip in browsers)
// with its coordinate, thread, lane, warp and register, or its offset and
// bank. Deterministic: the same layout gives the same bytes.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_LAYOUTSVG_H
#define TILEC_LAYOUT_LAYOUTSVG_H

#include "tilec/Layout/LinearLayout.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace tilec {

/// One picture: an <svg> element and its size in pixels.
struct SVGPicture {
  std::string title;
  std::string svg;
  int width = 0;
  int height = 0;
};

/// A fragment layout with inputs (register, lane, warp) (any may be
/// absent) and outputs dim0..dimN-1: the last dimension runs across, the
/// others (flattened row-major) down. `caption` lines go under the title.
/// The thread of (lane, warp) is lane + lanes * warp.
llvm::Expected<SVGPicture> fragmentSVG(const LinearLayout &layout,
                                       llvm::StringRef title,
                                       llvm::ArrayRef<std::string> caption);

/// A rows x cols shared tile of `elemBytes` elements whose element (r, c)
/// sits at element offset `offset(r, c)`: each cell shows its bank,
/// (offset * elemBytes / 4) % 32.
SVGPicture sharedBanksSVG(llvm::StringRef title,
                          llvm::ArrayRef<std::string> caption, int64_t rows,
                          int64_t cols, int64_t elemBytes,
                          llvm::function_ref<int64_t(int64_t, int64_t)> offset);

/// One SVG document with the pictures stacked top to bottom.
std::string svgDocument(llvm::ArrayRef<SVGPicture> pictures);
/// One HTML page with a heading and an inline SVG per picture.
std::string htmlDocument(llvm::StringRef heading,
                         llvm::ArrayRef<SVGPicture> pictures);

} // namespace tilec

#endif // TILEC_LAYOUT_LAYOUTSVG_H
