//===- MultiTargetHeaderTest.cpp - One header, one image per chip ---------===//
//
// renderMultiTargetHeader: validation of the units, and the chosen image
// against a fake CUDA driver that reports a compute capability per device
// and refuses a cubin built for another major version (as the real driver
// answers CUDA_ERROR_NO_BINARY_FOR_GPU), so the fallback to PTX is taken.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Header.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace tilec::header;

namespace {

Unit scaleUnit(const std::string &chip) {
  Unit unit;
  unit.sourceFile = "scale.tile";
  unit.compilerVersion = "0.1.0";
  unit.nameSpace = "app::scale";
  unit.image = {ImageKind::Cubin, chip, "CUBIN-" + chip};
  Function f;
  f.name = "scale";
  Param x;
  x.name = "X";
  x.dtype = "float32";
  x.shape = {"n"};
  Param n;
  n.kind = Param::Kind::Symbol;
  n.name = "n";
  n.dtype = "int32";
  f.params = {x, n};
  KernelLaunch k;
  k.entry = "scale_kernel";
  k.grid = {"(n + 255) / 256", "1", "1"};
  k.block = {256, 1, 1};
  k.args = {KernelArg::ofParam(0), KernelArg::ofParam(1)};
  f.kernels = {k};
  unit.functions = {f};
  return unit;
}

MultiUnit twoTargets() {
  MultiUnit multi;
  multi.units = {scaleUnit("sm_80"), scaleUnit("sm_90a")};
  multi.ptx = {"PTX-sm_80", "PTX-sm_90a"};
  return multi;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// Fake driver: device d has compute capability kCC[d]; a cubin "CUBIN-sm_XY"
// loads only on major X, PTX anywhere.
const char *mockProgram = R"cpp(
#include "scale.h"
#include <cstdio>
#include <cstring>
#include <string>

static int failures = 0;
#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::printf("line %d: EXPECT(%s) failed\n", __LINE__, #cond);           \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

static const int kCC[4][2] = {{8, 6}, {9, 0}, {10, 0}, {7, 5}};
static int device = 0;
static std::string loaded; // the images loaded, in order

CUresult CUDAAPI cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_X";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *c) {
  *c = reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(0x100 + device));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetId(CUcontext c, unsigned long long *id) {
  *id = reinterpret_cast<std::uintptr_t>(c);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice(CUdevice *d) {
  *d = device;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  *v = kCC[d][a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 0 : 1];
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned,
                                    CUjit_option *, void **) {
  std::string text(static_cast<const char *>(image));
  loaded += text + " ";
  if (text.rfind("CUBIN-sm_", 0) == 0 &&
      std::stoi(text.substr(9, 1)) != kCC[device][0])
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  *m = reinterpret_cast<CUmodule>(new std::string(text));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule m, const char *) {
  *f = reinterpret_cast<CUfunction>(m);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleUnload(CUmodule m) {
  delete reinterpret_cast<std::string *>(m);
  return CUDA_SUCCESS;
}
static std::string launched;
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned,
                                unsigned, unsigned, unsigned, unsigned,
                                CUstream, void **, void **) {
  launched = *reinterpret_cast<std::string *>(f);
  return CUDA_SUCCESS;
}

namespace s = app::scale;

int main() {
  const CUdeviceptr X = 0x10000;
  // 8.6: the sm_80 cubin (same major version, not newer).
  device = 0;
  EXPECT(s::scale(X, 1000) == CUDA_SUCCESS);
  EXPECT(std::strcmp(s::target(), "sm_80") == 0);
  EXPECT(launched == "CUBIN-sm_80");
  // 9.0: the arch-specific sm_90a cubin.
  device = 1;
  loaded.clear();
  EXPECT(s::scale(X, 1000) == CUDA_SUCCESS);
  EXPECT(std::strcmp(s::target(), "sm_90a") == 0);
  EXPECT(launched == "CUBIN-sm_90a");
  // 10.0: no cubin runs; sm_80's PTX is JIT-compiled.
  device = 2;
  loaded.clear();
  EXPECT(s::scale(X, 1000) == CUDA_SUCCESS);
  EXPECT(loaded == "CUBIN-sm_80 PTX-sm_80 ");
  EXPECT(launched == "PTX-sm_80");
  // 7.5: older than every image.
  device = 3;
  EXPECT(s::scale(X, 1000) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT(std::strcmp(s::statusString(),
                     "app::scale: no image for compute capability 7.5 "
                     "(compiled for sm_80, sm_90a)") == 0);
  EXPECT(s::target() == nullptr);
  // The checks of the chosen target's function report through the one
  // status of the header.
  device = 0;
  EXPECT(s::scale(0, 1000) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(std::strcmp(s::statusString(), "scale: argument `X` is null") == 0);
  EXPECT(s::lastError() == CUDA_ERROR_INVALID_VALUE);
  EXPECT(s::scale(X, 1000) == CUDA_SUCCESS);
  EXPECT(std::strcmp(s::statusString(), "ok") == 0);
  EXPECT(s::unload() == CUDA_SUCCESS);
  std::printf("%d failures\n", failures);
  return failures != 0;
}
)cpp";

} // namespace

TEST_CASE("a multi-target header has a namespace per chip and one API",
          "[header][multi]") {
  std::string h = renderMultiTargetHeader(twoTargets(), Flavor::CUDA);
  CHECK(contains(h, "#ifndef TILEC_GENERATED_APP_SCALE_CUDA_H\n"));
  CHECK(contains(h, "namespace app {\nnamespace scale {\n"));
  CHECK(contains(h, "namespace sm_80 {\n"));
  CHECK(contains(h, "namespace sm_90a {\n"));
  // The PTX of the newest non-arch-specific chip only.
  CHECK(contains(h, "inline constexpr int kPtxImage = 0;"));
  CHECK(h.find("kPtx[") == h.rfind("kPtx["));
  CHECK(contains(h, "inline constexpr int kCapability[2] = {80, 90};"));
  CHECK(contains(h, "inline constexpr bool kArchSpecific[2] = {false, true};"));
  // The targets' functions report through the outer status.
  CHECK(contains(h, "return ::app::scale::detail::reject(\"scale: argument "
                    "`X` is null\");"));
  CHECK(contains(h, "    return sm_90a::scale(X, n, stream);\n"));
}

TEST_CASE("multi-target units must agree", "[header][multi]") {
  MultiUnit multi = twoTargets();
  CHECK(validate(multi, Flavor::CUDA) == "");
  MultiUnit one = multi;
  one.units.pop_back();
  CHECK(validate(one, Flavor::CUDA) ==
        "a multi-target header needs at least two targets");
  MultiUnit other = multi;
  other.units[1].functions[0].params[0].dtype = "float16";
  CHECK(validate(other, Flavor::CUDA) ==
        "function `scale` has other parameters for sm_90a than for sm_80");
  MultiUnit twice = multi;
  twice.units[1] = twice.units[0];
  CHECK(validate(twice, Flavor::CUDA) == "target `sm_80` is given twice");
  MultiUnit ptx = multi;
  ptx.units[0].image.kind = ImageKind::PTX;
  CHECK(validate(ptx, Flavor::CUDA) ==
        "sm_80: a multi-target CUDA header embeds cubins, not ptx");
  CHECK_THROWS_AS(renderMultiTargetHeader(one, Flavor::CUDA), HeaderError);
}

TEST_CASE("a multi-target header picks the image for the device",
          "[header][multi]") {
  if (!fs::exists("/usr/local/cuda/include/cuda.h") ||
      std::system("command -v g++ >/dev/null 2>&1") != 0) {
    WARN("skipped: needs g++ and cuda.h");
    return;
  }
  std::string pattern =
      (fs::temp_directory_path() / "tilec-multi-XXXXXX").string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  fs::path dir = pattern;
  std::ofstream(dir / "scale.h")
      << renderMultiTargetHeader(twoTargets(), Flavor::CUDA);
  std::ofstream(dir / "mock.cpp") << mockProgram;
  std::string command = "cd '" + dir.string() +
                        "' && g++ -std=c++17 -O1 -pthread -Wall -Wextra "
                        "-Werror -isystem /usr/local/cuda/include mock.cpp -o "
                        "mock > log.txt 2>&1 && ./mock >> log.txt 2>&1";
  int status = std::system(command.c_str());
  std::stringstream log;
  log << std::ifstream(dir / "log.txt").rdbuf();
  INFO(log.str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(contains(log.str(), "0 failures"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}
