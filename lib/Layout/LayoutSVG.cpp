//===- LayoutSVG.cpp - SVG pictures of layouts ----------------------------===//
//
// Plain string building: a picture is a grid of <rect>+<text> cells under a
// title and caption. Cell text is two short lines so that a 128x128
// accumulator (16384 cells) stays legible when zoomed and the file stays a
// few megabytes.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LayoutSVG.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace tilec {

namespace {

constexpr int kCellW = 34, kCellH = 24, kLabelW = 36, kLabelH = 16;
constexpr int kTitleH = 22, kCaptionH = 15, kMargin = 8;

std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// HSL -> "#rrggbb" (h in degrees, s and l in [0, 1]).
std::string hsl(double h, double s, double l) {
  auto f = [&](double n) {
    double k = std::fmod(n + h / 30.0, 12.0);
    double a = s * std::min(l, 1 - l);
    double v = l - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0}));
    return int(std::lround(v * 255));
  };
  std::string out;
  raw_string_ostream os(out);
  os << "#" << format_hex_no_prefix(f(0), 2) << format_hex_no_prefix(f(8), 2)
     << format_hex_no_prefix(f(4), 2);
  return out;
}

/// The frame of a picture: title, caption, column and row labels.
struct Canvas {
  std::string body;
  raw_string_ostream os{body};
  int top = 0;

  Canvas(StringRef title, ArrayRef<std::string> caption) {
    os << "<text x=\"" << kMargin << "\" y=\"" << kMargin + 14
       << "\" font-size=\"15\" font-weight=\"bold\">" << escape(title)
       << "</text>\n";
    top = kMargin + kTitleH;
    for (const std::string &line : caption) {
      os << "<text x=\"" << kMargin << "\" y=\"" << top + 11
         << "\" font-size=\"11\" font-family=\"monospace\" xml:space=\"preserve\">" << escape(line)
         << "</text>\n";
      top += kCaptionH;
    }
    top += 4;
  }
  int gridX() const { return kMargin + kLabelW; }
  int gridY() const { return top + kLabelH; }
  void labels(int64_t rows, int64_t cols) {
    for (int64_t c = 0; c < cols; ++c)
      os << "<text x=\"" << gridX() + c * kCellW + kCellW / 2 << "\" y=\""
         << top + 12 << "\" font-size=\"10\" text-anchor=\"middle\">" << c
         << "</text>\n";
    for (int64_t r = 0; r < rows; ++r)
      os << "<text x=\"" << gridX() - 4 << "\" y=\""
         << gridY() + r * kCellH + kCellH / 2 + 4
         << "\" font-size=\"10\" text-anchor=\"end\">" << r << "</text>\n";
  }
  void cell(int64_t r, int64_t c, StringRef fill, StringRef line1,
            StringRef line2, StringRef tip) {
    int64_t x = gridX() + c * kCellW, y = gridY() + r * kCellH;
    os << "<g><title>" << escape(tip) << "</title><rect x=\"" << x << "\" y=\""
       << y << "\" width=\"" << kCellW << "\" height=\"" << kCellH
       << "\" fill=\"" << fill << "\" stroke=\"#ffffff\" stroke-width=\"1\"/>";
    if (line2.empty()) {
      os << "<text x=\"" << x + kCellW / 2 << "\" y=\"" << y + kCellH / 2 + 4
         << "\" font-size=\"11\" text-anchor=\"middle\">" << escape(line1)
         << "</text>";
    } else {
      os << "<text x=\"" << x + kCellW / 2 << "\" y=\"" << y + 10
         << "\" font-size=\"9\" text-anchor=\"middle\">" << escape(line1)
         << "</text><text x=\"" << x + kCellW / 2 << "\" y=\"" << y + 20
         << "\" font-size=\"9\" text-anchor=\"middle\">" << escape(line2)
         << "</text>";
    }
    os << "</g>\n";
  }
  SVGPicture finish(StringRef title, int64_t rows, int64_t cols,
                    size_t captionWidth) {
    SVGPicture p;
    p.title = title.str();
    p.width = int(std::max<int64_t>(gridX() + cols * kCellW + kMargin,
                                    int64_t(captionWidth) * 7 + 2 * kMargin));
    p.height = int(gridY() + rows * kCellH + kMargin);
    std::string svg;
    raw_string_ostream s(svg);
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << p.width
      << "\" height=\"" << p.height << "\" viewBox=\"0 0 " << p.width << " "
      << p.height << "\" font-family=\"sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      << body << "</svg>\n";
    p.svg = std::move(svg);
    return p;
  }
};

size_t widest(StringRef title, ArrayRef<std::string> caption) {
  size_t w = title.size() + 4;
  for (const std::string &line : caption)
    w = std::max(w, line.size());
  return w;
}

} // namespace

