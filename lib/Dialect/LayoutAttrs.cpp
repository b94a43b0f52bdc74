//===- LayoutAttrs.cpp - #tile.fragment and #tile.strided -----------------===//
//
// The typed form of the layout decisions tile-infer-layouts records and
// tile-lower-simt follows. A #tile.fragment is lib/Layout's LinearLayout
// with the inputs register, lane and warp and the outputs dim0..: stored as
// its bases, flattened, so that the attribute is uniqued by value and checks
// on its own what it can (equal lengths, no negative coordinate); what
// depends on the tile (one coordinate per dimension, inside the padded
// extent) is checked by the op that carries it (verifyShape), through the
// same LinearLayout::create the passes read it with.
//
// Syntax: `#tile.fragment<register = [(0, 1), (8, 0)], lane = [(0, 2), ...],
// warp = []>`: every input named, in that order, each basis a tuple of one
// coordinate per dimension (parentheses, so that FileCheck patterns can
// spell it: `[[` starts a FileCheck variable).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileDialect.h"

#include "tilec/Layout/AffineLayout.h"
#include "tilec/Layout/PaddedLayout.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {
/// The inputs of a fragment layout, in the order they are printed and in
/// which LinearLayouts built from the attribute list them.
constexpr llvm::StringLiteral kInputs[] = {"register", "lane", "warp"};
} // namespace

//===----------------------------------------------------------------------===//
// Construction and reading
//===----------------------------------------------------------------------===//

FragmentAttr FragmentAttr::get(MLIRContext *ctx, const LinearLayout &layout) {
  // Out dims in tile order (dim0, dim1, ...), whatever the layout's order;
  // an out dim the layout does not name contributes a zero coordinate.
  size_t rank = layout.getNumOutDims();
  SmallVector<int> outPos(rank, -1);
  for (auto [pos, out] : llvm::enumerate(layout.getOutDims()))
    for (size_t d = 0; d < rank; ++d)
      if (out.name == tensorDimName(d))
        outPos[d] = int(pos);
  SmallVector<int32_t> bases[3];
  bool any = false;
  for (auto [i, name] : llvm::enumerate(kInputs))
    for (const LinearLayout::InDim &in : layout.getInDims()) {
      if (in.name != name)
        continue;
      for (const LinearLayout::Basis &basis : in.bases) {
        any = true;
        for (size_t d = 0; d < rank; ++d)
          bases[i].push_back(outPos[d] < 0 ? 0 : basis[outPos[d]]);
      }
    }
  // Without a basis the rank is not written: store it as 0 so that the
  // printed form parses back to the same attribute.
  // The generated builder: the storage class lives in TileDialect.cpp.
  return get(ctx, any ? int64_t(rank) : 0, ArrayRef<int32_t>(bases[0]),
             ArrayRef<int32_t>(bases[1]), ArrayRef<int32_t>(bases[2]));
}

llvm::Expected<LinearLayout>
FragmentAttr::getLinearLayout(ArrayRef<int64_t> shape) const {
  if (getRank() != 0 && getRank() != int64_t(shape.size()))
    return llvm::createStringError("each basis has " + Twine(getRank()) +
                                   " coordinates but the tile has " +
                                   Twine(shape.size()) + " dimensions");
  std::vector<LinearLayout::InDim> ins;
  ArrayRef<int32_t> flat[] = {getRegisterBases(), getLaneBases(),
                              getWarpBases()};
  for (auto [name, values] : llvm::zip_equal(kInputs, flat)) {
    LinearLayout::InDim in{name.str(), {}};
    for (size_t at = 0; at < values.size(); at += shape.size())
      in.bases.emplace_back(values.begin() + at,
                            values.begin() + at + shape.size());
    ins.push_back(std::move(in));
  }
  // A dimension that is not a power of two is laid out over its padded
  // extent (PaddedLayout.h).
  SmallVector<LinearLayout::NamedSize> outs;
  for (auto [d, extent] : llvm::enumerate(paddedShape(shape)))
    outs.push_back({tensorDimName(d), int32_t(extent)});
  return LinearLayout::create(std::move(ins), outs);
}

