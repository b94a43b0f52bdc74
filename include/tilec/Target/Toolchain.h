//===- Toolchain.h - Where the external tools and libraries are -*- C++ -*-===//
//
// tilec runs two external tools (ptxas for cubins, ld.lld for HSACOs) and
// links two bitcode libraries (libdevice, the ROCm device libraries). None
// of their paths is fixed at build time: each is searched for when a compile
// needs it, in the order the README's "Toolchain paths" documents, so that an installed tilec can be moved to another machine whose
// CUDA or ROCm lives elsewhere. A tool that is not found is an error naming
// every place that was searched.
//
// The search is a pure function of a ToolchainEnv (the options, the
// environment variables, the configure-time defaults, PATH) so tests can
// exercise every rule without touching the real environment.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TARGET_TOOLCHAIN_H
#define TILEC_TARGET_TOOLCHAIN_H

#include <string>
#include <vector>

namespace tilec {

struct CodegenOptions;

/// What the search looks at.
struct ToolchainEnv {
  std::string cudaPathOption;  ///< --cuda-path
  std::string rocmPathOption;  ///< --rocm-path
  std::string tilecCudaPath;   ///< $TILEC_CUDA_PATH
  std::string cudaPath;        ///< $CUDA_PATH
  std::string tilecRocmPath;   ///< $TILEC_ROCM_PATH
  std::string rocmPath;        ///< $ROCM_PATH
  std::string path;            ///< $PATH
  std::string configuredCuda;  ///< CUDA root found when tilec was configured
  std::string configuredRocmBitcode; ///< ROCm bitcode dir found then
  std::string configuredLld;   ///< LLVM 22's ld.lld found then

  /// The process's environment and the configure-time defaults, with the
  /// command-line roots from `options`.
  static ToolchainEnv fromProcess(const CodegenOptions &options);
};

/// The outcome of one search: `path` is empty when nothing was found, and
/// `searched` lists each candidate looked at with where it came from
/// ("/opt/cuda/bin/ptxas (--cuda-path)").
struct ToolSearch {
  std::string path;
  std::vector<std::string> searched;
  /// "ptxas not found; searched: a (x), b (y); <hint>".
  std::string notFoundMessage(const std::string &what,
                              const std::string &hint) const;
};

/// ptxas: the first of --cuda-path, $TILEC_CUDA_PATH, $CUDA_PATH that is set
/// names the CUDA root and only <root>/bin/ptxas is tried; when none is set,
/// the configure-time toolkit's, then `ptxas` on $PATH.
ToolSearch findPtxas(const ToolchainEnv &env);
/// libdevice.10.bc: <root>/nvvm/libdevice/ for the same root as ptxas (for
/// a ptxas found on PATH, the root is its folder's parent).
ToolSearch findLibdevice(const ToolchainEnv &env);
/// The ROCm device libraries' folder (holding ocml.bc): the first of
/// --rocm-path, $TILEC_ROCM_PATH, $ROCM_PATH that is set names the root
/// (<root>/amdgcn/bitcode, <root>/lib/amdgcn/bitcode); else the
/// configure-time folder, then /opt/rocm/amdgcn/bitcode.
ToolSearch findRocmBitcodeDir(const ToolchainEnv &env);
/// ld.lld of LLVM 22: the configure-time one, then `ld.lld-22` on $PATH,
/// then <rocm root>/llvm/bin/ld.lld when a ROCm root is given.
ToolSearch findLld(const ToolchainEnv &env);

} // namespace tilec

#endif // TILEC_TARGET_TOOLCHAIN_H
