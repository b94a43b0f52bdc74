//===- TargetTest.cpp - TargetInfo and code emission ----------------------===//
//
// Unit tests of targets/: the chip facts, and small gpu.modules (parsed from
// text) compiled to PTX, through ptxas to cubins for sm_80 and sm_90a, and to
// HSACOs for gfx90a and gfx942, each checked for what a loader needs (ELF
// machine, kernel symbols and descriptors, no undefined symbols, resources).
// Also: rejected inputs give located errors instead of aborting, output is
// deterministic, the input module is left untouched, and emission is fast.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Codegen.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <chrono>

using namespace tilec;

namespace {

//===--- Inputs
//------------------------------------------------------------===//

// A vector add that also calls math.exp (libdevice / ocml), reads
// gpu.block_dim (an ockl call on AMD) and shuffles across lanes.
const char *kVectorAdd = R"mlir(
module {
  gpu.module @kernels {
    gpu.func @vadd(%a: memref<1048576xf32>, %b: memref<1048576xf32>,
                   %c: memref<1048576xf32>, %n: i32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %ni = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %i, %ni : index
      scf.if %inside {
        %x = memref.load %a[%i] : memref<1048576xf32>
        %y = memref.load %b[%i] : memref<1048576xf32>
        %e = math.exp %x : f32
        %s = arith.addf %e, %y : f32
        %one = arith.constant 1 : i32
        %width = arith.constant 32 : i32
        %sh, %valid = gpu.shuffle xor %s, %one, %width : f32
        memref.store %sh, %c[%i] : memref<1048576xf32>
      }
      gpu.return
    }
  }
}
)mlir";

// Static shared memory (a workgroup attribution) and a barrier, in a second
// gpu.module: both modules end up in one image.
const char *kTwoModules = R"mlir(
module {
  gpu.module @first {
    gpu.func @copy(%in: memref<256xf32>, %out: memref<256xf32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<256xf32>
      memref.store %v, %out[%tid] : memref<256xf32>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @reverse(%in: memref<256xf32>, %out: memref<256xf32>)
        workgroup(%tile : memref<256xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<256xf32>
      memref.store %v, %tile[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c255 = arith.constant 255 : index
      %r = arith.subi %c255, %tid : index
      %w = memref.load %tile[%r] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%tid] : memref<256xf32>
      gpu.return
    }
  }
}
)mlir";

// sm_90a-only instructions: warp-specialized register reallocation and the
// wgmma fences.
const char *kHopperOnly = R"mlir(
module {
  gpu.module @hopper {
    gpu.func @producer(%p: memref<128xf32>) kernel {
      nvvm.setmaxregister increase 240
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      gpu.return
    }
  }
}
)mlir";

// An fp8 MFMA: gfx942 has it, gfx90a does not.
const char *kFp8Mfma = R"mlir(
module {
  gpu.module @amd {
    gpu.func @mfma(%out: memref<16xf32>, %a: i64) kernel {
      %c = arith.constant dense<0.0> : vector<16xf32>
      %z = arith.constant 0 : i32
      %r = rocdl.mfma.f32.32x32x16.fp8.fp8 %a, %a, %c, %z, %z, %z
        : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
      %e = vector.extract %r[0] : f32 from vector<16xf32>
      %i0 = arith.constant 0 : index
      memref.store %e, %out[%i0] : memref<16xf32>
      gpu.return
    }
  }
}
)mlir";

// A gfx950-only MFMA spelled as a raw LLVM intrinsic call, which no op check
// sees: the backend's fatal error must come back as a diagnostic.
const char *kRawGfx950Intrinsic = R"mlir(
module {
  gpu.module @amd {
    gpu.func @raw(%out: memref<16xf32>, %a: vector<8xf16>) kernel {
      %c = arith.constant dense<0.0> : vector<16xf32>
      %z = arith.constant 0 : i32
      %r = llvm.call_intrinsic "llvm.amdgcn.mfma.f32.32x32x16.f16"(%a, %a, %c, %z, %z, %z)
        : (vector<8xf16>, vector<8xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
      %e = vector.extract %r[0] : f32 from vector<16xf32>
      %i0 = arith.constant 0 : index
      memref.store %e, %out[%i0] : memref<16xf32>
      gpu.return
    }
  }
}
)mlir";

