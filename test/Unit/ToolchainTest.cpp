//===- ToolchainTest.cpp - Where tilec looks for ptxas, libdevice, ROCm ---===//
//
// The search rules of tilec/Target/Toolchain.h on a fake file tree: an
// explicit root is authoritative, the configured toolkit comes before PATH,
// a ptxas found on PATH brings its libdevice, and every miss lists what was
// searched.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Toolchain.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

namespace fs = std::filesystem;
using namespace tilec;

namespace {

/// A temporary folder tree, removed at the end of the test.
struct Tree {
  fs::path root;
  Tree() {
    std::random_device rd;
    root = fs::temp_directory_path() /
           ("tilec-toolchain-" + std::to_string(rd()));
    fs::create_directories(root);
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  /// Creates `relative` (executable when `program`) and returns its path.
  std::string file(const std::string &relative, bool program = false) {
    fs::path path = root / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "#!/bin/sh\n";
    if (program)
      fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
    return path.string();
  }
  std::string dir(const std::string &relative) {
    fs::create_directories(root / relative);
    return (root / relative).string();
  }
};

} // namespace

TEST_CASE("ptxas: an explicit root is the only place searched",
          "[toolchain]") {
  Tree t;
  std::string good = t.dir("good");
  std::string ptxas = t.file("good/bin/ptxas", true);
  std::string empty = t.dir("empty");
  t.file("path/ptxas", true);

  ToolchainEnv env;
  env.configuredCuda = good;
  env.path = t.dir("path");
  env.cudaPathOption = empty;
  env.tilecCudaPath = good;
  ToolSearch found = findPtxas(env);
  CHECK(found.path.empty());
  REQUIRE(found.searched.size() == 1);
  CHECK(found.searched[0] == empty + "/bin/ptxas (--cuda-path)");
  CHECK(found.notFoundMessage("ptxas", "a hint") ==
        "ptxas not found; searched: " + empty + "/bin/ptxas (--cuda-path); "
        "a hint");

  // The option first, then TILEC_CUDA_PATH, then CUDA_PATH.
  env.cudaPathOption = "";
  CHECK(findPtxas(env).path == ptxas);
  env.tilecCudaPath = "";
  env.cudaPath = empty;
  CHECK(findPtxas(env).path.empty());
  CHECK(findPtxas(env).searched[0] == empty + "/bin/ptxas (CUDA_PATH)");
}

TEST_CASE("ptxas: the configured toolkit, then PATH", "[toolchain]") {
  Tree t;
  std::string onPath = t.file("toolkit/bin/ptxas", true);
  std::string libdevice = t.file("toolkit/nvvm/libdevice/libdevice.10.bc");
  ToolchainEnv env;
  env.configuredCuda = t.dir("moved-away");
  env.path = t.dir("elsewhere") + ":" + t.root.string() + "/toolkit/bin";
  ToolSearch found = findPtxas(env);
  CHECK(found.path == onPath);
  CHECK(found.searched.size() == 2);
  // libdevice comes from the toolkit ptxas was found in.
  CHECK(findLibdevice(env).path == libdevice);

  // Not executable: not a ptxas.
  Tree u;
  u.file("bin/ptxas", false);
  env.configuredCuda = u.root.string();
  env.path = "";
  found = findPtxas(env);
  CHECK(found.path.empty());
  CHECK(found.notFoundMessage("ptxas", "") ==
        "ptxas not found; searched: " + u.root.string() +
            "/bin/ptxas (the toolkit tilec was configured with), ptxas on "
            "PATH");
}

TEST_CASE("ROCm device libraries and ld.lld", "[toolchain]") {
  Tree t;
  t.file("rocm/lib/amdgcn/bitcode/ocml.bc");
  std::string configured = t.dir("debian/bitcode");
  t.file("debian/bitcode/ocml.bc");
  ToolchainEnv env;
  env.configuredRocmBitcode = configured;
  CHECK(findRocmBitcodeDir(env).path == configured);
  // A ROCm root: <root>/amdgcn/bitcode, then <root>/lib/amdgcn/bitcode.
  env.rocmPath = (t.root / "rocm").string();
  CHECK(findRocmBitcodeDir(env).path ==
        (t.root / "rocm/lib/amdgcn/bitcode").string());
  env.rocmPathOption = t.dir("empty");
  ToolSearch missing = findRocmBitcodeDir(env);
  CHECK(missing.path.empty());
  CHECK(missing.searched.size() == 2);
  CHECK(missing.searched[0] == t.root.string() +
                                   "/empty/amdgcn/bitcode (--rocm-path)");

  // ld.lld: the configured one, else ld.lld-22 on PATH.
  std::string lld = t.file("llvm/ld.lld-22", true);
  env.configuredLld = (t.root / "gone/ld.lld").string();
  env.path = t.root.string() + "/llvm";
  CHECK(findLld(env).path == lld);
}
