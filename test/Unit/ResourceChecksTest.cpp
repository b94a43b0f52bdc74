//===- ResourceChecksTest.cpp - Kernels against the chip's limits ---------===//
//
// The register model of TargetInfo (per-block limits with the allocation
// granularity of each vendor), and the resource checks fed with canned
// assembler reports: ptxas -v text through parsePtxasResourceUsage, AMD
// code-object numbers, and a gpu.module whose kernels carry the launch
// shape, so that every message and its kernel are proven without a GPU.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/ResourceChecks.h"
#include "tilec/Target/Codegen.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

using namespace tilec;

namespace {

std::unique_ptr<TargetInfo> chip(llvm::StringRef name) {
  std::unique_ptr<TargetInfo> target = TargetInfo::get(name);
  REQUIRE(target);
  return target;
}

KernelResources nvidiaKernel(int registers) {
  KernelResources r;
  r.name = "k";
  r.registers = registers;
  r.spillStoreBytes = 0;
  r.spillLoadBytes = 0;
  r.stackBytes = 0;
  r.sharedBytes = 0;
  return r;
}

} // namespace

TEST_CASE("register limits per block follow each vendor's allocation",
          "[target][resources]") {
  for (const char *name : {"sm_80", "sm_90a"}) {
    auto nv = chip(name);
    CHECK(nv->registersPerBlock() == 65536);
    CHECK(nv->maxRegistersPerThread() == 255);
    CHECK(nv->maxRegistersPerThreadInBlock(1024) == 64);
    CHECK(nv->maxRegistersPerThreadInBlock(256) == 255);
    // 640 threads = 20 warps; 65536 / 20 = 3276 registers a warp, 3072 in
    // units of 256: 96 a thread (102 x 640 = 65280 would not fit).
    CHECK(nv->maxRegistersPerThreadInBlock(640) == 96);
    CHECK(nv->blockRegisterFootprint(640, 102) == 20 * 3328);
    CHECK(nv->blockRegisterFootprint(1024, 64) == 65536);
  }
  for (const char *name : {"gfx90a", "gfx942"}) {
    auto amd = chip(name);
    CHECK(amd->registersPerBlock() == 4 * 512 * 64);
    CHECK(amd->maxRegistersPerThread() == 512);
    // 16 wavefronts, 4 per SIMD: 512 / 4 VGPRs each (what LLVM caps a
    // kernel with amdgpu-flat-work-group-size=1,1024 at).
    CHECK(amd->maxRegistersPerThreadInBlock(1024) == 128);
    CHECK(amd->maxRegistersPerThreadInBlock(256) == 512);
    // 5 wavefronts: one SIMD runs 2, so 256 VGPRs each.
    CHECK(amd->maxRegistersPerThreadInBlock(320) == 256);
    // Granules of 8 VGPRs: 129 counts as 136.
    CHECK(amd->blockRegisterFootprint(64, 129) == 4 * 136 * 64);
  }
}

TEST_CASE("ptxas reports become located-message text", "[target][resources]") {
  // ptxas 13's format: the stack size joins the "Used" line.
  const char *log =
      "ptxas info    : Compiling entry function 'fits' for 'sm_90a'\n"
      "ptxas info    : Function properties for fits\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 64 registers, used 1 barriers, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'spills' for 'sm_90a'\n"
      "ptxas info    : Function properties for spills\n"
      "    784 bytes stack frame, 1736 bytes spill stores, 1852 bytes spill "
      "loads\n"
      "ptxas info    : Used 64 registers, used 1 barriers, 784 bytes "
      "cumulative stack size, 1 bytes smem\n"
      "ptxas info    : Compiling entry function 'wide' for 'sm_90a'\n"
      "ptxas info    : Function properties for wide\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 0 barriers, 364 bytes "
      "cmem[0]\n";
  std::vector<KernelResources> kernels = parsePtxasResourceUsage(log);
  REQUIRE(kernels.size() == 3);
  auto sm90a = chip("sm_90a");
  LaunchShape block1024{1024, 0};

  CHECK(checkResources(kernels[0], block1024, *sm90a).empty());

  std::vector<ResourceFinding> spills =
      checkResources(kernels[1], block1024, *sm90a);
  REQUIRE(spills.size() == 1);
  CHECK_FALSE(spills[0].isError);
  CHECK(spills[0].message ==
        "kernel `spills` spills registers to local memory: 1736 bytes "
        "stored, 1852 bytes loaded; it has 64 registers per thread, all that "
        "1024 threads allow");

  std::vector<ResourceFinding> wide =
      checkResources(kernels[2], block1024, *sm90a);
  REQUIRE(wide.size() == 1);
  CHECK(wide[0].isError);
  CHECK(wide[0].message ==
        "kernel `wide` needs 168 registers per thread x 1024 threads = "
        "172032 registers, more than the 65536 a block may use on sm_90a; at "
        "most 64 per thread fit 1024 threads");
  // The same kernel fits a block of 256 threads; unknown threads: no check.
  CHECK(checkResources(kernels[2], {256, 0}, *sm90a).empty());
  CHECK(checkResources(kernels[2], {0, 0}, *sm90a).empty());
}