// Warp reductions: redux.sync for the uniform i32 one on NVIDIA, expanded
// into shuffles (NVIDIA) or DPP (AMD) otherwise.
const char *kWarpReduce = R"mlir(
module {
  gpu.module @kernels {
    gpu.func @reduce(%in: memref<1024xf32>, %counts: memref<1024xi32>,
                     %out: memref<1024xf32>, %total: memref<1024xi32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<1024xf32>
      %r = gpu.subgroup_reduce add %v : (f32) -> f32
      memref.store %r, %out[%tid] : memref<1024xf32>
      %n = memref.load %counts[%tid] : memref<1024xi32>
      %sum = gpu.subgroup_reduce add %n uniform : (i32) -> i32
      memref.store %sum, %total[%tid] : memref<1024xi32>
      gpu.return
    }
  }
}
)mlir";

const char *kDynamicMemref = R"mlir(
module {
  gpu.module @kernels {
    gpu.func @dyn(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}
)mlir";

const char *kNoKernel = R"mlir(
module {
  gpu.module @kernels {
    gpu.func @helper(%x: f32) -> f32 {
      gpu.return %x : f32
    }
  }
}
)mlir";

//===--- Helpers
//-----------------------------------------------------------===//

/// A context with the codegen dialects and a diagnostic handler that records
/// every message (so failures can be checked and nothing reaches stderr).
struct Fixture {
  mlir::MLIRContext ctx;
  std::vector<std::string> diagnostics;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;

  Fixture() {
    mlir::DialectRegistry registry;
    registerCodegenDialects(registry);
    // Dialects load as the parser meets them, as in the driver: the emitters
    // must load whatever else they create.
    ctx.appendDialectRegistry(registry);
    handler = std::make_unique<mlir::ScopedDiagnosticHandler>(
        &ctx, [this](mlir::Diagnostic &diag) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": " << diag;
          for (const mlir::Diagnostic &note : diag.getNotes())
            os << "\n  note: " << note;
          diagnostics.push_back(text);
          return mlir::success();
        });
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(const char *source) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
    INFO(allDiagnostics());
    REQUIRE(module);
    return module;
  }

  std::string allDiagnostics() const {
    std::string all;
    for (const std::string &d : diagnostics)
      all += d + "\n";
    return all;
  }

  bool diagnosed(llvm::StringRef text) const {
    for (const std::string &d : diagnostics)
      if (llvm::StringRef(d).contains(text))
        return true;
    return false;
  }
};

CodegenOptions optionsFor(llvm::StringRef chip) {
  CodegenOptions options;
  options.chip = chip.str();
  return options;
}

std::string printOp(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// What a loader needs from an AMDGPU code object.
struct CodeObjectFacts {
  bool isAMDGPU = false;
  unsigned abiVersion = 0;
  std::vector<std::string> definedSymbols;
  std::vector<std::string> undefinedSymbols;
};

CodeObjectFacts inspectCodeObject(const std::string &bytes) {
  CodeObjectFacts facts;
  auto object = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(bytes, "hsaco"));
  if (!object) {
    llvm::consumeError(object.takeError());
    return facts;
  }
  auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(object->get());
  if (!elf)
    return facts;
  const auto &header = elf->getELFFile().getHeader();
  facts.isAMDGPU = header.e_machine == llvm::ELF::EM_AMDGPU &&
                   header.e_type == llvm::ELF::ET_DYN;
  facts.abiVersion = header.e_ident[llvm::ELF::EI_ABIVERSION];
  auto collect = [&](auto symbols) {
    for (const llvm::object::SymbolRef &symbol : symbols) {
      auto name = symbol.getName();
      auto flags = symbol.getFlags();
      if (!name || !flags) {
        if (!name)
          llvm::consumeError(name.takeError());
        if (!flags)
          llvm::consumeError(flags.takeError());
        continue;
      }
      if (name->empty())
        continue;
      if (*flags & llvm::object::SymbolRef::SF_Undefined)
        facts.undefinedSymbols.push_back(name->str());
      else
        facts.definedSymbols.push_back(name->str());
    }
  };
  collect(elf->symbols());
  collect(elf->getDynamicSymbolIterators());
  return facts;
}

