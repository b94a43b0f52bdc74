//===- LayoutPrinterTest.cpp - Pictures of layouts ------------------------===//
//
// Snapshots small enough to check by eye against the PTX ISA figures (the
// m16n8 accumulator: c0/c1 of lane l at row l/4, columns 2(l%4) and
// 2(l%4)+1; c2/c3 eight rows below) and the bank pictures of a swizzled
// and a row-major tile; plus the owner chosen for replicated elements.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/LayoutPrinter.h"
#include "tilec/Layout/BlockedLayout.h"
#include "tilec/Layout/MmaLayouts.h"

#include <catch2/catch.hpp>

#include "LayoutTestSupport.h"

#include <sstream>

using namespace tilec;
using llvm::Expected;

using layout_test::errorOf;
using layout_test::unwrap;

namespace {
} // namespace

TEST_CASE("fragment picture of the mma accumulator", "[layout][print]") {
  CHECK(unwrap(renderFragment(mmaM16N8K16Accumulator())) ==
        "fragment 16x8, 32 threads x 4 registers\n"
        "       0     1     2     3     4     5     6     7\n"
        " 0  T0:0  T0:1  T1:0  T1:1  T2:0  T2:1  T3:0  T3:1\n"
        " 1  T4:0  T4:1  T5:0  T5:1  T6:0  T6:1  T7:0  T7:1\n"
        " 2  T8:0  T8:1  T9:0  T9:1 T10:0 T10:1 T11:0 T11:1\n"
        " 3 T12:0 T12:1 T13:0 T13:1 T14:0 T14:1 T15:0 T15:1\n"
        " 4 T16:0 T16:1 T17:0 T17:1 T18:0 T18:1 T19:0 T19:1\n"
        " 5 T20:0 T20:1 T21:0 T21:1 T22:0 T22:1 T23:0 T23:1\n"
        " 6 T24:0 T24:1 T25:0 T25:1 T26:0 T26:1 T27:0 T27:1\n"
        " 7 T28:0 T28:1 T29:0 T29:1 T30:0 T30:1 T31:0 T31:1\n"
        " 8  T0:2  T0:3  T1:2  T1:3  T2:2  T2:3  T3:2  T3:3\n"
        " 9  T4:2  T4:3  T5:2  T5:3  T6:2  T6:3  T7:2  T7:3\n"
        "10  T8:2  T8:3  T9:2  T9:3 T10:2 T10:3 T11:2 T11:3\n"
        "11 T12:2 T12:3 T13:2 T13:3 T14:2 T14:3 T15:2 T15:3\n"
        "12 T16:2 T16:3 T17:2 T17:3 T18:2 T18:3 T19:2 T19:3\n"
        "13 T20:2 T20:3 T21:2 T21:3 T22:2 T22:3 T23:2 T23:3\n"
        "14 T24:2 T24:3 T25:2 T25:3 T26:2 T26:3 T27:2 T27:3\n"
        "15 T28:2 T28:3 T29:2 T29:3 T30:2 T30:3 T31:2 T31:3\n");
}