TEST_CASE("register checks count the allocation granularity",
          "[target][resources]") {
  auto sm80 = chip("sm_80");
  std::vector<ResourceFinding> findings =
      checkResources(nvidiaKernel(102), {640, 0}, *sm80);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].message ==
        "kernel `k` needs 102 registers per thread x 640 threads = 65280 "
        "registers (66560 once allocated per warp), more than the 65536 a "
        "block may use on sm_80; at most 96 per thread fit 640 threads");
  CHECK(checkResources(nvidiaKernel(96), {640, 0}, *sm80).empty());

  findings = checkResources(nvidiaKernel(256), {32, 0}, *sm80);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].message == "kernel `k` uses 256 registers per thread, "
                               "more than the 255 a thread may have on sm_80");
}

TEST_CASE("static and dynamic shared memory are checked together",
          "[target][resources]") {
  auto sm80 = chip("sm_80");
  KernelResources r = nvidiaKernel(32);
  r.sharedBytes = 1024;
  CHECK(checkResources(r, {128, 163 * 1024 - 1024}, *sm80).empty());
  std::vector<ResourceFinding> findings =
      checkResources(r, {128, 163 * 1024}, *sm80);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].isError);
  CHECK(findings[0].message ==
        "kernel `k` needs 167936 bytes of shared memory (166912 dynamic + "
        "1024 static), more than the 166912 a block may use on sm_80");
}

TEST_CASE("AMD spills and VGPRs are checked from the code object's numbers",
          "[target][resources]") {
  auto gfx942 = chip("gfx942");
  KernelResources r;
  r.name = "softmax_kernel";
  r.registers = 128;
  r.accumRegisters = 0;
  r.scalarRegisters = 14;
  r.spilledVectorRegisters = 107;
  r.spilledScalarRegisters = 0;
  r.sharedBytes = 0;
  std::vector<ResourceFinding> findings =
      checkResources(r, {1024, 4096}, *gfx942);
  REQUIRE(findings.size() == 1);
  CHECK_FALSE(findings[0].isError);
  CHECK(findings[0].message ==
        "kernel `softmax_kernel` spills registers to scratch memory: 107 "
        "VGPRs, 0 SGPRs; it has 128 registers per thread, all that 1024 "
        "threads allow");

  r.spilledVectorRegisters = 0;
  CHECK(checkResources(r, {1024, 0}, *gfx942).empty());
  r.registers = 136; // 16 wavefronts, 4 on each SIMD: 4 x 136 > 512
  findings = checkResources(r, {1024, 0}, *gfx942);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].isError);
  CHECK(findings[0].message ==
        "kernel `softmax_kernel` needs 136 registers per thread x 1024 "
        "threads = 139264 registers, more than the 131072 a block may use on "
        "gfx942; at most 128 per thread fit 1024 threads");
}

TEST_CASE("resource findings are reported at their kernel",
          "[target][resources]") {
  mlir::DialectRegistry registry;
  registerCodegenDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadDialect<mlir::gpu::GPUDialect>();
  // `a` states its threads for the header, `b` only its compiled bound;
  // `c` is not reported on.
  const char *text = R"mlir(
module {
  gpu.module @m {
    gpu.func @a() kernel attributes {tile.threads = 1024 : i64} {
      gpu.return
    }
    gpu.func @b() kernel attributes {known_block_size = array<i32: 512, 2, 1>} {
      gpu.return
    }
    gpu.func @c() kernel attributes {tile.threads = 2048 : i64} {
      gpu.return
    }
  }
}
)mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  REQUIRE(module);
  std::vector<std::pair<std::string, unsigned>> seen; // (message, line)
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    unsigned line = 0;
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
      line = loc.getLine();
    seen.push_back({d.str(), line});
    return mlir::success();
  });

  std::vector<KernelResources> resources = {nvidiaKernel(80), nvidiaKernel(80)};
  resources[0].name = "a";
  resources[1].name = "b";
  resources[1].spillStoreBytes = 4;
  auto sm90a = chip("sm_90a");
  CHECK(mlir::failed(checkKernelResources(*module, *sm90a, resources)));
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].first.starts_with("kernel `a` needs 80 registers per "
                                  "thread x 1024 threads"));
  CHECK(seen[0].second == 4);
  CHECK(seen[1].first.starts_with("kernel `b` needs 80 registers per "
                                  "thread x 1024 threads"));
  CHECK(seen[1].second == 7);
  CHECK(seen[2].first == "kernel `b` spills registers to local memory: 4 "
                         "bytes stored, 0 bytes loaded; it has 80 registers "
                         "per thread");

  seen.clear();
  CHECK(mlir::failed(checkKernelThreads(*module, *sm90a)));
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].first == "kernel `c` has 2048 threads per block, more than "
                         "the 1024 a block may have on sm_90a");
  CHECK(seen[0].second == 10);
}
