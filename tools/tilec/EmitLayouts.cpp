//===- EmitLayouts.cpp - tilec --emit=layouts -----------------------------===//
//
// The pictures come from the decisions tile-infer-layouts records, read back
// through the same functions the lowering uses (layoutFromAttr for
// fragments, gemm::readSwizzle for shared operands), so a picture shows what
// the generated code does, not a second computation of it.
//
//===----------------------------------------------------------------------===//

#include "EmitLayouts.h"

#include "GemmLayouts.h"
#include "SIMTLayout.h"

#include "tilec/Dialect/TileDialect.h"
#include "tilec/Dialect/TileOps.h"
#include "tilec/Layout/LayoutSVG.h"
#include "tilec/Passes/Passes.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace tilec {

namespace {

std::string elementName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (t.isF32())
    return "float32";
  if (t.isF16())
    return "float16";
  if (t.isBF16())
    return "bfloat16";
  os << t;
  return s;
}

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s;
  for (size_t d = 0; d < shape.size(); ++d)
    s += (d ? "x" : "") + std::to_string(shape[d]);
  return s.empty() ? "scalar" : s;
}

/// LinearLayout::toString() as caption lines.
std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(text).split(parts, '\n', -1, false);
  for (llvm::StringRef p : parts)
    out.push_back(p.str());
  return out;
}

constexpr int64_t kMaxCells = 65536;

} // namespace