bool contains(const std::vector<std::string> &list, llvm::StringRef value) {
  return std::find(list.begin(), list.end(), value.str()) != list.end();
}

const KernelResources *findKernel(const std::vector<KernelResources> &list,
                                  llvm::StringRef name) {
  for (const KernelResources &kernel : list)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// TargetInfo
//===----------------------------------------------------------------------===//

TEST_CASE("TargetInfo describes the supported chips", "[target]") {
  auto sm80 = TargetInfo::get("sm_80");
  auto sm90a = TargetInfo::get("sm_90a");
  auto gfx90a = TargetInfo::get("gfx90a");
  auto gfx942 = TargetInfo::get("gfx942");
  REQUIRE(sm80);
  REQUIRE(sm90a);
  REQUIRE(gfx90a);
  REQUIRE(gfx942);

  CHECK(sm80->chip() == "sm_80");
  CHECK(sm80->isNVIDIA());
  CHECK(sm80->warpSize() == 32);
  CHECK(sm80->maxThreadsPerBlock() == 1024);
  CHECK(sm80->maxSharedMemoryPerBlock() == 163 * 1024);
  CHECK(sm80->defaultSharedMemoryPerBlock() == 48 * 1024);
  CHECK(sm80->sharedMemoryBanks() == 32);
  CHECK(sm80->hasAsyncCopy());
  CHECK_FALSE(sm80->hasTMA());
  CHECK_FALSE(sm80->hasWGMMA());
  CHECK_FALSE(sm80->hasSetMaxNReg());
  CHECK(sm80->hasMMA(MMAElementType::F16, MMAElementType::F32));
  CHECK(sm80->hasMMA(MMAElementType::BF16, MMAElementType::F32));
  CHECK_FALSE(sm80->hasMMA(MMAElementType::F8E4M3, MMAElementType::F32));

  CHECK(sm90a->maxSharedMemoryPerBlock() == 227 * 1024);
  CHECK(sm90a->hasAsyncCopy());
  CHECK(sm90a->hasTMA());
  CHECK(sm90a->hasWGMMA());
  CHECK(sm90a->hasSetMaxNReg());
  CHECK(sm90a->hasClusters());
  CHECK(sm90a->hasMatrixStore());
  CHECK(sm90a->hasMMA(MMAElementType::F8E4M3, MMAElementType::F32));
  bool hasWgmma = false;
  for (const MMAInstruction &mma : sm90a->mmaInstructions())
    if (mma.opName == "nvvm.wgmma.mma_async") {
      hasWgmma = true;
      CHECK(mma.m == 64);
      CHECK(mma.threads == 128);
      CHECK(mma.operandsInSharedMemory);
    }
  CHECK(hasWgmma);

  for (const auto *amd : {gfx90a.get(), gfx942.get()}) {
    CHECK_FALSE(amd->isNVIDIA());
    CHECK(amd->isAMD());
    CHECK(amd->warpSize() == 64);
    CHECK(amd->maxSharedMemoryPerBlock() == 64 * 1024);
    CHECK_FALSE(amd->hasTMA());
    CHECK_FALSE(amd->hasWGMMA());
    CHECK(amd->llvmTriple() == "amdgcn-amd-amdhsa");
    for (const MMAInstruction &mma : amd->mmaInstructions()) {
      CHECK(mma.threads == 64);
      CHECK(llvm::StringRef(mma.opName).starts_with("rocdl.mfma."));
    }
  }
  CHECK_FALSE(gfx90a->hasMMA(MMAElementType::F8E4M3FNUZ, MMAElementType::F32));
  CHECK(gfx942->hasMMA(MMAElementType::F8E4M3FNUZ, MMAElementType::F32));
  CHECK(gfx942->hasMMA(MMAElementType::TF32, MMAElementType::F32));

  CHECK(TargetInfo::get("sm_90") == nullptr); // only sm_90a is exposed
  CHECK(TargetInfo::get("gfx1100") == nullptr);
  CHECK(TargetInfo::get("") == nullptr);
  CHECK(TargetInfo::supportedChips().size() == 4);
  for (llvm::StringRef chip : TargetInfo::supportedChips())
    CHECK(TargetInfo::get(chip));
}

TEST_CASE("ptxas -v output is parsed per kernel", "[target]") {
  const char *log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_90a'\n"
      "ptxas info    : Function properties for k1\n"
      "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 8192 bytes smem, "
      "380 bytes cmem[0]\n"
      "ptxas info    : Function properties for helper\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'k2' for 'sm_90a'\n"
      "ptxas info    : Function properties for k2\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, used 0 barriers, 356 bytes cmem[0]\n";
  std::vector<KernelResources> kernels = parsePtxasResourceUsage(log);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "k1");
  CHECK(kernels[0].registers == 40);
  CHECK(kernels[0].stackBytes == 16);
  CHECK(kernels[0].spillStoreBytes == 8);
  CHECK(kernels[0].spillLoadBytes == 4);
  CHECK(kernels[0].sharedBytes == 8192);
  CHECK(kernels[1].name == "k2");
  CHECK(kernels[1].registers == 8);
  CHECK(kernels[1].sharedBytes == 0);
  CHECK(kernels[1].stackBytes == 0);
}

