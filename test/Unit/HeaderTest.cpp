//===- HeaderTest.cpp - Tests of the launch header and metadata JSON ------===//
//
// The header is C++ that users compile, so besides checking the rendered
// text these tests compile it: with g++ and clang++-22 under -Werror, linked
// against the CUDA driver stub and libamdhip64, and run against a fake
// driver (the cu*/hip* functions defined in the test program) that records
// every call, so that argument checks, grid arithmetic, lazy per-context
// loading, opt-ins and the kernel argument bytes are checked without a GPU.
// Tests whose compiler or headers are missing are skipped with a warning.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Header.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <unistd.h>

using namespace tilec::header;
namespace fs = std::filesystem;

namespace {

//===----------------------------------------------------------------------===//
// Sample units
//===----------------------------------------------------------------------===//

Param tensor(std::string name, std::string dtype,
             std::vector<std::string> shape, unsigned alignment = 16) {
  Param p;
  p.kind = Param::Kind::Tensor;
  p.name = std::move(name);
  p.dtype = std::move(dtype);
  p.shape = std::move(shape);
  p.alignment = alignment;
  return p;
}

Param scalar(std::string name, std::string dtype) {
  Param p;
  p.kind = Param::Kind::Scalar;
  p.name = std::move(name);
  p.dtype = std::move(dtype);
  return p;
}

Param symbol(std::string name) {
  Param p;
  p.kind = Param::Kind::Symbol;
  p.name = std::move(name);
  p.dtype = "int32";
  return p;
}

Unit vectorAddUnit() {
  Unit unit;
  unit.sourceFile = "examples/vector_add.tile";
  unit.compilerVersion = "0.1.0";
  unit.image = {ImageKind::PTX, "sm_80", ".version 8.0\n.target sm_80\n"};
  Function f;
  f.name = "vector_add";
  f.location = "examples/vector_add.tile:5";
  f.params = {tensor("A", "float32", {"n"}), tensor("B", "float32", {"n"}),
              tensor("C", "float32", {"n"}), symbol("n")};
  KernelLaunch k;
  k.entry = "vector_add_kernel";
  k.grid = {"(n + 255) / 256", "1", "1"};
  k.block = {256, 1, 1};
  for (unsigned i = 0; i < 4; ++i)
    k.args.push_back(KernelArg::ofParam(i));
  f.kernels.push_back(k);
  unit.functions.push_back(f);
  return unit;
}

// Everything the CUDA header can do: a TMA descriptor, a cluster launch,
// more than 48 KB of dynamic shared memory, a float16 scalar, a computed
// argument, a check, and a second kernel.
Unit gemmUnit() {
  Unit unit;
  unit.sourceFile = "examples/gemm.tile";
  unit.compilerVersion = "0.1.0";
  unit.image = {ImageKind::PTX, "sm_90a", ".version 8.0\n.target sm_90a\n"};
  Function f;
  f.name = "matmul";
  f.location = "examples/gemm.tile:12";
  f.params = {tensor("A", "float16", {"m", "1024"}),
              tensor("B", "float16", {"1024", "1024"}),
              tensor("C", "float16", {"m", "1024"}, 128),
              scalar("alpha", "float16"), symbol("m")};
  f.checks = {{"m", "m % 128 == 0"}};
  KernelLaunch main;
  main.entry = "matmul_kernel";
  main.grid = {"(m + 127) / 128", "8", "1"};
  main.block = {384, 1, 1};
  main.cluster = {2, 1, 1};
  main.dynamicSharedBytes = 98304;
  TensorMap map;
  map.tensor = 0;
  map.boxDims = {64, 128};
  map.swizzle = TensorMap::Swizzle::B128;
  main.args = {
      KernelArg::ofTensorMap(map), KernelArg::ofParam(1),
      KernelArg::ofParam(2),       KernelArg::ofParam(3),
      KernelArg::ofParam(4),       KernelArg::ofValue("int32", "m * 1024")};
  main.resources.registers = 168;
  main.resources.spillStoreBytes = 0;
  main.resources.spillLoadBytes = 0;
  KernelLaunch epilogue;
  epilogue.entry = "epilogue";
  epilogue.grid = {"m", "1", "1"};
  epilogue.block = {128, 1, 1};
  epilogue.args = {KernelArg::ofParam(2)};
  f.kernels = {main, epilogue};
  unit.functions.push_back(f);
  return unit;
}

Unit hipUnit() {
  Unit unit = vectorAddUnit();
  unit.image.kind = ImageKind::HSACO;
  unit.image.target = "gfx942";
  unit.image.bytes = std::string("\x7f"
                                 "ELF\x02\x01\x01\x40\0\0\0",
                                 12);
  // What the code object metadata reports on CDNA (gfx90a/gfx942 count the
  // AGPRs in the VGPR total).
  Resources &r = unit.functions[0].kernels[0].resources;
  r.registers = 44;
  r.accumRegisters = 32;
  r.scalarRegisters = 14;
  r.spilledVectorRegisters = 3;
  r.spilledScalarRegisters = 0;
  r.stackBytes = 412;
  r.staticSharedBytes = 0;
  return unit;
}

// Names that would break a naive renderer: keywords, the generated
// `stream` parameter and `tilec_` locals, punctuation, duplicates after
// sanitising, a function named like a header helper, a symbol that is a
// keyword used in a grid expression.
Unit nastyUnit() {
  Unit unit;
  unit.sourceFile = "dir/my-kernels.v2.tile";
  unit.image = {ImageKind::Cubin, "sm_90",
                std::string("\x7f"
                            "ELF\0\x01",
                            6)};
  Function f;
  f.name = "load";
  f.params = {tensor("class", "bfloat16", {"new"}),
              tensor("stream", "int8", {"new", "4"}, 1),
              scalar("tilec_err", "bfloat16"),
              scalar("a b", "float64"),
              scalar("a_b", "bool"),
              symbol("new")};
  KernelLaunch k;
  k.entry = "kernel\"with\\quotes";
  k.grid = {"(new + 1) / 2", "1", "1"};
  k.block = {32, 2, 1};
  for (unsigned i = 0; i < 6; ++i)
    k.args.push_back(KernelArg::ofParam(i));
  f.kernels.push_back(k);
  unit.functions.push_back(f);
  Function g = f;
  g.name = "unload";
  g.kernels[0].args.pop_back(); // `new` passed to no kernel
  unit.functions.push_back(g);
  // Names of the runtime and of the locals of TMA and cluster launches.
  Function h;
  h.name = "cuLaunchKernel";
  h.params = {tensor("dims", "float32", {"rows", "cols"}),
              tensor("box", "float32", {"rows", "cols"}),
              scalar("config", "int32"),
              symbol("rows"),
              symbol("cols"),
              scalar("cuScale", "float32")};
  KernelLaunch tma;
  tma.entry = "tma";
  tma.grid = {"cols / 32", "rows", "1"};
  tma.block = {128, 1, 1};
  tma.cluster = {2, 1, 1};
  TensorMap map;
  map.tensor = 0;
  map.boxDims = {32, 8};
  tma.args = {KernelArg::ofTensorMap(map),
              KernelArg::ofParam(1),
              KernelArg::ofParam(2),
              KernelArg::ofParam(3),
              KernelArg::ofParam(4),
              KernelArg::ofParam(5),
              KernelArg::ofValue("uint32", "rows * cols")};
  h.kernels.push_back(tma);
  unit.functions.push_back(h);
  return unit;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

//===----------------------------------------------------------------------===//
// Running a compiler
//===----------------------------------------------------------------------===//

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern =
        (fs::temp_directory_path() / "tilec-header-XXXXXX").string();
    if (mkdtemp(pattern.data()))
      path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty())
      fs::remove_all(path, ec);
  }
  std::string file(const std::string &name) const {
    return (path / name).string();
  }
};

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool haveTool(const std::string &tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

// Runs `command` in `dir`; returns its exit status and puts its output in
// `output`.
int run(const TempDir &dir, const std::string &command, std::string &output) {
  std::string log = dir.file("log.txt");
  int status = std::system(
      ("cd '" + dir.path.string() + "' && " + command + " >'" + log + "' 2>&1")
          .c_str());
  output = readFile(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const char *cudaInclude = "/usr/local/cuda/include";
const char *cudaStubs = "/usr/local/cuda/lib64/stubs";
const char *strictFlags =
    "-std=c++17 -Wall -Wextra -Wshadow -Wpedantic -Werror";

bool haveCudaHeaders() {
  return fs::exists(std::string(cudaInclude) + "/cuda.h");
}
bool haveHipHeaders() {
  return fs::exists("/usr/include/hip/hip_runtime_api.h");
}

std::vector<std::string> compilers() {
  std::vector<std::string> found;
  for (const char *cxx : {"g++", "clang++-22"})
    if (haveTool(cxx))
      found.push_back(cxx);
  return found;
}

// A translation unit that calls every launch function of the header.
const char *cudaCaller = R"cpp(
#include "kernels.h"
namespace k = tilec_kernels::vector_add;
CUresult callAll(CUdeviceptr a, CUstream s) {
  CUresult err = k::vector_add(a, a, a, 1024, s);
  if (err == CUDA_SUCCESS)
    err = k::vector_add(a, a, a, 4096);
  char log[64];
  (void)k::loadLog(log, sizeof log);
  (void)k::load();
  return err != CUDA_SUCCESS ? err : k::unload();
}
)cpp";

//===----------------------------------------------------------------------===//
// The fake CUDA driver
//===----------------------------------------------------------------------===//

// Runs against gemmUnit()'s header. Every expectation prints its line when
// it fails; the exit status is the number of failures.
const char *cudaMockProgram = R"cpp(
#include "kernels.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace k = tilec_kernels::gemm;

static int failures = 0;
#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::printf("line %d: EXPECT(%s) failed\n", __LINE__, #cond);           \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

// ---- The fake driver: records what the header asks of it. ----
struct Launch {
  std::string entry;
  unsigned grid[3], block[3], cluster[3], shared;
  CUstream stream;
  std::vector<std::string> args; // the bytes of each kernel argument
};
static std::mutex recordMutex;
static CUcontext current = nullptr;
static unsigned long long currentId = 0;
static std::atomic<int> loads{0}, unloads{0};
static std::vector<std::string> attributes;
static std::vector<Launch> launches;
static std::string encoded;
static CUresult loadResult = CUDA_SUCCESS, launchResult = CUDA_SUCCESS;
// What the real driver would read from the image: argument sizes.
static const std::map<std::string, std::vector<size_t>> argSizes = {
    {"matmul_kernel", {sizeof(CUtensorMap), 8, 8, 2, 4, 4}},
    {"epilogue", {8}}};

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_ERROR_INVALID_CONTEXT ? "CUDA_ERROR_INVALID_CONTEXT"
                                              : "CUDA_ERROR_SOMETHING";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetId(CUcontext, unsigned long long *id) {
  *id = currentId;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image,
                                    unsigned n, CUjit_option *options,
                                    void **values) {
  const char *ptx = static_cast<const char *>(image);
  // The PTX must come NUL-terminated.
  if (std::strlen(ptx) != k::kImageSize || std::strncmp(ptx, ".version", 8))
    return CUDA_ERROR_INVALID_IMAGE;
  if (loadResult != CUDA_SUCCESS) {
    char *log = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        log = static_cast<char *>(values[i]);
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        size = reinterpret_cast<size_t>(values[i]);
    }
    if (log && size > 20)
      std::strcpy(log, "fake jit error");
    return loadResult;
  }
  ++loads;
  *module = reinterpret_cast<CUmodule>(new int(loads));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction *function, CUmodule,
                                     const char *name) {
  *function = reinterpret_cast<CUfunction>(new std::string(name));
  return CUDA_SUCCESS;
}
static std::string nameOf(CUfunction f) {
  return *reinterpret_cast<std::string *>(f);
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute a,
                                    int value) {
  std::lock_guard<std::mutex> lock(recordMutex);
  attributes.push_back(nameOf(f) + ":" + std::to_string(int(a)) + "=" +
                       std::to_string(value));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  delete reinterpret_cast<int *>(module);
  ++unloads;
  return CUDA_SUCCESS;
}
static CUresult record(CUfunction f, const unsigned grid[3],
                       const unsigned block[3], const unsigned cluster[3],
                       unsigned shared, CUstream stream, void **params) {
  std::lock_guard<std::mutex> lock(recordMutex);
  Launch l{nameOf(f), {grid[0], grid[1], grid[2]},
           {block[0], block[1], block[2]}, {cluster[0], cluster[1], cluster[2]},
           shared, stream, {}};
  const std::vector<size_t> &sizes = argSizes.at(l.entry);
  for (size_t i = 0; i < sizes.size(); ++i)
    l.args.emplace_back(static_cast<const char *>(params[i]), sizes[i]);
  launches.push_back(l);
  return launchResult;
}
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                                unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned shared, CUstream stream,
                                void **params, void **extra) {
  if (extra)
    return CUDA_ERROR_INVALID_VALUE;
  const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz},
                 cluster[3] = {1, 1, 1};
  return record(f, grid, block, cluster, shared, stream, params);
}
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f,
                                  void **params, void **extra) {
  if (extra || c->numAttrs != 1 ||
      c->attrs[0].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
    return CUDA_ERROR_INVALID_VALUE;
  const unsigned grid[3] = {c->gridDimX, c->gridDimY, c->gridDimZ},
                 block[3] = {c->blockDimX, c->blockDimY, c->blockDimZ},
                 cluster[3] = {c->attrs[0].value.clusterDim.x,
                               c->attrs[0].value.clusterDim.y,
                               c->attrs[0].value.clusterDim.z};
  return record(f, grid, block, cluster, c->sharedMemBytes, c->hStream, params);
}
CUresult CUDAAPI cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
    CUtensorMapFloatOOBfill fill) {
  std::string s = "type=" + std::to_string(int(type)) +
                  " rank=" + std::to_string(rank) + " dims=";
  for (unsigned i = 0; i < rank; ++i)
    s += std::to_string(dims[i]) + ",";
  s += " strides=";
  for (unsigned i = 0; i + 1 < rank; ++i)
    s += std::to_string(strides[i]) + ",";
  s += " box=";
  for (unsigned i = 0; i < rank; ++i)
    s += std::to_string(box[i]) + "/" + std::to_string(elementStrides[i]) + ",";
  s += " il=" + std::to_string(int(interleave)) +
       " sw=" + std::to_string(int(swizzle)) + " l2=" + std::to_string(int(l2)) +
       " oob=" + std::to_string(int(fill));
  encoded = s;
  std::memset(map, 0, sizeof *map);
  std::memcpy(map, &address, sizeof address); // lets the test see the pointer
  return CUDA_SUCCESS;
}