TEST_CASE("fragment pictures of blocked and replicated layouts",
          "[layout][print]") {
  CHECK(unwrap(renderFragment(unwrap(blockedLayout({4, 8}, 2, 8)))) ==
        "fragment 4x8, 8 threads x 4 registers\n"
        "     0    1    2    3    4    5    6    7\n"
        "0 T0:0 T0:1 T1:0 T1:1 T2:0 T2:1 T3:0 T3:1\n"
        "1 T4:0 T4:1 T5:0 T5:1 T6:0 T6:1 T7:0 T7:1\n"
        "2 T0:2 T0:3 T1:2 T1:3 T2:2 T2:3 T3:2 T3:3\n"
        "3 T4:2 T4:3 T5:2 T5:3 T6:2 T6:3 T7:2 T7:3\n");
  // 1-D, more threads than vectors: one row, the lowest thread named.
  CHECK(unwrap(renderFragment(unwrap(blockedLayout({8}, 2, 8)))) ==
        "fragment 1x8, 8 threads x 2 registers, 2 copies of each element\n"
        "     0    1    2    3    4    5    6    7\n"
        "0 T0:0 T0:1 T1:0 T1:1 T2:0 T2:1 T3:0 T3:1\n");
  // Operand A on 2x2 warps: warps 2 and 3 (along N) copy warps 0 and 1,
  // so every cell names a thread of warp 0 or 1.
  std::string picture =
      unwrap(renderFragment(unwrap(mmaOperandALayout(32, 16, {2, 2}))));
  CHECK(picture.rfind("fragment 32x16, 128 threads x 8 registers, 2 copies "
                      "of each element\n",
                      0) == 0);
  std::istringstream cells(picture.substr(picture.find('\n', 0) + 1));
  std::string token;
  int maxThread = -1;
  while (cells >> token)
    if (token[0] == 'T')
      maxThread = std::max(maxThread, std::stoi(token.substr(1)));
  CHECK(maxThread == 63);
  CHECK(errorOf(renderFragment(unwrap(ldmatrixResultLayout(4, false))))
            .find("needs outputs (dim0) or (dim0, dim1)") != std::string::npos);
}

TEST_CASE("bank pictures of swizzled and row-major tiles", "[layout][print]") {
  // fp32 rows of 64 bytes: the 64B swizzle XORs the 16-byte chunk with
  // row bits 1..2, so row pairs cover all 32 banks in a new order.
  CHECK(unwrap(renderSharedBanks(
            unwrap(SharedLayout::swizzled(8, 16, 4, SwizzleMode::Bytes64)))) ==
        "banks of swizzled 64B 8x16 x 4B\n"
        "   0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15\n"
        "0  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15\n"
        "1 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31\n"
        "2  4  5  6  7  0  1  2  3 12 13 14 15  8  9 10 11\n"
        "3 20 21 22 23 16 17 18 19 28 29 30 31 24 25 26 27\n"
        "4  8  9 10 11 12 13 14 15  0  1  2  3  4  5  6  7\n"
        "5 24 25 26 27 28 29 30 31 16 17 18 19 20 21 22 23\n"
        "6 12 13 14 15  8  9 10 11  4  5  6  7  0  1  2  3\n"
        "7 28 29 30 31 24 25 26 27 20 21 22 23 16 17 18 19\n");
  CHECK(unwrap(renderSharedBanks(unwrap(SharedLayout::rowMajor({4, 16}, 4)))) ==
        "banks of row-major 4x16 x 4B\n"
        "   0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15\n"
        "0  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15\n"
        "1 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31\n"
        "2  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15\n"
        "3 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31\n");
  CHECK(unwrap(renderSharedBanks(unwrap(SharedLayout::padded({2, 8}, 2, 8)))) ==
        "banks of padded 2x8 x 2B\n"
        "   0  1  2  3  4  5  6  7\n"
        "0  0  0  1  1  2  2  3  3\n"
        "1  8  8  9  9 10 10 11 11\n");
  CHECK(errorOf(renderSharedBanks(unwrap(SharedLayout::rowMajor({4, 4, 4}, 2))))
            .find("2-D tile") != std::string::npos);
}

TEST_CASE("shared layout summaries", "[layout][print]") {
  CHECK(unwrap(SharedLayout::swizzled(8, 32, 4, SwizzleMode::Bytes128))
            .toString() ==
        "swizzled 128B 8x32 x 4B\n"
        "(offset:256) -> (dim0:8, dim1:32)\n"
        "  offset: [0,1] [0,2] [0,4] [0,8] [0,16] [1,4] [2,8] [4,16]");
  CHECK(unwrap(SharedLayout::padded({64, 32}, 2, 8)).toString() ==
        "padded 64x32 x 2B (64,32):(40,1)");
}