//===----------------------------------------------------------------------===//
// NVIDIA
//===----------------------------------------------------------------------===//

TEST_CASE("A gpu.module compiles to PTX for sm_80", "[target][nvptx]") {
  Fixture f;
  auto module = f.parse(kVectorAdd);
  std::string before = printOp(*module);

  auto start = std::chrono::steady_clock::now();
  auto ptx = emitPTX(*module, optionsFor("sm_80"));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  INFO(f.allDiagnostics());
  REQUIRE(succeeded(ptx));
  WARN("emitPTX(vadd, sm_80) took " << seconds * 1000 << " ms");
  CHECK(seconds < 5.0);

  llvm::StringRef text(*ptx);
  CHECK(text.contains(".version 8.0"));
  CHECK(text.contains(".target sm_80"));
  CHECK(text.contains(".entry vadd"));
  CHECK(text.contains("shfl.sync.bfly"));
  // libdevice was linked and inlined: no call to an external __nv_expf.
  CHECK_FALSE(text.contains("__nv_expf"));
  CHECK(text.contains("ex2.approx"));
  // index-bitwidth 32: the kernel takes 3 pointers and one 32-bit scalar.
  CHECK(text.contains(".param .u64"));
  CHECK(text.contains(".param .u32"));
  // The input is not modified.
  CHECK(printOp(*module) == before);

  // Determinism: same input, same bytes, also from a fresh context.
  auto again = emitPTX(*module, optionsFor("sm_80"));
  REQUIRE(succeeded(again));
  CHECK(*again == *ptx);
  Fixture other;
  auto reparsed = other.parse(kVectorAdd);
  auto fresh = emitPTX(*reparsed, optionsFor("sm_80"));
  REQUIRE(succeeded(fresh));
  CHECK(*fresh == *ptx);
}

TEST_CASE("LLVM IR is emitted for both vendors", "[target]") {
  Fixture f;
  auto module = f.parse(kVectorAdd);
  auto nv = emitLLVMIR(*module, optionsFor("sm_90a"));
  INFO(f.allDiagnostics());
  REQUIRE(succeeded(nv));
  CHECK(
      llvm::StringRef(*nv).contains("target triple = \"nvptx64-nvidia-cuda\""));
  CHECK(llvm::StringRef(*nv).contains("ptx_kernel void @vadd"));
  auto amd = emitLLVMIR(*module, optionsFor("gfx942"));
  REQUIRE(succeeded(amd));
  CHECK(
      llvm::StringRef(*amd).contains("target triple = \"amdgcn-amd-amdhsa\""));
  CHECK(llvm::StringRef(*amd).contains("amdgpu_kernel void @vadd"));
  CHECK(llvm::StringRef(*amd).contains("amdhsa_code_object_version"));
  // 1024-thread blocks are allowed (the backend's default would be 256).
  CHECK(llvm::StringRef(*amd).contains(
      "\"amdgpu-flat-work-group-size\"=\"1,1024\""));
}