// ---- Helpers ----
template <typename T> static T as(const std::string &bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}

static void expectHalf(float value, unsigned expected) {
  unsigned got = k::detail::halfBits(value);
  if (got != expected) {
    std::printf("halfBits(%a) = %#x, expected %#x\n", value, got, expected);
    ++failures;
  }
}

int main() {
  const CUdeviceptr A = 0x10000, B = 0x20000, C = 0x30000;
  CUstream stream = reinterpret_cast<CUstream>(0x77);

  // What lastError()/statusString() report after the last call.
  auto status = [](CUresult result, const char *text) {
    bool ok = k::lastError() == result &&
              std::strcmp(k::statusString(), text) == 0;
    if (!ok)
      std::printf("status: %d \"%s\", expected %d \"%s\"\n",
                  int(k::lastError()), k::statusString(), int(result), text);
    return ok;
  };
  EXPECT(status(CUDA_SUCCESS, "ok")); // before any call

  // No current context: nothing can be loaded.
  EXPECT(k::matmul(A, B, C, 1.0f, 256) == CUDA_ERROR_INVALID_CONTEXT);
  EXPECT(status(CUDA_ERROR_INVALID_CONTEXT,
                "matmul: loading the image (loadLog() has the JIT log): "
                "CUDA_ERROR_INVALID_CONTEXT (201)"));
  current = reinterpret_cast<CUcontext>(0x1000);
  currentId = 1;

  // Rejected arguments: nothing is loaded or launched, and the status
  // names the argument and the bound.
  const CUresult invalid = CUDA_ERROR_INVALID_VALUE;
  EXPECT(k::matmul(0, B, C, 1.0f, 256) == invalid);
  EXPECT(status(invalid, "matmul: argument `A` is null"));
  EXPECT(k::matmul(A, 0, C, 1.0f, 256) == invalid);
  EXPECT(status(invalid, "matmul: argument `B` is null"));
  EXPECT(k::matmul(A + 8, B, C, 1.0f, 256) == invalid);
  EXPECT(status(invalid,
                "matmul: argument `A` (0x10008) is not 16-byte aligned"));
  EXPECT(k::matmul(A, B, C + 64, 1.0f, 256) == invalid);
  EXPECT(status(invalid,
                "matmul: argument `C` (0x30040) is not 128-byte aligned"));
  EXPECT(k::matmul(A, B, C, 1.0f, 0) == invalid);
  EXPECT(status(invalid, "matmul: argument `m` is 0, outside [1, INT32_MAX]"));
  EXPECT(k::matmul(A, B, C, 1.0f, -128) == invalid);
  EXPECT(k::matmul(A, B, C, 1.0f, 1ll << 31) == invalid);
  EXPECT(status(invalid,
                "matmul: argument `m` is 2147483648, outside [1, INT32_MAX]"));
  EXPECT(k::matmul(A, B, C, 1.0f, 200) == invalid); // check
  EXPECT(status(invalid, "matmul: check `m % 128 == 0` failed (m = 200)"));
  // m * 1024 no longer fits the int32 argument.
  EXPECT(k::matmul(A, B, C, 1.0f, 1 << 21) == invalid);
  EXPECT(status(invalid, "matmul: kernel `matmul_kernel`: argument 5 "
                         "(`m * 1024` = 2147483648) does not fit int32"));
  // Grid x of kernel 0 is odd: not a multiple of the cluster.
  EXPECT(k::matmul(A, B, C, 1.0f, 128) == invalid);
  EXPECT(status(invalid, "matmul: kernel `matmul_kernel`: grid (1, 8, 1) is "
                         "not a multiple of the cluster (2, 1, 1)"));
  EXPECT(loads == 0);
  EXPECT(launches.empty());

  // A good call loads once, opts in, encodes the TMA map, launches both.
  EXPECT(k::matmul(A, B, C, 1.0f, 256, stream) == CUDA_SUCCESS);
  EXPECT(status(CUDA_SUCCESS, "ok"));
  EXPECT(loads == 1);
  EXPECT(attributes.size() == 1);
  EXPECT(attributes[0] ==
         "matmul_kernel:" +
             std::to_string(int(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)) +
             "=98304");
  EXPECT(encoded ==
         "type=" + std::to_string(int(CU_TENSOR_MAP_DATA_TYPE_FLOAT16)) +
             " rank=2 dims=1024,256, strides=2048, box=64/1,128/1, il=" +
             std::to_string(int(CU_TENSOR_MAP_INTERLEAVE_NONE)) +
             " sw=" + std::to_string(int(CU_TENSOR_MAP_SWIZZLE_128B)) +
             " l2=" + std::to_string(int(CU_TENSOR_MAP_L2_PROMOTION_L2_128B)) +
             " oob=" + std::to_string(int(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)));
  EXPECT(launches.size() == 2);
  if (launches.size() == 2) {
    const Launch &l = launches[0];
    EXPECT(l.entry == "matmul_kernel");
    EXPECT(l.grid[0] == 2 && l.grid[1] == 8 && l.grid[2] == 1);
    EXPECT(l.block[0] == 384 && l.block[1] == 1 && l.block[2] == 1);
    EXPECT(l.cluster[0] == 2 && l.cluster[1] == 1 && l.cluster[2] == 1);
    EXPECT(l.shared == 98304 && l.stream == stream);
    EXPECT(as<CUdeviceptr>(l.args[0]) == A); // the map's first bytes
    EXPECT(as<CUdeviceptr>(l.args[1]) == B);
    EXPECT(as<CUdeviceptr>(l.args[2]) == C);
    EXPECT(as<std::uint16_t>(l.args[3]) == 0x3c00);
    EXPECT(as<std::int32_t>(l.args[4]) == 256);
    EXPECT(as<std::int32_t>(l.args[5]) == 256 * 1024);
    const Launch &e = launches[1];
    EXPECT(e.entry == "epilogue");
    EXPECT(e.grid[0] == 256 && e.grid[1] == 1 && e.grid[2] == 1);
    EXPECT(e.block[0] == 128 && e.shared == 0 && e.stream == stream);
    EXPECT(e.cluster[0] == 1);
    EXPECT(as<CUdeviceptr>(e.args[0]) == C);
  }

  // Loaded once per context.
  EXPECT(k::matmul(A, B, C, -2.0f, 512) == CUDA_SUCCESS);
  EXPECT(loads == 1);
  EXPECT(launches.size() == 4 && as<std::uint16_t>(launches[2].args[3]) == 0xc000);
  EXPECT(launches[3].stream == nullptr);
  current = reinterpret_cast<CUcontext>(0x2000);
  currentId = 2;
  EXPECT(k::load() == CUDA_SUCCESS);
  EXPECT(loads == 2);
  EXPECT(k::matmul(A, B, C, 1.0f, 256) == CUDA_SUCCESS);
  EXPECT(loads == 2);
  current = reinterpret_cast<CUcontext>(0x1000);
  currentId = 1;
  EXPECT(k::matmul(A, B, C, 1.0f, 256) == CUDA_SUCCESS);
  EXPECT(loads == 2);
  // A new context that reuses a destroyed one's handle gets its own module.
  currentId = 3;
  EXPECT(k::matmul(A, B, C, 1.0f, 256) == CUDA_SUCCESS);
  EXPECT(loads == 3);
  EXPECT(unloads == 0);

  // unload() drops the current context's module; the next launch reloads.
  EXPECT(k::unload() == CUDA_SUCCESS);
  EXPECT(unloads == 1);
  EXPECT(k::unload() == CUDA_SUCCESS); // nothing left to unload
  EXPECT(unloads == 1);
  EXPECT(k::matmul(A, B, C, 1.0f, 256) == CUDA_SUCCESS);
  EXPECT(loads == 4);

  // A failed load returns the driver's error and keeps its JIT log.
  current = reinterpret_cast<CUcontext>(0x3000);
  currentId = 4;
  loadResult = CUDA_ERROR_INVALID_PTX;
  launches.clear();
  EXPECT(k::matmul(A, B, C, 1.0f, 256) == CUDA_ERROR_INVALID_PTX);
  EXPECT(launches.empty());
  char log[64];
  EXPECT(k::loadLog(log, sizeof log) == 14);
  EXPECT(std::strcmp(log, "fake jit error") == 0);
  char small[5];
  EXPECT(k::loadLog(small, sizeof small) == 14);
  EXPECT(std::strcmp(small, "fake") == 0);
  loadResult = CUDA_SUCCESS;
  EXPECT(k::matmul(A, B, C, 1.0f, 256) == CUDA_SUCCESS);
  EXPECT(loads == 5);
  EXPECT(k::loadLog(log, sizeof log) == 0);

  // A failed launch stops the sequence and returns the error.
  launchResult = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  launches.clear();
  EXPECT(k::matmul(A, B, C, 1.0f, 256) == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  EXPECT(launches.size() == 1);
  launchResult = CUDA_SUCCESS;

  // Threads racing on a fresh context load the image once.
  current = reinterpret_cast<CUcontext>(0x4000);
  currentId = 5;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i)
        ok += k::matmul(A, B, C, 1.0f, 256) == CUDA_SUCCESS;
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT(ok == 400);
  EXPECT(loads == 6);

  // float -> float16 bits, round to nearest even.
  expectHalf(0.0f, 0x0000);
  expectHalf(-0.0f, 0x8000);
  expectHalf(1.0f, 0x3c00);
  expectHalf(0.1f, 0x2e66);
  expectHalf(65504.0f, 0x7bff);
  expectHalf(65519.0f, 0x7bff);
  expectHalf(65520.0f, 0x7c00); // rounds up to infinity
  expectHalf(1e10f, 0x7c00);
  expectHalf(-1e10f, 0xfc00);
  expectHalf(0x1p-24f, 0x0001);  // smallest subnormal
  expectHalf(0x1p-25f, 0x0000);  // tie: to even (zero)
  expectHalf(0x1.8p-24f, 0x0002); // tie: to even (2)
  expectHalf(0x1.000002p-25f, 0x0001);
  expectHalf(0x1.ff8p-15f, 0x03ff);  // largest subnormal
  expectHalf(0x1.ffcp-15f, 0x0400);  // tie: to even, the smallest normal
  expectHalf(0x1.ffap-15f, 0x03ff);
  expectHalf(__builtin_inff(), 0x7c00);
  EXPECT((k::detail::halfBits(__builtin_nanf("")) & 0x7e00) == 0x7e00);
#ifdef __FLT16_MAX__
  // Against the compiler's own conversion, over a spread of bit patterns
  // that covers every exponent.
  for (std::uint64_t bits = 0; bits < (1ull << 32); bits += 997) {
    std::uint32_t b = static_cast<std::uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    if (f != f)
      continue;
    _Float16 h = static_cast<_Float16>(f);
    std::uint16_t expected;
    std::memcpy(&expected, &h, 2);
    if (k::detail::halfBits(f) != expected) {
      std::printf("halfBits(%a) = %#x, _Float16 gives %#x\n", f,
                  unsigned(k::detail::halfBits(f)), unsigned(expected));
      ++failures;
      break;
    }
  }
#endif
  std::printf("%d failures\n", failures);
  return failures;
}
)cpp";

