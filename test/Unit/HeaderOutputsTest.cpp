//===- HeaderOutputsTest.cpp - T.empty outputs in the header and JSON -----===//
//
// An eager-style factory's `T.empty` tensors are launch arguments like any
// tensor; the description marks them so that the header documents them and
// the metadata JSON tells a bindings generator which tensors to allocate.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Header.h"

#include <catch2/catch.hpp>

using namespace tilec::header;

namespace {

Param tensorParam(std::string name, bool output) {
  Param p;
  p.kind = Param::Kind::Tensor;
  p.name = std::move(name);
  p.dtype = "float32";
  p.shape = {"n"};
  p.output = output;
  return p;
}

Unit axpyUnit() {
  Unit unit;
  unit.sourceFile = "axpy.tile";
  unit.compilerVersion = "0.1.0";
  unit.image = {ImageKind::PTX, "sm_90a", ".version 8.0\n"};
  Function f;
  f.name = "axpy";
  Param n;
  n.kind = Param::Kind::Symbol;
  n.name = "n";
  n.dtype = "int32";
  f.params = {tensorParam("X", false), tensorParam("Z", true), n};
  KernelLaunch k;
  k.entry = "axpy_kernel";
  k.grid = {"(n + 255) / 256", "1", "1"};
  k.block = {256, 1, 1};
  for (unsigned i = 0; i < 3; ++i)
    k.args.push_back(KernelArg::ofParam(i));
  f.kernels.push_back(k);
  unit.functions.push_back(f);
  return unit;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("T.empty outputs are marked in the JSON and read back",
          "[header]") {
  Unit unit = axpyUnit();
  std::string j = renderMetadataJSON(unit);
  // Only the output carries the key: older files read back byte-identical.
  CHECK(contains(j, "\"alignment\": 16,\n          \"output\": true\n"));
  CHECK(j.find("\"output\"") == j.rfind("\"output\""));
  Unit back = parseMetadataJSON(j, unit.image.bytes);
  REQUIRE(back.functions.size() == 1);
  CHECK_FALSE(back.functions[0].params[0].output);
  CHECK(back.functions[0].params[1].output);
  CHECK(renderMetadataJSON(back) == j);
}

TEST_CASE("the header documents T.empty outputs", "[header]") {
  for (Flavor flavor : {Flavor::CUDA, Flavor::HIP}) {
    Unit unit = axpyUnit();
    if (flavor == Flavor::HIP)
      unit.image = {ImageKind::HSACO, "gfx942", "\x7f"
                                                "ELF"};
    std::string h = renderHeader(unit, flavor);
    CHECK(contains(h, "output (T.empty), not null"));
    // The input is documented as before.
    CHECK(h.find("output (T.empty)") == h.rfind("output (T.empty)"));
  }
}

TEST_CASE("only tensors can be outputs", "[header]") {
  Unit unit = axpyUnit();
  unit.functions[0].params[2].output = true;
  CHECK(validate(unit, Flavor::CUDA) ==
        "function `axpy`: parameter `n`: only a tensor can be an output");
}
