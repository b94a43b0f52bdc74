# lit configuration for tilec's FileCheck tests.
import os
import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".tile", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")

# Tools under test first, then LLVM's FileCheck/not/count/split-file.
config.environment["PATH"] = os.pathsep.join(
    [config.tilec_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# ptxas results are cached (targets/common/ToolCache.h): the tests use a
# cache of their own, and none of the toolkit variables of the caller.
config.environment["TILEC_CACHE_DIR"] = os.path.join(
    config.tilec_obj_root, "test", "tilec-cache")
for var in ("TILEC_CUDA_PATH", "CUDA_PATH", "TILEC_ROCM_PATH", "ROCM_PATH"):
    config.environment.pop(var, None)

config.substitutions.append(("%examples", os.path.join(config.tilec_src_root, "examples")))
config.substitutions.append(("%ptxas", config.ptxas))
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
# The installed-package test (test/CMake) needs CMake and a libcuda to link
# against (the toolkit's stub is enough).
config.substitutions.append(("%tilec_build", config.tilec_obj_root))
config.substitutions.append(("%cmake", config.cmake))
if config.cmake and os.path.exists(config.cmake):
    config.available_features.add("cmake")
if config.cuda_driver and os.path.exists(config.cuda_driver):
    config.available_features.add("cuda-driver")
# LLVM's clang++ (next to FileCheck): host emulation of SIMT kernels.
if os.path.exists(os.path.join(config.llvm_tools_dir, "clang++")):
    config.available_features.add("host-clang")
if os.geteuid() == 0:
    # root ignores permission bits: tests of unwritable paths use other means.
    config.available_features.add("root")

config.substitutions.append(
    ("%expect_exit", "sh " + os.path.join(config.tilec_src_root, "test", "expect-exit.sh")))
# Host-side checks of the GPU scripts' references (numpy only, no GPU):
# the tests' `python3` (first on their PATH, not necessarily lit's own).
import subprocess
try:
    if subprocess.run(["python3", "-c", "import numpy"], env=config.environment,
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("numpy")
except OSError:
    pass
# The shared side-by-side runner (../shared/sxs/diff_run.py), which
# bench/diff_tma.py patches: where a checkout has it next to the project.
for _d in (os.path.join(config.tilec_src_root, "..", "shared"), "/work/shared"):
    if os.path.isfile(os.path.join(_d, "sxs", "diff_run.py")):
        config.available_features.add("sxs")
        config.substitutions.append(("%sxs", os.path.join(os.path.abspath(_d), "sxs")))
        break
# The conformance kernels (../shared/conformance/, beside the checkout as in
# CI, or the workplace's copy): bench/conf_torch.py's sample is checked
# against their cases.tsv.
for _d in (os.path.join(config.tilec_src_root, "..", "shared"), "/work/shared"):
    if os.path.isfile(os.path.join(_d, "conformance", "cases.tsv")):
        config.available_features.add("conformance")
        config.substitutions.append(
            ("%conformance", os.path.join(os.path.abspath(_d), "conformance")))
        break