//===----------------------------------------------------------------------===//
// The fake HIP runtime
//===----------------------------------------------------------------------===//

const char *hipMockProgram = R"cpp(
#include "kernels.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace k = tilec_kernels::vector_add;

static int failures = 0;
#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::printf("line %d: EXPECT(%s) failed\n", __LINE__, #cond);           \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

static int device = 0, loads = 0, unloads = 0;
struct Launch {
  std::string entry;
  unsigned grid[3], block[3], shared;
  hipStream_t stream;
  void *a, *b, *c;
  std::int32_t n;
};
static std::vector<Launch> launches;

const char *hipGetErrorName(hipError_t error) {
  return error == hipErrorInvalidValue ? "hipErrorInvalidValue"
                                       : "hipErrorSomething";
}
hipError_t hipGetDevice(int *d) {
  *d = device;
  return hipSuccess;
}
hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  if (std::memcmp(image, "\x7f" "ELF", 4) != 0)
    return hipErrorInvalidImage;
  ++loads;
  *module = reinterpret_cast<hipModule_t>(new int(loads));
  return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t, const char *name) {
  *f = reinterpret_cast<hipFunction_t>(new std::string(name));
  return hipSuccess;
}
hipError_t hipModuleUnload(hipModule_t module) {
  delete reinterpret_cast<int *>(module);
  ++unloads;
  return hipSuccess;
}
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy,
                                 unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared,
                                 hipStream_t stream, void **params,
                                 void **extra) {
  if (extra)
    return hipErrorInvalidValue;
  Launch l{*reinterpret_cast<std::string *>(f), {gx, gy, gz}, {bx, by, bz},
           shared, stream, nullptr, nullptr, nullptr, 0};
  std::memcpy(&l.a, params[0], sizeof(void *));
  std::memcpy(&l.b, params[1], sizeof(void *));
  std::memcpy(&l.c, params[2], sizeof(void *));
  std::memcpy(&l.n, params[3], sizeof(std::int32_t));
  launches.push_back(l);
  return hipSuccess;
}