LogicalResult
FragmentAttr::verifyShape(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> shape, StringRef what) const {
  llvm::Expected<LinearLayout> layout = getLinearLayout(shape);
  if (layout)
    return success();
  std::string why = llvm::toString(layout.takeError());
  InFlightDiagnostic diag = emitError();
  diag << "#tile.fragment does not fit the " << what << " of shape [";
  llvm::interleaveComma(shape, diag);
  return diag << "]: " << why;
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult FragmentAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t rank,
                                   ArrayRef<int32_t> registerBases,
                                   ArrayRef<int32_t> laneBases,
                                   ArrayRef<int32_t> warpBases) {
  ArrayRef<int32_t> flat[] = {registerBases, laneBases, warpBases};
  if (rank < 0 || (rank == 0 && llvm::any_of(flat, [](ArrayRef<int32_t> v) {
                     return !v.empty();
                   })))
    return emitError() << "#tile.fragment bases need at least one "
                          "coordinate each";
  size_t bits = 0;
  for (auto [name, values] : llvm::zip_equal(kInputs, flat)) {
    if (rank && values.size() % size_t(rank))
      return emitError() << "#tile.fragment " << name << " bases are not "
                         << rank << " coordinates each";
    for (int32_t value : values)
      if (value < 0)
        return emitError() << "#tile.fragment " << name << " basis coordinate "
                           << value << " is negative";
    bits += rank ? values.size() / size_t(rank) : 0;
  }
  if (bits > size_t(LinearLayout::kMaxBits))
    return emitError() << "#tile.fragment has " << bits
                       << " input bits; at most " << LinearLayout::kMaxBits;
  return success();
}

LogicalResult StridedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t vec, int64_t realign) {
  if (vec < 1)
    return emitError() << "#tile.strided vec must be at least 1, got " << vec;
  if (realign != 0 && (realign < 2 || !llvm::isPowerOf2_64(realign)))
    return emitError() << "#tile.strided realign must be a power of two of "
                          "at least 2, got "
                       << realign;
  return success();
}

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

/// `[(a, b), (c, d)]`: appends the coordinates to `values` and checks that
/// every basis has `rank` of them (`rank` is set by the first basis seen).
static ParseResult parseBases(AsmParser &parser,
                              SmallVectorImpl<int32_t> &values, int64_t &rank) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        SMLoc at = parser.getCurrentLocation();
        int64_t count = 0;
        if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren,
                                           [&]() -> ParseResult {
                                             int32_t value;
                                             if (parser.parseInteger(value))
                                               return failure();
                                             values.push_back(value);
                                             ++count;
                                             return success();
                                           }))
          return failure();
        if (count == 0)
          return parser.emitError(at, "a basis needs one coordinate per "
                                      "dimension, got none");
        if (rank < 0)
          rank = count;
        else if (count != rank)
          return parser.emitError(at) << "this basis has " << count
                                      << " coordinates, the first one " << rank;
        return success();
      });
}

Attribute FragmentAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t rank = -1;
  SmallVector<int32_t> values[3];
  if (parser.parseLess())
    return {};
  for (auto [i, name] : llvm::enumerate(kInputs)) {
    if ((i && parser.parseComma()) || parser.parseKeyword(name) ||
        parser.parseEqual() || parseBases(parser, values[i], rank))
      return {};
  }
  if (parser.parseGreater())
    return {};
  // ArrayRefs, for the generated getChecked (the storage class lives in
  // TileDialect.cpp).
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    std::max<int64_t>(rank, 0), ArrayRef<int32_t>(values[0]),
                    ArrayRef<int32_t>(values[1]), ArrayRef<int32_t>(values[2]));
}

void FragmentAttr::print(AsmPrinter &printer) const {
  ArrayRef<int32_t> flat[] = {getRegisterBases(), getLaneBases(),
                              getWarpBases()};
  printer << '<';
  for (auto [i, name] : llvm::enumerate(kInputs)) {
    printer << (i ? ", " : "") << name << " = [";
    for (size_t at = 0; at < flat[i].size(); at += size_t(getRank())) {
      printer << (at ? ", (" : "(");
      llvm::interleaveComma(flat[i].slice(at, getRank()), printer);
      printer << ')';
    }
    printer << ']';
  }
  printer << '>';
}