FailureOr<std::string> renderLayouts(ModuleOp module, const std::string &chip,
                                     bool html) {
  // The passes read the chip from the module's #tile.target, which the
  // driver set from --target.
  tile::TargetAttr recorded = tile::lookupTarget(module);
  if (!recorded || recorded.getChip() != chip)
    return failure();
  PassManager pm(module.getContext());
  // As the compile runs them (passes/Pipeline.cpp): the guards of global
  // accesses are in the loops whose layouts are pictured.
  pm.addPass(createTileGuardGlobalAccesses());
  pm.addPass(createTileDecomposeScan());
  pm.addPass(createTileInferLayouts());
  pm.addPass(createTilePlanPipeline());
  if (failed(pm.run(module)))
    return failure();

  std::vector<SVGPicture> pictures;
  bool failedAny = false;
  module.walk([&](func::FuncOp func) {
    if (!func->hasAttr(tile::TileDialect::getKernelFuncAttrName()))
      return;
    func.walk([&](tile::AllocOp alloc) {
      auto type = dyn_cast<MemRefType>(alloc.getResult().getType());
      if (!type || type.getRank() == 0)
        return;
      std::optional<tile::MemorySpace> spaceOf = tile::getMemorySpace(type);
      if (!spaceOf)
        return;
      tile::MemorySpace space = *spaceOf;
      ArrayRef<int64_t> shape = type.getShape();
      int64_t cells = type.getNumElements();
      std::string name = alloc.getName().str();
      std::string what = func.getName().str() + " / " + name + ": ";
      Type elem = type.getElementType();
      int64_t elemBytes =
          std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
      if (space == tile::MemorySpace::fragment) {
        std::string title =
            what + "fragment " + shapeText(shape) + " " + elementName(elem);
        tile::FragmentAttr attr = alloc.getLayoutAttr();
        if (!attr) {
          alloc.emitWarning() << "fragment `" << name
                              << "` has no layout (is it unused?); not drawn";
          return;
        }
        std::string error;
        std::optional<LinearLayout> layout =
            simt::layoutFromAttr(attr, shape, error);
        if (!layout) {
          alloc.emitError()
              << "cannot read the layout of `" << name << "`: " << error;
          failedAny = true;
          return;
        }
        if (cells > kMaxCells) {
          alloc.emitWarning() << "fragment `" << name << "` has " << cells
                              << " elements; pictures stop at " << kMaxCells;
          return;
        }
        auto size = [&](StringRef in) -> int64_t {
          return layout->hasInDim(in) ? layout->getInDimSize(in) : 1;
        };
        std::vector<std::string> caption = {
            std::to_string(size("lane") * size("warp")) + " threads (" +
            std::to_string(size("warp")) + " warps of " +
            std::to_string(size("lane")) + ") x " +
            std::to_string(size("register")) +
            " registers; a cell reads T<thread> over r<register>, coloured by "
            "warp"};
        if (layout->getNumFreeBits() > 0)
          caption.push_back(
              "each element is held " +
              std::to_string(int64_t(1) << layout->getNumFreeBits()) +
              " times (replicated bits); a cell shows its first holder");
        for (const std::string &l : lines(layout->toString()))
          caption.push_back(l);
        llvm::Expected<SVGPicture> pic = fragmentSVG(*layout, title, caption);
        if (!pic) {
          alloc.emitError() << llvm::toString(pic.takeError());
          failedAny = true;
          return;
        }
        pictures.push_back(std::move(*pic));
        return;
      }
      if (space != tile::MemorySpace::shared)
        return;
      if (cells > kMaxCells) {
        alloc.emitWarning() << "shared buffer `" << name << "` has " << cells
                            << " elements; pictures stop at " << kMaxCells;
        return;
      }
      int64_t cols = shape.back(), rows = cells / std::max<int64_t>(cols, 1);
      XorSwizzle swizzle = gemm::readSwizzle(alloc);
      int64_t atom = gemm::readSwizzleAtom(alloc);
      std::vector<std::string> caption;
      if (swizzle.bits) {
        // "128B": the width as TMA and wgmma name it.
        std::string mode = "?";
        if (auto attr = alloc->getAttrOfType<tile::SwizzleAttr>(
                gemm::kSharedLayoutAttr))
          mode = std::to_string(16 << int(attr.getMode())) + "B";
        caption.push_back(
            "swizzled " + mode + ": element offset = Swizzle<" +
            std::to_string(swizzle.bits) + "," + std::to_string(swizzle.base) +
            "," + std::to_string(swizzle.shift) +
            ">(row-major offset), bits [" + std::to_string(swizzle.base) +
            ", " + std::to_string(swizzle.base + swizzle.bits) +
            ") XOR bits [" + std::to_string(swizzle.base + swizzle.shift) +
            ", " + std::to_string(swizzle.base + swizzle.shift + swizzle.bits) +
            ")");
        if (atom)
          caption.push_back("in atoms of " + std::to_string(atom) +
                            " columns, each stored whole (rows x " +
                            std::to_string(atom) +
                            ") and swizzled on its own offset");
      } else {
        caption.push_back("row-major, not swizzled");
      }
      caption.push_back(std::to_string(elemBytes) +
                        "-byte elements; a cell shows its 4-byte bank, (byte "
                        "offset / 4) % 32");
      if (auto stages = alloc->getAttrOfType<IntegerAttr>("tile.num_stages"))
        caption.push_back("a ring of " + std::to_string(stages.getInt()) +
                          " stages (T.Pipelined); every stage has this layout");
      std::string title =
          what + "shared " + shapeText(shape) + " " + elementName(elem);
      pictures.push_back(sharedBanksSVG(
          title, caption, rows, cols, elemBytes, [&](int64_t r, int64_t c) {
            return gemm::swizzledOffset(rows, cols, swizzle, atom, r, c);
          }));
    });
  });
  // T.Parallel loops: which thread runs which iteration (the same picture,
  // over the iteration space).
  module.walk([&](func::FuncOp func) {
    if (!func->hasAttr(tile::TileDialect::getKernelFuncAttrName()))
      return;
    func.walk([&](tile::ParallelOp loop) {
      // Strided loops (tails, non-power-of-two extents) have no linear
      // layout to draw.
      tile::FragmentAttr attr = loop.getFragmentLayout();
      SmallVector<int64_t> extents = llvm::to_vector(loop.getExtents());
      int64_t cells = 1;
      for (int64_t e : extents)
        cells *= e;
      std::string title = func.getName().str() + " / T.Parallel(" +
                          shapeText(extents) + ") at " +
                          simt::formatLoc(loop.getLoc());
      if (!attr || cells > kMaxCells)
        return;
      std::string error;
      std::optional<LinearLayout> layout =
          simt::layoutFromAttr(attr, extents, error);
      if (!layout)
        return;
      std::vector<std::string> caption = {
          "iteration -> thread and register (loop register = unrolled "
          "iteration of that thread)"};
      for (const std::string &l : lines(layout->toString()))
        caption.push_back(l);
      llvm::Expected<SVGPicture> pic = fragmentSVG(*layout, title, caption);
      if (!pic) {
        llvm::consumeError(pic.takeError());
        return;
      }
      pictures.push_back(std::move(*pic));
    });
  });
  if (failedAny)
    return failure();
  if (pictures.empty()) {
    module.emitError()
        << "no fragment, shared buffer or T.Parallel loop to draw";
    return failure();
  }
  std::string heading = "tilec layouts";
  if (auto src = module->getAttrOfType<StringAttr>("tile.source"))
    heading += " of " + src.str();
  return html ? htmlDocument(heading, pictures) : svgDocument(pictures);
}

} // namespace tilec