int main() {
  void *a = reinterpret_cast<void *>(0x1000), *b = reinterpret_cast<void *>(0x2000),
       *c = reinterpret_cast<void *>(0x3000);
  EXPECT(k::vector_add(nullptr, b, c, 1000) == hipErrorInvalidValue);
  EXPECT(k::vector_add(a, static_cast<char *>(b) + 4, c, 1000) ==
         hipErrorInvalidValue);
  EXPECT(k::vector_add(a, b, c, 0) == hipErrorInvalidValue);
  EXPECT(k::vector_add(a, b, c, 1ll << 31) == hipErrorInvalidValue);
  EXPECT(loads == 0 && launches.empty());
  EXPECT(k::vector_add(a, b, c, 1000) == hipSuccess);
  EXPECT(k::vector_add(a, b, c, 256) == hipSuccess);
  EXPECT(loads == 1);
  EXPECT(launches.size() == 2);
  if (launches.size() == 2) {
    const Launch &l = launches[0];
    EXPECT(l.entry == "vector_add_kernel");
    EXPECT(l.grid[0] == 4 && l.grid[1] == 1 && l.grid[2] == 1);
    EXPECT(l.block[0] == 256 && l.block[1] == 1 && l.shared == 0);
    EXPECT(l.a == a && l.b == b && l.c == c && l.n == 1000);
    EXPECT(launches[1].grid[0] == 1 && launches[1].n == 256);
  }
  device = 1; // a second device loads its own module
  EXPECT(k::vector_add(a, b, c, 1000) == hipSuccess);
  EXPECT(loads == 2);
  EXPECT(k::unload() == hipSuccess && unloads == 1);
  EXPECT(k::load() == hipSuccess && loads == 3);
  device = 0;
  EXPECT(k::vector_add(a, b, c, 1000) == hipSuccess);
  EXPECT(loads == 3);
  std::printf("%d failures\n", failures);
  return failures;
}
)cpp";

} // namespace