TEST_CASE("PTX is assembled by ptxas for sm_80 and sm_90a",
          "[target][nvptx][ptxas]") {
  for (const char *chip : {"sm_80", "sm_90a"}) {
    DYNAMIC_SECTION(chip) {
      Fixture f;
      auto module = f.parse(kVectorAdd);
      std::vector<KernelResources> resources;
      auto start = std::chrono::steady_clock::now();
      auto cubin = emitCubin(*module, optionsFor(chip), &resources);
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      INFO(f.allDiagnostics());
      REQUIRE(succeeded(cubin));
      WARN("emitCubin(vadd, " << chip << ") took " << seconds * 1000 << " ms");
      REQUIRE(cubin->size() > 4);
      CHECK(cubin->compare(0, 4,
                           "\x7f"
                           "ELF") == 0);
      REQUIRE(resources.size() == 1);
      CHECK(resources[0].name == "vadd");
      CHECK(resources[0].registers > 0);
      CHECK(resources[0].spillStoreBytes == 0);
      CHECK(resources[0].stackBytes == 0);

      auto again = emitCubin(*module, optionsFor(chip), nullptr);
      REQUIRE(succeeded(again));
      CHECK(*again == *cubin);
    }
  }
}

TEST_CASE("Several gpu.modules link into one cubin", "[target][nvptx][ptxas]") {
  Fixture f;
  auto module = f.parse(kTwoModules);
  std::vector<KernelResources> resources;
  auto cubin = emitCubin(*module, optionsFor("sm_80"), &resources);
  INFO(f.allDiagnostics());
  REQUIRE(succeeded(cubin));
  const KernelResources *copy = findKernel(resources, "copy");
  const KernelResources *reverse = findKernel(resources, "reverse");
  REQUIRE(copy);
  REQUIRE(reverse);
  CHECK(copy->sharedBytes == 0);
  CHECK(reverse->sharedBytes == 1024);
}

TEST_CASE("sm_90a-only instructions", "[target][nvptx][ptxas]") {
  Fixture f;
  auto module = f.parse(kHopperOnly);
  auto cubin = emitCubin(*module, optionsFor("sm_90a"));
  INFO(f.allDiagnostics());
  CHECK(succeeded(cubin));
  auto ptx = emitPTX(*module, optionsFor("sm_90a"));
  REQUIRE(succeeded(ptx));
  CHECK(llvm::StringRef(*ptx).contains("setmaxnreg.inc.sync.aligned.u32"));
  CHECK(llvm::StringRef(*ptx).contains("wgmma.fence.sync.aligned"));

  SECTION("are rejected for sm_80 with a located error") {
    f.diagnostics.clear();
    auto rejected = emitPTX(*module, optionsFor("sm_80"));
    CHECK(failed(rejected));
    INFO(f.allDiagnostics());
    CHECK(f.diagnosed("'nvvm.setmaxregister' (setmaxnreg) needs sm_90a; "
                      "the target is sm_80"));
    CHECK(f.diagnosed("'nvvm.wgmma.fence.aligned'"));
    // Located at the op (line 5 of the input), not at the module.
    CHECK(f.diagnosed("loc(\"-\":5:"));
    CHECK_FALSE(f.diagnosed("Cannot select"));
  }
}

TEST_CASE("ptxas errors become diagnostics", "[target][nvptx][ptxas]") {
  Fixture f;
  mlir::Location loc = mlir::UnknownLoc::get(&f.ctx);
  auto cubin = assemblePTX(".version 8.0\n.target sm_80\n"
                           ".address_size 64\n"
                           ".visible .entry broken() { bogus.instruction; }\n",
                           loc, optionsFor("sm_80"));
  CHECK(failed(cubin));
  INFO(f.allDiagnostics());
  CHECK(f.diagnosed("ptxas rejected the PTX for sm_80"));
  CHECK(f.diagnosed("<ptx>"));
  CHECK(f.diagnosed("bogus.instruction"));

  f.diagnostics.clear();
  CodegenOptions missing = optionsFor("sm_80");
  missing.ptxasPath = "/nonexistent/ptxas";
  CHECK(failed(assemblePTX(".version 8.0\n", loc, missing)));
  CHECK(f.diagnosed("ptxas not found at '/nonexistent/ptxas'"));
}

//===----------------------------------------------------------------------===//
// AMD
//===----------------------------------------------------------------------===//

