//===- Toolchain.cpp - Where the external tools and libraries are ---------===//
//
// The search rules of Toolchain.h. An explicitly given root (an option or
// an environment variable) is authoritative: when the tool is not under it
// the search fails instead of silently using another toolkit, since a user
// who names a CUDA version wants that one. Without one, the toolkit found
// when tilec was configured comes first and $PATH last.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Toolchain.h"
#include "tilec/Target/Codegen.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

// Set by targets/common/CMakeLists.txt from what configure found; empty
// when it found nothing (the search then goes on to $PATH).
#ifndef TILEC_DEFAULT_CUDA_ROOT
#define TILEC_DEFAULT_CUDA_ROOT ""
#endif
#ifndef TILEC_DEFAULT_ROCM_BITCODE_DIR
#define TILEC_DEFAULT_ROCM_BITCODE_DIR ""
#endif
#ifndef TILEC_DEFAULT_LLD
#define TILEC_DEFAULT_LLD ""
#endif

using namespace llvm;

namespace tilec {

namespace {

std::string getEnv(const char *name) {
  const char *value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::string join(StringRef a, std::initializer_list<StringRef> rest) {
  SmallString<256> path(a);
  // path::append would add a separator for an empty component too.
  for (StringRef component : rest)
    sys::path::append(path, component);
  return std::string(path);
}

struct Root {
  std::string path;
  const char *source = nullptr; // "--cuda-path", "TILEC_CUDA_PATH", ...
};

/// The first explicitly given root, if any.
Root explicitRoot(std::initializer_list<Root> candidates) {
  for (const Root &root : candidates)
    if (!root.path.empty())
      return root;
  return {};
}

Root explicitCudaRoot(const ToolchainEnv &env) {
  return explicitRoot({{env.cudaPathOption, "--cuda-path"},
                       {env.tilecCudaPath, "TILEC_CUDA_PATH"},
                       {env.cudaPath, "CUDA_PATH"}});
}

Root explicitRocmRoot(const ToolchainEnv &env) {
  return explicitRoot({{env.rocmPathOption, "--rocm-path"},
                       {env.tilecRocmPath, "TILEC_ROCM_PATH"},
                       {env.rocmPath, "ROCM_PATH"}});
}

/// Tries `path` (a file, executable when `program`) and records it.
bool tryFile(ToolSearch &search, const std::string &path, StringRef source,
             bool program) {
  search.searched.push_back(path + " (" + source.str() + ")");
  bool ok = program ? sys::fs::can_execute(path)
                    : sys::fs::is_regular_file(path);
  if (ok)
    search.path = path;
  return ok;
}

/// `name` in the folders of `pathVar` (a $PATH value).
bool tryPath(ToolSearch &search, StringRef name, StringRef pathVar) {
  SmallVector<StringRef> dirs;
  pathVar.split(dirs, sys::EnvPathSeparator, -1, /*KeepEmpty=*/false);
  search.searched.push_back(name.str() + " on PATH");
  // findProgramByName searches the real $PATH when given no folders.
  if (dirs.empty())
    return false;
  ErrorOr<std::string> found = sys::findProgramByName(name, dirs);
  if (!found)
    return false;
  search.path = *found;
  return true;
}

/// The CUDA root ptxas came from when it was found on $PATH.
std::string rootOfPtxasOnPath(const ToolchainEnv &env) {
  ToolSearch onPath;
  if (!tryPath(onPath, "ptxas", env.path))
    return {};
  SmallString<256> real;
  if (sys::fs::real_path(onPath.path, real))
    real = onPath.path;
  return std::string(sys::path::parent_path(sys::path::parent_path(real)));
}

} // namespace

ToolchainEnv ToolchainEnv::fromProcess(const CodegenOptions &options) {
  ToolchainEnv env;
  env.cudaPathOption = options.cudaPath;
  env.rocmPathOption = options.rocmPath;
  env.tilecCudaPath = getEnv("TILEC_CUDA_PATH");
  env.cudaPath = getEnv("CUDA_PATH");
  env.tilecRocmPath = getEnv("TILEC_ROCM_PATH");
  env.rocmPath = getEnv("ROCM_PATH");
  env.path = getEnv("PATH");
  env.configuredCuda = TILEC_DEFAULT_CUDA_ROOT;
  env.configuredRocmBitcode = TILEC_DEFAULT_ROCM_BITCODE_DIR;
  env.configuredLld = TILEC_DEFAULT_LLD;
  return env;
}

std::string ToolSearch::notFoundMessage(const std::string &what,
                                        const std::string &hint) const {
  std::string text = what + " not found; searched: ";
  for (size_t i = 0; i < searched.size(); ++i)
    text += (i ? ", " : "") + searched[i];
  if (searched.empty())
    text += "nothing";
  if (!hint.empty())
    text += "; " + hint;
  return text;
}

ToolSearch findPtxas(const ToolchainEnv &env) {
  ToolSearch search;
  if (Root root = explicitCudaRoot(env); root.source) {
    tryFile(search, join(root.path, {"bin", "ptxas"}), root.source, true);
    return search;
  }
  if (!env.configuredCuda.empty() &&
      tryFile(search, join(env.configuredCuda, {"bin", "ptxas"}),
              "the toolkit tilec was configured with", true))
    return search;
  tryPath(search, "ptxas", env.path);
  return search;
}

ToolSearch findLibdevice(const ToolchainEnv &env) {
  ToolSearch search;
  auto tryRoot = [&](StringRef root, StringRef source) {
    return tryFile(search, join(root, {"nvvm", "libdevice", "libdevice.10.bc"}),
                   source, false);
  };
  if (Root root = explicitCudaRoot(env); root.source) {
    tryRoot(root.path, root.source);
    return search;
  }
  if (!env.configuredCuda.empty() &&
      tryRoot(env.configuredCuda, "the toolkit tilec was configured with"))
    return search;
  std::string root = rootOfPtxasOnPath(env);
  if (root.empty())
    search.searched.push_back("the toolkit of ptxas on PATH (none)");
  else
    tryRoot(root, "the toolkit of ptxas on PATH");
  return search;
}

ToolSearch findRocmBitcodeDir(const ToolchainEnv &env) {
  ToolSearch search;
  auto tryDir = [&](const std::string &dir, StringRef source) {
    search.searched.push_back(dir + " (" + source.str() + ")");
    if (sys::fs::is_regular_file(join(dir, {"ocml.bc"}))) {
      search.path = dir;
      return true;
    }
    return false;
  };
  if (Root root = explicitRocmRoot(env); root.source) {
    if (!tryDir(join(root.path, {"amdgcn", "bitcode"}), root.source))
      tryDir(join(root.path, {"lib", "amdgcn", "bitcode"}), root.source);
    return search;
  }
  if (!env.configuredRocmBitcode.empty() &&
      tryDir(env.configuredRocmBitcode, "found when tilec was configured"))
    return search;
  tryDir("/opt/rocm/amdgcn/bitcode", "the default ROCm root");
  return search;
}

ToolSearch findLld(const ToolchainEnv &env) {
  ToolSearch search;
  if (!env.configuredLld.empty() &&
      tryFile(search, env.configuredLld, "LLVM 22, found when tilec was configured",
              true))
    return search;
  if (tryPath(search, "ld.lld-22", env.path))
    return search;
  if (Root root = explicitRocmRoot(env); root.source)
    tryFile(search, join(root.path, {"llvm", "bin", "ld.lld"}), root.source,
            true);
  return search;
}

} // namespace tilec