//===----------------------------------------------------------------------===//
// Rendered text
//===----------------------------------------------------------------------===//

TEST_CASE("CUDA header has the module table and a checked launch function",
          "[header]") {
  std::string h = renderCudaHeader(vectorAddUnit());
  CHECK(contains(h,
                 "// Generated by tilec 0.1.0 from examples/vector_add.tile."));
  CHECK(contains(h,
                 "#ifndef TILEC_GENERATED_TILEC_KERNELS_VECTOR_ADD_CUDA_H\n"
                 "#define TILEC_GENERATED_TILEC_KERNELS_VECTOR_ADD_CUDA_H\n"));
  CHECK(contains(h, "#include <cuda.h>\n"));
  CHECK(contains(h, "namespace tilec_kernels {\nnamespace vector_add {\n"));
  CHECK(contains(h, "inline constexpr char kTarget[] = \"sm_80\";"));
  CHECK(contains(h, "inline constexpr std::size_t kImageSize = 27;"));
  // The PTX, NUL-terminated, 16 bytes a line.
  CHECK(contains(h,
                 "alignas(64) inline constexpr unsigned char kImage[28] = {\n"
                 "    0x2e, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x20, "
                 "0x38, 0x2e, 0x30, 0x0a, 0x2e, 0x74, 0x61,\n"));
  CHECK(contains(h, "0x30, 0x0a, 0x00,\n};"));
  CHECK(contains(h, "cuCtxGetCurrent(&context)"));
  CHECK(contains(h, "std::mutex mutex;"));
  CHECK(contains(h, "std::lock_guard<std::mutex> lock(state.mutex);"));
  CHECK(contains(
      h, "cuModuleLoadDataEx(&loaded.module, kImage, 2, options, values)"));
  CHECK(contains(
      h,
      "cuModuleGetFunction(&loaded.functions[i], loaded.module, kEntries[i])"));
  CHECK(contains(h, "\"vector_add_kernel\","));
  CHECK(contains(h, "inline CUresult unload() {"));
  CHECK(contains(h, "inline CUresult load() {"));
  // The .tile signature in the documentation.
  CHECK(contains(h, "/// Launches the kernels of `vector_add` "
                    "(examples/vector_add.tile:5):"));
  CHECK(contains(h, "///   n = T.dynamic(\"n\")\n///   @T.prim_func\n"
                    "///   def vector_add(A: T.Tensor((n,), \"float32\"),\n"
                    "///                  B: T.Tensor((n,), \"float32\"),\n"));
  CHECK(contains(h, "///   vector_add_kernel: grid ((n + 255) / 256, 1, 1), "
                    "block (256, 1, 1)"));
  // The launch function and its checks.
  CHECK(contains(h, "inline CUresult vector_add(CUdeviceptr A,\n"
                    "                           CUdeviceptr B,\n"
                    "                           CUdeviceptr C,\n"
                    "                           std::int64_t n,\n"
                    "                           CUstream stream = nullptr) {"));
  CHECK(contains(
      h, "  if (A == 0)\n    return detail::reject(\"vector_add: argument `A` is null\");\n"
                   "  if (A % 16 != 0)\n    return detail::reject("));
  CHECK(contains(
      h,
      "  if (n < 1 || n > INT32_MAX)\n    return detail::reject(\"vector_add: "
                   "argument `n` is %lld, outside [1, INT32_MAX]\""));
  CHECK(contains(
      h, "  const std::int64_t tilec_grid0[3] = {(n + 255) / 256, 1, 1};"));
  CHECK(
      contains(h, "  std::int32_t tilec_p_n = static_cast<std::int32_t>(n);"));
  CHECK(contains(h, "  void *tilec_args0[] = {&A, &B, &C, &tilec_p_n};"));
  CHECK(contains(h, "  tilec_err = cuLaunchKernel(\n      tilec_fn[0],\n"));
  CHECK(contains(h, "      256, 1, 1, 0u, stream, tilec_args0, nullptr);"));
  // Features this unit does not use stay out.
  CHECK_FALSE(contains(h, "#error"));
  CHECK_FALSE(contains(h, "halfBits"));
  CHECK_FALSE(contains(h, "cuTensorMapEncodeTiled"));
  CHECK(contains(h, "kDynamicShared[kNumEntries] = {0u};"));
  CHECK(h.back() == '\n');
}