Expected<SVGPicture> fragmentSVG(const LinearLayout &layout, StringRef title,
                                 ArrayRef<std::string> caption) {
  ArrayRef<LinearLayout::OutDim> outs = layout.getOutDims();
  size_t rank = outs.size();
  SmallVector<int64_t> extent(rank), outIndex(rank);
  for (size_t d = 0; d < rank; ++d) {
    std::string name = "dim" + std::to_string(d);
    auto it = llvm::find_if(outs, [&](const auto &o) { return o.name == name; });
    if (it == outs.end())
      return createStringError("a fragment picture needs outputs dim0..dim" +
                               std::to_string(rank - 1) + ", got\n" +
                               layout.toString());
    outIndex[d] = it - outs.begin();
    extent[d] = int64_t(1) << it->log2Size;
  }
  int64_t cols = rank ? extent[rank - 1] : 1, rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d)
    rows *= extent[d];
  auto inSize = [&](StringRef name) -> int64_t {
    return layout.hasInDim(name) ? layout.getInDimSize(name) : 1;
  };
  int64_t regs = inSize("register"), lanes = inSize("lane"),
          warps = inSize("warp");
  for (const LinearLayout::InDim &in : layout.getInDims())
    if (in.name != "register" && in.name != "lane" && in.name != "warp")
      return createStringError("a fragment picture needs inputs register, "
                               "lane, warp; got `" + in.name + "`");

  // First owner of each element, in (thread, register) order, and how many
  // (thread, register) pairs hold it.
  struct Owner {
    int64_t thread = -1, reg = -1, copies = 0;
  };
  std::vector<Owner> owner(size_t(rows * cols));
  for (int64_t w = 0; w < warps; ++w)
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t r = 0; r < regs; ++r) {
        SmallVector<LinearLayout::NamedValue, 3> in;
        if (layout.hasInDim("register"))
          in.push_back({"register", int32_t(r)});
        if (layout.hasInDim("lane"))
          in.push_back({"lane", int32_t(l)});
        if (layout.hasInDim("warp"))
          in.push_back({"warp", int32_t(w)});
        Expected<SmallVector<LinearLayout::NamedValue>> out = layout.apply(in);
        if (!out)
          return out.takeError();
        SmallVector<int64_t> coord(rank);
        for (const auto &[name, value] : *out)
          for (size_t d = 0; d < rank; ++d)
            if (name == "dim" + std::to_string(d))
              coord[d] = value;
        int64_t row = 0;
        for (size_t d = 0; d + 1 < rank; ++d)
          row = row * extent[d] + coord[d];
        Owner &o = owner[size_t(row * cols + (rank ? coord[rank - 1] : 0))];
        if (o.copies++ == 0) {
          o.thread = l + lanes * w;
          o.reg = r;
        }
      }

  Canvas canvas(title, caption);
  canvas.labels(rows, cols);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t col = 0; col < cols; ++col) {
      const Owner &o = owner[size_t(row * cols + col)];
      // Spell the coordinate as the buffer's: (i, j, k).
      SmallVector<int64_t> coord(rank);
      int64_t rest = row;
      for (size_t d = rank >= 2 ? rank - 1 : 0; d-- > 0;) {
        coord[d] = rest % extent[d];
        rest /= extent[d];
      }
      if (rank)
        coord[rank - 1] = col;
      std::string where = "(";
      for (size_t d = 0; d < rank; ++d)
        where += (d ? ", " : "") + std::to_string(coord[d]);
      where += ")";
      if (o.copies == 0) {
        canvas.cell(row, col, "#dddddd", "-", "", where + ": held by no thread");
        continue;
      }
      int64_t warp = o.thread / lanes, lane = o.thread % lanes;
      double hue = warps > 1 ? 360.0 * double(warp) / double(warps) : 210;
      double light = 0.88 - 0.28 * double(lane) / double(std::max<int64_t>(lanes - 1, 1));
      std::string tip = where + ": thread " + std::to_string(o.thread) +
                        " (warp " + std::to_string(warp) + ", lane " +
                        std::to_string(lane) + "), register " +
                        std::to_string(o.reg);
      if (o.copies > 1)
        tip += "; held " + std::to_string(o.copies) + " times";
      canvas.cell(row, col, hsl(hue, 0.65, light), "T" + std::to_string(o.thread),
                  "r" + std::to_string(o.reg), tip);
    }
  return canvas.finish(title, rows, cols, widest(title, caption));
}

SVGPicture sharedBanksSVG(StringRef title, ArrayRef<std::string> caption,
                          int64_t rows, int64_t cols, int64_t elemBytes,
                          function_ref<int64_t(int64_t, int64_t)> offset) {
  Canvas canvas(title, caption);
  canvas.labels(rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t off = offset(r, c);
      int64_t byte = off * elemBytes;
      int64_t bank = (byte / 4) % 32;
      std::string tip = "(" + std::to_string(r) + ", " + std::to_string(c) +
                        "): element offset " + std::to_string(off) +
                        ", byte " + std::to_string(byte) + ", bank " +
                        std::to_string(bank);
      // Banks 8 apart get distant hues, so the 8 groups of 4 banks an
      // ldmatrix phase must hit are told apart at a glance.
      double hue = double((bank % 8) * 45 + (bank / 8) * 11);
      double light = 0.80 - 0.06 * double(bank / 8);
      canvas.cell(r, c, hsl(hue, 0.6, light), std::to_string(bank), "", tip);
    }
  return canvas.finish(title, rows, cols, widest(title, caption));
}

std::string svgDocument(ArrayRef<SVGPicture> pictures) {
  int width = 0, height = 0;
  for (const SVGPicture &p : pictures) {
    width = std::max(width, p.width);
    height += p.height;
  }
  std::string out;
  raw_string_ostream os(out);
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
     << height << "\">\n";
  int y = 0;
  for (const SVGPicture &p : pictures) {
    // A nested <svg> keeps each picture's own coordinates.
    std::string inner = p.svg;
    inner.insert(4, " x=\"0\" y=\"" + std::to_string(y) + "\"");
    os << inner;
    y += p.height;
  }
  os << "</svg>\n";
  return out;
}

std::string htmlDocument(StringRef heading, ArrayRef<SVGPicture> pictures) {
  std::string out;
  raw_string_ostream os(out);
  os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
     << escape(heading) << "</title></head>\n<body style=\"font-family: "
     << "sans-serif\">\n<h1>" << escape(heading) << "</h1>\n";
  for (const SVGPicture &p : pictures)
    os << "<h2>" << escape(p.title) << "</h2>\n<div>" << p.svg << "</div>\n";
  os << "</body></html>\n";
  return out;
}

} // namespace tilec