TEST_CASE("A gpu.module compiles to a valid HSACO for gfx90a and gfx942",
          "[target][amdgpu]") {
  for (const char *chip : {"gfx90a", "gfx942"}) {
    DYNAMIC_SECTION(chip) {
      Fixture f;
      auto module = f.parse(kVectorAdd);
      std::vector<KernelResources> resources;
      auto start = std::chrono::steady_clock::now();
      auto hsaco = emitHSACO(*module, optionsFor(chip), &resources);
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      INFO(f.allDiagnostics());
      REQUIRE(succeeded(hsaco));
      WARN("emitHSACO(vadd, " << chip << ") took " << seconds * 1000 << " ms");

      CodeObjectFacts facts = inspectCodeObject(*hsaco);
      CHECK(facts.isAMDGPU);
      CHECK(facts.abiVersion == llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V5);
      CHECK(contains(facts.definedSymbols, "vadd"));
      CHECK(contains(facts.definedSymbols, "vadd.kd"));
      CHECK(facts.undefinedSymbols.empty());

      REQUIRE(resources.size() == 1);
      CHECK(resources[0].name == "vadd");
      CHECK(resources[0].registers > 0);
      CHECK(resources[0].scalarRegisters > 0);
      CHECK(resources[0].sharedBytes == 0);

      auto again = emitHSACO(*module, optionsFor(chip));
      REQUIRE(succeeded(again));
      CHECK(*again == *hsaco);
    }
  }
}

TEST_CASE("LDS use is reported for HSACOs", "[target][amdgpu]") {
  Fixture f;
  auto module = f.parse(kTwoModules);
  std::vector<KernelResources> resources;
  auto hsaco = emitHSACO(*module, optionsFor("gfx942"), &resources);
  INFO(f.allDiagnostics());
  REQUIRE(succeeded(hsaco));
  const KernelResources *reverse = findKernel(resources, "reverse");
  REQUIRE(reverse);
  CHECK(reverse->sharedBytes == 1024);
  CHECK(findKernel(resources, "copy"));
}

TEST_CASE("fp8 MFMA needs gfx942", "[target][amdgpu]") {
  Fixture f;
  auto module = f.parse(kFp8Mfma);
  auto hsaco = emitHSACO(*module, optionsFor("gfx942"));
  INFO(f.allDiagnostics());
  CHECK(succeeded(hsaco));
  auto rejected = emitHSACO(*module, optionsFor("gfx90a"));
  CHECK(failed(rejected));
  CHECK(f.diagnosed("'rocdl.mfma.f32.32x32x16.fp8.fp8' (fp8 arithmetic) "
                    "needs gfx942; the target is gfx90a"));
}

TEST_CASE("A backend fatal error is a diagnostic, not an abort",
          "[target][amdgpu]") {
  Fixture f;
  auto module = f.parse(kRawGfx950Intrinsic);
  auto hsaco = emitHSACO(*module, optionsFor("gfx942"));
  CHECK(failed(hsaco));
  INFO(f.allDiagnostics());
  CHECK(f.diagnosed("code generation for gfx942 failed in LLVM's backend"));
  // At the module's only kernel (line 4 of the input), not at its line 1.
  CHECK(f.diagnosed("loc(\"-\":4:"));
  // The process survived and can still compile.
  f.diagnostics.clear();
  auto ok = f.parse(kVectorAdd);
  CHECK(succeeded(emitHSACO(*ok, optionsFor("gfx942"))));
}

//===----------------------------------------------------------------------===//
// Rejected inputs
//===----------------------------------------------------------------------===//