TEST_CASE("CUDA header builds TMA maps, launches clusters, opts in",
          "[header]") {
  std::string h = renderCudaHeader(gemmUnit());
  CHECK(contains(h, "#if CUDA_VERSION < 12000\n#error"));
  CHECK(contains(h, "kDynamicShared[kNumEntries] = {98304u, 0u};"));
  CHECK(contains(h, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"));
  CHECK(contains(h, "inline std::uint16_t halfBits(float value) {"));
  CHECK(
      contains(h, "  std::uint16_t tilec_p_alpha = detail::halfBits(alpha);"));
  CHECK(contains(
      h, "  if (!(m % 128 == 0))\n    return detail::reject(\"matmul: check `%s` "
                   "failed (m = %lld)\", \"m % 128 == 0\""));
  CHECK(contains(h, "  if (C % 128 != 0)"));
  CHECK(contains(
      h, "if (!detail::gridInRange(tilec_grid0))\n    return detail::reject(\"matmul: "
                   "kernel `matmul_kernel`: grid (%lld, %lld, %lld) is outside "
                   "the launch limits\", "));
  CHECK(contains(h, "const std::int64_t tilec_arg0_5_wide = m * 1024;"));
  CHECK(contains(
      h,
      "if (tilec_arg0_5_wide < INT32_MIN || tilec_arg0_5_wide > INT32_MAX)"));
  CHECK(contains(h, "CUtensorMap tilec_tmap0_0;"));
  CHECK(contains(
      h, "const cuuint64_t tilec_dims[2] = {static_cast<cuuint64_t>(1024), "
         "static_cast<cuuint64_t>(m)};"));
  CHECK(contains(h, "const cuuint32_t tilec_box[2] = {64, 128};"));
  CHECK(contains(h, "CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,"));
  CHECK(contains(h, "CU_TENSOR_MAP_SWIZZLE_128B"));
  CHECK(contains(
      h, "void *tilec_args0[] = {&tilec_tmap0_0, &B, &C, &tilec_p_alpha, "
         "&tilec_p_m, &tilec_arg0_5};"));
  CHECK(contains(h, "cluster[0].value.clusterDim.x = 2;"));
  CHECK(contains(
      h,
      "tilec_err = cuLaunchKernelEx(&tilec_config, tilec_fn[0], tilec_args0,"));
  CHECK(contains(h, "///     98304 B dynamic shared; 168 registers, 0 B spill "
                    "stores, 0 B spill loads"));
  CHECK(contains(
      h, "///   alpha   float         rounded to float16 (nearest even)"));
  CHECK(contains(h, "/// Checked: m % 128 == 0"));
  // The epilogue is launched after the main kernel, with its own grid.
  size_t main = h.find("// Kernel 0: matmul_kernel.");
  size_t epilogue = h.find("// Kernel 1: epilogue.");
  CHECK(main != std::string::npos);
  CHECK(epilogue > main);
  CHECK(epilogue != std::string::npos);
}

TEST_CASE("HIP header has the same shape over the module API", "[header]") {
  std::string h = renderHipHeader(hipUnit());
  CHECK(contains(h, "#include <hip/hip_runtime_api.h>\n"));
  CHECK(contains(h, "#ifndef TILEC_GENERATED_TILEC_KERNELS_VECTOR_ADD_HIP_H"));
  CHECK(contains(h, "inline constexpr char kTarget[] = \"gfx942\";"));
  // No NUL appended to a code object; the NULs inside are kept.
  CHECK(contains(
      h, "kImage[12] = {\n    0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, "
         "0x40, 0x00, 0x00, 0x00, 0x00,\n};"));
  CHECK(contains(h, "hipGetDevice(&device)"));
  CHECK(contains(h, "hipModuleLoadData(&loaded.module, kImage)"));
  CHECK(contains(h, "hipModuleGetFunction(&loaded.functions[i], loaded.module, "
                    "kEntries[i])"));
  CHECK(contains(h, "inline hipError_t vector_add(hipDeviceptr_t A,\n"
                    "                             hipDeviceptr_t B,\n"));
  CHECK(contains(h, "hipStream_t stream = nullptr) {"));
  CHECK(contains(
      h, "if (A == nullptr)\n"
         "    return detail::reject(\"vector_add: argument `A` is null\");\n"
         "  if (reinterpret_cast<std::uintptr_t>(A) % 16 != 0)\n"));
  CHECK(
      contains(h, "tilec_err = hipModuleLaunchKernel(\n      tilec_fn[0],\n"));
  CHECK(contains(h, "inline hipError_t unload() {"));
  CHECK(contains(h, "44 VGPRs (32 AGPRs), 14 SGPRs, 3 VGPRs and 0 SGPRs "
                    "spilled, 412 B stack, 0 B static shared"));
  std::string j = renderMetadataJSON(hipUnit());
  CHECK(contains(j, "\"accum_registers\": 32,\n"));
  CHECK(contains(j, "\"scalar_registers\": 14,\n"));
  CHECK(contains(j, "\"spilled_vector_registers\": 3,\n"));
  CHECK(contains(j, "\"spill_store_bytes\": null,\n"));
  CHECK_FALSE(contains(h, "cuda"));
  CHECK_FALSE(contains(h, "CUDA"));
}

TEST_CASE("rendering is deterministic", "[header]") {
  for (const Unit &unit : {vectorAddUnit(), gemmUnit(), nastyUnit()}) {
    Unit copy = unit;
    CHECK(renderCudaHeader(unit) == renderCudaHeader(copy));
    CHECK(renderMetadataJSON(unit) == renderMetadataJSON(copy));
  }
  CHECK(renderHipHeader(hipUnit()) == renderHipHeader(hipUnit()));
  // ...and depends on its input.
  Unit other = vectorAddUnit();
  other.image.bytes[3] = 'X';
  CHECK(renderCudaHeader(other) != renderCudaHeader(vectorAddUnit()));
}

TEST_CASE("names are sanitised into C++ identifiers", "[header]") {
  CHECK(sanitizeIdentifier("matmul") == "matmul");
  CHECK(sanitizeIdentifier("a-b.c") == "a_b_c");
  CHECK(sanitizeIdentifier("1x") == "_1x");
  CHECK(sanitizeIdentifier("") == "_");
  CHECK(sanitizeIdentifier("class") == "class_");
  CHECK(sanitizeIdentifier("and") == "and_");
  CHECK(sanitizeIdentifier("NULL") == "NULL_");
  CHECK(sanitizeIdentifier("a__b") == "a_b");
  CHECK(sanitizeIdentifier("__x") == "_x");
  CHECK(sanitizeIdentifier("_X") == "u_X");
  CHECK(sanitizeIdentifier("h\xc3\xa9llo") == "h_llo");
  CHECK(defaultNamespace("examples/gemm.tile") == "tilec_kernels::gemm");
  CHECK(defaultNamespace("dir/my-kernels.v2.tile") ==
        "tilec_kernels::my_kernels");
  CHECK(defaultNamespace("C:\\src\\fa3.tile") == "tilec_kernels::fa3");
  CHECK(canonicalDType("half") == "float16");
  CHECK(canonicalDType("bf16") == "bfloat16");
  CHECK(canonicalDType("complex64").empty());

  std::string h = renderCudaHeader(nastyUnit());
  CHECK(contains(h, "namespace tilec_kernels {\nnamespace my_kernels {"));
  CHECK(contains(h, "inline CUresult load_(CUdeviceptr class_,"));
  CHECK(contains(h, "inline CUresult unload_(CUdeviceptr class_,"));
  CHECK(contains(h, "CUdeviceptr stream_,"));
  CHECK(contains(h, "float u_tilec_err,"));
  CHECK(contains(h, "double a_b,"));
  CHECK(contains(h, "bool a_b_2,"));
  CHECK(contains(h, "std::int64_t new_,"));
  CHECK(contains(h, "{(new_ + 1) / 2, 1, 1}"));
  CHECK(contains(h, "\"kernel\\\"with\\\\quotes\","));
  CHECK(contains(h, "inline CUresult u_cuLaunchKernel(CUdeviceptr dims,"));
  CHECK(contains(h, "float u_cuScale,"));
  CHECK(contains(
      h, "if (tilec_arg0_6_wide < 0 || tilec_arg0_6_wide > UINT32_MAX)"));
  // The alignment-1 tensor is only checked for null.
  CHECK(contains(h, "if (stream_ == 0)\n"));
  // `new` is passed to no kernel of `unload`: no unused local for it.
  size_t unloadFn = h.find("inline CUresult unload_(");
  CHECK(h.find("tilec_p_new_", unloadFn) == std::string::npos);
}

TEST_CASE("validate rejects what would not compile or not match", "[header]") {
  auto expectError = [](Unit unit, Flavor flavor, const std::string &part) {
    std::string error = validate(unit, flavor);
    INFO("error: " << error);
    CHECK(contains(error, part));
    CHECK_THROWS_AS(renderHeader(unit, flavor), HeaderError);
  };
  CHECK(validate(vectorAddUnit(), Flavor::CUDA).empty());
  CHECK(validate(gemmUnit(), Flavor::CUDA).empty());
  CHECK(validate(hipUnit(), Flavor::HIP).empty());
  CHECK(validate(nastyUnit(), Flavor::CUDA).empty());

  Unit u = vectorAddUnit();
  u.functions[0].kernels[0].grid[0] = "(k + 255) / 256";
  expectError(u, Flavor::CUDA, "`k` in `(k + 255) / 256` is not a symbol");
  u = vectorAddUnit();
  u.functions[0].kernels[0].grid[0] = "n); system(\"rm -rf /\"";
  expectError(u, Flavor::CUDA, "unexpected character ';'");
  for (const char *assigning : {"n = 5", "n++", "n += 1", "--n", "n <<= 1"}) {
    u = vectorAddUnit();
    u.functions[0].checks.push_back({"n", assigning});
    expectError(u, Flavor::CUDA, "assignment in `");
  }
  u = vectorAddUnit();
  u.functions[0].kernels[0].grid[0] = "n, 2";
  expectError(u, Flavor::CUDA, "unexpected character ','");
  u = vectorAddUnit();
  u.functions[0].checks.push_back(
      {"n", "n >= 1 && n != 3 || n <= 2 && (n >> 1) == 0"});
  CHECK(validate(u, Flavor::CUDA).empty());
  u = vectorAddUnit();
  u.functions[0].kernels[0].grid[1] = "";
  expectError(u, Flavor::CUDA, "empty expression");
  u = vectorAddUnit();
  u.functions[0].kernels[0].grid[1] = "(n + 1";
  expectError(u, Flavor::CUDA, "unbalanced parentheses");
  u = vectorAddUnit();
  u.functions[0].checks.push_back({"n", "n.size() > 0"});
  expectError(u, Flavor::CUDA, "unexpected character '.'");
  u = vectorAddUnit();
  u.functions[0].kernels[0].block = {1024, 2, 1};
  expectError(u, Flavor::CUDA, "block of 2048 threads");
  u = vectorAddUnit();
  u.functions[0].kernels[0].args.push_back(KernelArg::ofParam(9));
  expectError(u, Flavor::CUDA, "argument 4: parameter index 9 out of range");
  u = vectorAddUnit();
  u.functions[0].kernels[0].args.push_back(KernelArg::ofValue("float32", "n"));
  expectError(u, Flavor::CUDA, "value of type `float32`");
  u = vectorAddUnit();
  u.functions[0].params[0].alignment = 12;
  expectError(u, Flavor::CUDA, "alignment 12 is not a power of two");
  u = vectorAddUnit();
  u.functions[0].params[0].dtype = "complex64";
  expectError(u, Flavor::CUDA, "unknown dtype `complex64`");
  u = vectorAddUnit();
  u.functions[0].params[0].shape = {"n", "q"};
  expectError(u, Flavor::CUDA, "shape: `q`");
  u = vectorAddUnit();
  u.functions[0].kernels.clear();
  expectError(u, Flavor::CUDA, "launches no kernel");
  u = vectorAddUnit();
  u.functions.push_back(u.functions[0]);
  expectError(u, Flavor::CUDA, "two functions are named `vector_add`");
  u = vectorAddUnit();
  u.functions[0].params[1].name = "A";
  expectError(u, Flavor::CUDA, "two parameters named `A`");
  u = vectorAddUnit();
  u.image.bytes.clear();
  expectError(u, Flavor::CUDA, "the image is empty");
  u = vectorAddUnit();
  u.image.bytes += '\0';
  expectError(u, Flavor::CUDA, "NUL byte");
  expectError(vectorAddUnit(), Flavor::HIP,
              "a ptx image cannot be loaded through HIP");
  expectError(hipUnit(), Flavor::CUDA,
              "a hsaco image cannot be loaded through CUDA");
  u = gemmUnit();
  u.image.kind = ImageKind::HSACO;
  expectError(u, Flavor::HIP, "thread-block clusters need CUDA");
  u.functions[0].kernels[0].cluster = {1, 1, 1};
  expectError(u, Flavor::HIP, "tensor maps (TMA) need CUDA");
  u = gemmUnit();
  u.functions[0].kernels[0].args[0].tensorMap.boxDims = {256, 128};
  expectError(u, Flavor::CUDA, "more than the 128-byte swizzle span");
  u = gemmUnit();
  u.functions[0].kernels[0].args[0].tensorMap.boxDims = {64};
  expectError(u, Flavor::CUDA, "must match rank 2");
  u = gemmUnit();
  u.functions[0].kernels[0].args[0].tensorMap.tensor = 3;
  expectError(u, Flavor::CUDA, "not a tensor");
  u = gemmUnit();
  u.nameSpace = "a::::b";
  expectError(u, Flavor::CUDA, "empty component");
}

TEST_CASE("an explicit namespace is used as given", "[header]") {
  Unit u = vectorAddUnit();
  u.nameSpace = "my::ops";
  std::string h = renderCudaHeader(u);
  CHECK(contains(h, "namespace my {\nnamespace ops {\n"));
  CHECK(contains(h, "} // namespace ops\n} // namespace my\n"));
  CHECK(contains(h, "#ifndef TILEC_GENERATED_MY_OPS_CUDA_H"));
}

//===----------------------------------------------------------------------===//
// Metadata JSON
//===----------------------------------------------------------------------===//

TEST_CASE("metadata JSON describes the unit in a fixed order", "[header]") {
  std::string j = renderMetadataJSON(gemmUnit());
  CHECK(
      j.rfind("{\n  \"format\": \"tilec-kernels\",\n  \"format_version\": 1,\n"
              "  \"source\": \"examples/gemm.tile\",\n"
              "  \"compiler_version\": \"0.1.0\",\n"
              "  \"namespace\": \"tilec_kernels::gemm\",\n"
              "  \"image\": {\n    \"kind\": \"ptx\",\n    \"target\": "
              "\"sm_90a\",\n"
              "    \"size\": 28\n  },\n",
              0) == 0);
  CHECK(contains(
      j, "\"name\": \"A\",\n          \"cpp_name\": \"A\",\n"
         "          \"kind\": \"tensor\",\n          \"dtype\": \"float16\",\n"
         "          \"shape\": [\n            \"m\",\n            \"1024\"\n"
         "          ],\n          \"alignment\": 16\n"));
  CHECK(contains(j, "\"symbols\": [\n        \"m\"\n      ],"));
  CHECK(contains(j, "\"condition\": \"m % 128 == 0\""));
  CHECK(contains(j, "\"entry\": \"matmul_kernel\""));
  CHECK(contains(j, "\"dynamic_shared_bytes\": 98304"));
  CHECK(contains(j, "\"registers\": 168"));
  CHECK(contains(j, "\"stack_bytes\": null"));
  CHECK(contains(j, "\"kind\": \"tensor_map\""));
  CHECK(contains(j, "\"swizzle\": \"128b\""));
  CHECK(contains(j, "\"expr\": \"m * 1024\""));
  CHECK(j.back() == '\n');
}

TEST_CASE("metadata JSON reads back into the same unit", "[header]") {
  for (const Unit &unit :
       {vectorAddUnit(), gemmUnit(), nastyUnit(), hipUnit()}) {
    std::string j = renderMetadataJSON(unit);
    Unit back = parseMetadataJSON(j, unit.image.bytes);
    CHECK(renderMetadataJSON(back) == j);
    Flavor flavor =
        unit.image.kind == ImageKind::HSACO ? Flavor::HIP : Flavor::CUDA;
    CHECK(renderHeader(back, flavor) == renderHeader(unit, flavor));
  }
  std::string j = renderMetadataJSON(vectorAddUnit());
  std::string image = vectorAddUnit().image.bytes;
  auto expectError = [&](const std::string &text, const std::string &bytes,
                         const std::string &part) {
    try {
      parseMetadataJSON(text, bytes);
      FAIL("no error; expected " << part);
    } catch (const HeaderError &e) {
      INFO("error: " << e.what());
      CHECK(contains(e.what(), part));
    }
  };
  expectError("{", image, "not valid JSON");
  expectError("[]", image, "missing key `format`");
  expectError("{\"format\": \"other\"}", image, "not a tilec metadata file");
  expectError(j, image + "x", "the image has 28 bytes; the metadata says 27");
  std::string bad = j;
  bad.replace(bad.find("\"symbol\""), 8, "\"widget\"");
  expectError(bad, image, "unknown parameter kind `widget`");
  bad = j;
  bad.replace(bad.find("\"format_version\": 1"), 19, "\"format_version\": 7");
  expectError(bad, image, "metadata format version 7");
  bad = j;
  bad.replace(bad.find("\"block\""), 7, "\"blocks\"");
  expectError(bad, image, "missing key `block`");
  bad = j;
  bad.replace(bad.find("\"dynamic_shared_bytes\": 0"), 25,
              "\"dynamic_shared_bytes\": \"0\"");
  expectError(bad, image, "key `dynamic_shared_bytes` has the wrong type");
}

//===----------------------------------------------------------------------===//
// Compiling, linking and running the header
//===----------------------------------------------------------------------===//

TEST_CASE("CUDA headers compile warning-free with g++ and clang++",
          "[header]") {
  if (!haveCudaHeaders()) {
    WARN("skipped: no " << cudaInclude << "/cuda.h");
    return;
  }
  std::vector<std::string> cxxs = compilers();
  if (cxxs.empty()) {
    WARN("skipped: neither g++ nor clang++-22 found");
    return;
  }
  struct Case {
    const char *name;
    Unit unit;
    const char *caller;
  };
  // The nasty unit's functions are called through a pointer to check that
  // they are declared with the expected C++ types.
  const char *nastyCaller = R"cpp(
#include "kernels.h"
namespace k = tilec_kernels::my_kernels;
CUresult (*loadFn)(CUdeviceptr, CUdeviceptr, float, double, bool, std::int64_t,
                   CUstream) = &k::load_;
CUresult (*unloadFn)(CUdeviceptr, CUdeviceptr, float, double, bool,
                     std::int64_t, CUstream) = &k::unload_;
CUresult both() { return k::unload() == CUDA_SUCCESS ? k::load() : CUDA_ERROR_UNKNOWN; }
CUresult tma(CUdeviceptr p) { return k::u_cuLaunchKernel(p, p, 1, 64, 64, 0.5f); }
)cpp";
  const char *gemmCaller = R"cpp(
#include "kernels.h"
CUresult call(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream s) {
  return tilec_kernels::gemm::matmul(a, b, c, 0.5f, 4096, s);
}
)cpp";
  std::vector<Case> cases = {{"vector_add", vectorAddUnit(), cudaCaller},
                             {"gemm", gemmUnit(), gemmCaller},
                             {"nasty", nastyUnit(), nastyCaller}};
  for (const std::string &cxx : cxxs)
    for (const Case &c : cases)
      for (const char *extra : {"", " -fno-exceptions"}) {
        TempDir dir;
        REQUIRE(!dir.path.empty());
        writeFile(dir.file("kernels.h"), renderCudaHeader(c.unit));
        writeFile(dir.file("caller.cpp"), c.caller);
        std::string output;
        std::string command = cxx + " " + strictFlags + extra +
                              " -fsyntax-only -isystem " + cudaInclude +
                              " caller.cpp";
        int status = run(dir, command, output);
        INFO(c.name << ": " << command << "\n" << output);
        CHECK(status == 0);
      }
}

TEST_CASE(
    "a CUDA program of two translation units links against the driver stub",
    "[header]") {
  if (!haveCudaHeaders() ||
      !fs::exists(std::string(cudaStubs) + "/libcuda.so") || !haveTool("g++")) {
    WARN("skipped: needs g++, cuda.h and " << cudaStubs << "/libcuda.so");
    return;
  }
  TempDir dir;
  REQUIRE(!dir.path.empty());
  writeFile(dir.file("kernels.h"), renderCudaHeader(vectorAddUnit()));
  writeFile(dir.file("caller.cpp"), cudaCaller);
  // A second TU that includes the same header: the inline variables (image,
  // module table) must not be defined twice.
  writeFile(dir.file("main.cpp"), R"cpp(
#include "kernels.h"
CUresult callAll(CUdeviceptr a, CUstream s);
int main(int argc, char **) {
  if (argc > 100)
    return tilec_kernels::vector_add::load();
  return callAll(0, nullptr) == CUDA_SUCCESS ? 0 : 1;
}
)cpp");
  std::string output;
  std::string command = std::string("g++ ") + strictFlags + " -isystem " +
                        cudaInclude + " caller.cpp main.cpp -L" + cudaStubs +
                        " -lcuda -o program";
  int status = run(dir, command, output);
  INFO(command << "\n" << output);
  CHECK(status == 0);
  CHECK(fs::exists(dir.file("program")));
}