TEST_CASE("Bad inputs get located errors", "[target]") {
  Fixture f;
  SECTION("unknown chip") {
    auto module = f.parse(kVectorAdd);
    CHECK(failed(emitPTX(*module, optionsFor("sm_90"))));
    CHECK(f.diagnosed("unknown target chip 'sm_90'; supported: sm_80 sm_90a "
                      "gfx90a gfx942"));
  }
  SECTION("wrong vendor for the output") {
    auto module = f.parse(kVectorAdd);
    CHECK(failed(emitPTX(*module, optionsFor("gfx942"))));
    CHECK(f.diagnosed("cannot emit PTX for gfx942: it is an AMD chip"));
    CHECK(failed(emitHSACO(*module, optionsFor("sm_80"))));
    CHECK(f.diagnosed("cannot emit an HSACO for sm_80: it is an NVIDIA chip"));
  }
  SECTION("ops of the other vendor") {
    auto module = f.parse(kHopperOnly);
    CHECK(failed(emitHSACO(*module, optionsFor("gfx942"))));
    CHECK(f.diagnosed("'nvvm.setmaxregister' is an NVIDIA operation; the "
                      "target gfx942 is an AMD chip"));
    auto amd = f.parse(kFp8Mfma);
    CHECK(failed(emitPTX(*amd, optionsFor("sm_90a"))));
    CHECK(f.diagnosed("is an AMD operation"));
  }
  SECTION("dynamic memref kernel argument") {
    auto module = f.parse(kDynamicMemref);
    CHECK(failed(emitPTX(*module, optionsFor("sm_80"))));
    INFO(f.allDiagnostics());
    CHECK(f.diagnosed("argument #0 of 'dyn' has type 'memref<?xf32>', which "
                      "cannot be passed as a bare pointer"));
  }
  SECTION("no kernel") {
    auto module = f.parse(kNoKernel);
    CHECK(failed(emitPTX(*module, optionsFor("sm_80"))));
    CHECK(f.diagnosed("no gpu.module holds a gpu.func kernel"));
  }
  SECTION("bad options") {
    auto module = f.parse(kVectorAdd);
    CodegenOptions options = optionsFor("sm_80");
    options.indexBitwidth = 16;
    CHECK(failed(emitPTX(*module, options)));
    CHECK(f.diagnosed("index bitwidth must be 32 or 64"));
  }
}

TEST_CASE("Warp reductions lower on both vendors", "[target]") {
  Fixture f;
  auto module = f.parse(kWarpReduce);
  auto ptx = emitPTX(*module, optionsFor("sm_80"));
  INFO(f.allDiagnostics());
  REQUIRE(succeeded(ptx));
  CHECK(llvm::StringRef(*ptx).contains("redux.sync.add.s32"));
  CHECK(llvm::StringRef(*ptx).contains("shfl.sync.bfly.b32"));
  auto amd = emitLLVMIR(*module, optionsFor("gfx942"));
  REQUIRE(succeeded(amd));
  CHECK(llvm::StringRef(*amd).contains("@llvm.amdgcn.update.dpp"));
  CHECK(succeeded(emitHSACO(*module, optionsFor("gfx90a"))));
}

TEST_CASE("Flushing denormals reaches the code", "[target][nvptx]") {
  Fixture f;
  auto module = f.parse(kVectorAdd);
  CodegenOptions options = optionsFor("sm_80");
  auto precise = emitPTX(*module, options);
  options.flushDenormals = true;
  auto flushed = emitPTX(*module, options);
  INFO(f.allDiagnostics());
  REQUIRE(succeeded(precise));
  REQUIRE(succeeded(flushed));
  CHECK_FALSE(llvm::StringRef(*precise).contains("add.rn.ftz.f32"));
  CHECK(llvm::StringRef(*flushed).contains("add.rn.ftz.f32"));
}

TEST_CASE("Unoptimized builds work too", "[target][ptxas]") {
  Fixture f;
  auto module = f.parse(kVectorAdd);
  for (const char *chip : {"sm_80", "gfx942"}) {
    CodegenOptions options = optionsFor(chip);
    options.optLevel = 0;
    std::vector<KernelResources> resources;
    auto binary = emitBinary(*module, options, &resources);
    INFO(chip << "\n" << f.allDiagnostics());
    REQUIRE(succeeded(binary));
    REQUIRE(resources.size() == 1);
    CHECK(resources[0].name == "vadd");
  }
  CodegenOptions options = optionsFor("sm_80");
  options.optLevel = 0;
  auto ptx = emitPTX(*module, options);
  REQUIRE(succeeded(ptx));
  CHECK_FALSE(llvm::StringRef(*ptx).contains("__nvvm_reflect"));
  options.optLevel = 4;
  CHECK(failed(emitPTX(*module, options)));
  CHECK(f.diagnosed("optimization level must be 0-3"));
}

TEST_CASE("64-bit indices are available", "[target][nvptx]") {
  Fixture f;
  auto module = f.parse(kVectorAdd);
  CodegenOptions options = optionsFor("sm_90a");
  options.indexBitwidth = 64;
  auto ptx = emitPTX(*module, options);
  INFO(f.allDiagnostics());
  REQUIRE(succeeded(ptx));
  CHECK(llvm::StringRef(*ptx).contains(".entry vadd"));
}