TEST_CASE("the CUDA header behaves against a fake driver", "[header]") {
  if (!haveCudaHeaders() || !haveTool("g++")) {
    WARN("skipped: needs g++ and cuda.h");
    return;
  }
  TempDir dir;
  REQUIRE(!dir.path.empty());
  writeFile(dir.file("kernels.h"), renderCudaHeader(gemmUnit()));
  writeFile(dir.file("mock.cpp"), cudaMockProgram);
  std::string output;
  std::string build =
      std::string("g++ -std=c++17 -O1 -pthread -Wall -Werror -isystem ") +
      cudaInclude + " mock.cpp -o mock";
  int status = run(dir, build, output);
  INFO(build << "\n" << output);
  REQUIRE(status == 0);
  status = run(dir, "./mock", output);
  INFO(output);
  CHECK(status == 0);
  CHECK(contains(output, "0 failures"));
}

TEST_CASE("HIP headers compile, link and behave against a fake runtime",
          "[header]") {
  if (!haveHipHeaders() || !haveTool("g++")) {
    WARN("skipped: needs g++ and /usr/include/hip/hip_runtime_api.h");
    return;
  }
  for (const std::string &cxx : compilers()) {
    TempDir dir;
    REQUIRE(!dir.path.empty());
    writeFile(dir.file("kernels.h"), renderHipHeader(hipUnit()));
    writeFile(dir.file("caller.cpp"), R"cpp(
#include "kernels.h"
namespace k = tilec_kernels::vector_add;
hipError_t call(void *a, const void *b, hipStream_t s) {
  hipError_t err = k::vector_add(a, const_cast<void *>(b), a, 1024, s);
  return err != hipSuccess ? err : k::unload();
}
)cpp");
    std::string output;
    std::string command = cxx + " " + strictFlags +
                          " -D__HIP_PLATFORM_AMD__ -fsyntax-only caller.cpp";
    int status = run(dir, command, output);
    INFO(command << "\n" << output);
    CHECK(status == 0);
  }
  TempDir dir;
  REQUIRE(!dir.path.empty());
  writeFile(dir.file("kernels.h"), renderHipHeader(hipUnit()));
  if (fs::exists("/usr/lib/x86_64-linux-gnu/libamdhip64.so")) {
    writeFile(dir.file("main.cpp"), R"cpp(
#include "kernels.h"
int main() {
  return tilec_kernels::vector_add::vector_add(nullptr, nullptr, nullptr, 1) ==
                 hipErrorInvalidValue ? 0 : 1;
}
)cpp");
    std::string output;
    std::string command =
        std::string("g++ ") + strictFlags +
        " -D__HIP_PLATFORM_AMD__ main.cpp -lamdhip64 -o program";
    int status = run(dir, command, output);
    INFO(command << "\n" << output);
    CHECK(status == 0);
  } else {
    WARN("link check skipped: no libamdhip64.so");
  }
  writeFile(dir.file("mock.cpp"), hipMockProgram);
  std::string output;
  std::string build = "g++ -std=c++17 -O1 -Wall -Werror -D__HIP_PLATFORM_AMD__ "
                      "mock.cpp -o mock";
  int status = run(dir, build, output);
  INFO(build << "\n" << output);
  REQUIRE(status == 0);
  status = run(dir, "./mock", output);
  INFO(output);
  CHECK(status == 0);
  CHECK(contains(output, "0 failures"));
}
