//===- tilec.cpp - The tilec command line ---------------------------------===//
//
// Parses the command line with the conventions of clang and nvcc
// (`tilec FILE -o OUT`, `-D`, `-MD`/`-MF`) and hands a DriverOptions to the
// pipeline. Usage errors exit 2; compile errors exit 1.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "tilec/Config.h"
#include "tilec/Target/InitDeviceOps.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>

using namespace tilec;

static const char *kFooter = R"(Stages (--emit):
  ast     the parsed syntax tree
  tile    the tile dialect after semantic checks (MLIR)
  gpu     the GPU dialect after lowering (MLIR)
  llvm    LLVM IR for the device
  ptx     PTX assembly (NVIDIA targets; the default for sm_*)
  cubin   a cubin assembled by ptxas (NVIDIA targets)
  hsaco   an HSA code object (AMD targets; the default for gfx*)
  header  the C++ launch header only
  json    the kernel metadata only
  layouts SVG pictures of every fragment's thread/register map and every
          shared buffer's banks (-o X.html: an HTML page, one SVG each)
  When --emit is absent it follows the extension of -o.

Exit status: 0 success, 1 compile error, 2 usage error.
Examples:
  tilec examples/vector_add.tile -o va.ptx --header va.h
  tilec gemm.tile --target sm_80 -D block_M=64 --emit=tile
  tilec gemm.tile -o gemm.cubin -MD -MF gemm.d
  tilec gemm.tile --target sm_80,sm_90a --namespace app::gemm -o gemm.h

Toolchain: ptxas and libdevice come from the first of --cuda-path,
TILEC_CUDA_PATH, CUDA_PATH that is set; else the CUDA toolkit tilec was
configured with; else ptxas on PATH. The ROCm device libraries from
--rocm-path, TILEC_ROCM_PATH, ROCM_PATH; else the configured folder.
)";

/// Brackets `(`/`[` opened and not yet closed in `text`, outside quotes.
static int openBrackets(const std::string &text) {
  int open = 0;
  char quote = 0;
  for (char c : text) {
    if (quote)
      quote = c == quote ? 0 : quote;
    else if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(' || c == '[')
      ++open;
    else if ((c == ')' || c == ']') && open > 0)
      --open;
  }
  return open;
}

/// A -D value is a Python literal; one with brackets still open goes on in
/// the next -D argument, joined with a space: a list written as TileLang's
/// main() writes it, split at its spaces by a script that passes each word
/// as its own -D (`-D sizes=[64, -D 128, -D 256]`).
static std::vector<std::string>
joinSplitDefines(const std::vector<std::string> &defines) {
  std::vector<std::string> joined;
  for (const std::string &def : defines) {
    if (!joined.empty() && openBrackets(joined.back()) > 0)
      joined.back() += " " + def;
    else
      joined.push_back(def);
  }
  return joined;
}

int main(int argc, char **argv) {
  // The vendor ops the passes emit (DeviceOpBuilder), once per process.
  tilec::registerAllDeviceOps();
  // CLI11 only knows one-letter single-dash options; accept the compiler
  // spellings -MD/-MF/-MT by rewriting them to their long forms.
  std::vector<std::string> args(argv, argv + argc);
  for (std::string &arg : args)
    if (arg == "-MD" || arg == "-MF" || arg == "-MT" ||
        arg == "-ftime-report" || arg.rfind("-findex-bits", 0) == 0)
      arg = "-" + arg;

  // A bare -O would take the next argument as its level.
  if (std::find(args.begin() + 1, args.end(), "-O") != args.end()) {
    std::cerr << "tilec: error: -O: expected -O0, -O1, -O2 or -O3\n";
    return ExitUsageError;
  }

  DriverOptions opts;
  CLI::App app{"tilec: ahead-of-time compiler for TileLang .tile kernels",
               "tilec"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("tilec version ") +
                                        TILEC_VERSION_STRING +
                                        " (LLVM " TILEC_LLVM_VERSION ")");
  app.add_option("input", opts.inputPath, "The .tile file to compile")
      ->required();
  app.add_option("-o,--output", opts.outputPath,
                 "Output file ('-' for stdout)");
  std::string targetList;
  app.add_option("--target", targetList,
                 "sm_90a (default), sm_80, gfx90a or gfx942; a comma-separated "
                 "list (sm_80,sm_90a) makes one header with an image per chip");
  app.add_option("--namespace", opts.nameSpace,
                 "C++ namespace of the header (default tilec_kernels::<stem>)");
  app.add_option("--cuda-path", opts.cudaPath,
                 "Root of the CUDA toolkit (ptxas, libdevice); else "
                 "TILEC_CUDA_PATH, CUDA_PATH, the configured one, PATH");
  app.add_option("--rocm-path", opts.rocmPath,
                 "Root of ROCm (device libraries); else TILEC_ROCM_PATH, "
                 "ROCM_PATH, the configured one");
  app.add_flag("--ftime-report", opts.timeReport,
               "-ftime-report: print the time of each stage and pass");
  std::string emit;
  app.add_option("--emit", emit, "Stage to stop at (see below)");
  std::vector<std::string> defines;
  app.add_option("-D,--define", defines,
                 "Bind a compile-time parameter: -D name=value")
      ->allow_extra_args(false);
  app.add_option("--instances", opts.instancesPath,
                 "JSON file: a list of parameter objects, one per instance");
  app.add_option("--header", opts.headerPath, "Also write the C++ launch header");
  app.add_option("--json", opts.jsonPath, "Also write the kernel metadata JSON");
  app.add_flag("--MD", opts.writeDepfile,
               "-MD: write a depfile (Make/Ninja) beside the output");
  app.add_option("--MF", opts.depfilePath, "-MF FILE: the depfile's path");
  app.add_option("--MT", opts.depTarget, "-MT NAME: the depfile's target");
  app.add_flag("--fast-math", opts.fastMath,
               "Approximate kernel float math (fast div/exp/log/sin; "
               "assumes no NaN/Inf)");
  app.add_flag("--remarks", opts.remarks,
               "Explain decisions at the source as remarks (e.g. which "
               "tensor-core instructions a kernel's gemms use, and why)");
  app.add_flag("--pingpong", opts.pingpong,
               "Experimental, sm_90a: the consumer warpgroups of a "
               "warp-specialized loop of several gemms (FlashAttention) take "
               "turns issuing its first gemm");
  // As compilers spell it (-O2; the last one given counts). It is the LLVM
  // level of the device code; ptxas stays at -O3 like nvcc's, because its
  // register and spill report is what the resource checks read.
  std::string optLevel;
  app.add_option("-O,--optimize", optLevel,
                 "-O0 .. -O3: LLVM optimization level of the device code "
                 "(default -O3; ptxas runs at -O3 either way)")
      ->type_name("LEVEL")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--overlap-gemms", opts.overlapGemms,
               "sm_90a: keep the last wgmma gemm of every warp-specialized "
               "loop where it can be (FlashAttention's P V) in flight while "
               "the next iteration's first gemm is issued (by default only "
               "where it pays: a constant trip count and a ring of 3 stages)");
  app.add_flag("--no-overlap-gemms", opts.noOverlapGemms,
               "sm_90a: never keep a warp-specialized loop's last gemm in "
               "flight across iterations");
  app.add_option("--tuning-cache", opts.tuningCachePath,
                 "Compile each autotune factory's fastest configuration "
                 "recorded in this cache (tilec-bench --tune)");
  std::string indexBits = "auto";
  app.add_option("--findex-bits", indexBits,
                 "-findex-bits=auto|32|64: width of the kernels' index "
                 "arithmetic (auto: 64 only for a kernel whose global "
                 "tensors can pass 2^31 - 1 elements)");
  app.add_flag("--print-ir-after-all", opts.printIRAfterAll,
               "Print the IR after every pass to stderr");
  app.add_flag("--verify-each", opts.verifyEach,
               "Verify the IR after every pass of the tile lowering (by "
               "default once, after the last)");

  std::vector<const char *> cargv;
  for (const std::string &arg : args)
    cargv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(cargv.size()), cargv.data());
  } catch (const CLI::CallForHelp &e) {
    std::cout << app.help();
    return ExitSuccess;
  } catch (const CLI::CallForVersion &e) {
    std::cout << e.what() << "\n";
    return ExitSuccess;
  } catch (const CLI::ParseError &e) {
    std::cerr << "tilec: error: " << e.what() << "\n"
              << "Run 'tilec --help' for usage.\n";
    return ExitUsageError;
  }

  if (std::optional<IndexBits> bits = parseIndexBits(indexBits)) {
    opts.indexBits = *bits;
  } else {
    std::cerr << "tilec: error: -findex-bits: expected auto, 32 or 64, not '"
              << indexBits << "'\n";
    return ExitUsageError;
  }

  if (!optLevel.empty()) {
    if (optLevel.size() != 1 || optLevel[0] < '0' || optLevel[0] > '3') {
      std::cerr << "tilec: error: -O" << optLevel
                << ": expected -O0, -O1, -O2 or -O3\n";
      return ExitUsageError;
    }
    opts.optLevel = static_cast<unsigned>(optLevel[0] - '0');
  }

  if (!targetList.empty()) {
    // "sm_80,sm_90a": each known, none twice.
    opts.targets.clear();
    size_t start = 0;
    while (true) {
      size_t comma = targetList.find(',', start);
      std::string t = targetList.substr(start, comma - start);
      const auto &known = knownTargets();
      if (std::find(known.begin(), known.end(), t) == known.end()) {
        std::cerr << "tilec: error: --target: unknown target '" << t
                  << "' (expected sm_90a, sm_80, gfx90a or gfx942)\n";
        return ExitUsageError;
      }
      if (std::find(opts.targets.begin(), opts.targets.end(), t) !=
          opts.targets.end()) {
        std::cerr << "tilec: error: --target: '" << t << "' given twice\n";
        return ExitUsageError;
      }
      opts.targets.push_back(t);
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
    opts.target = opts.targets.front();
  }
  if (!emit.empty()) {
    opts.emit = parseEmitKind(emit);
    if (!opts.emit) {
      std::cerr << "tilec: error: unknown stage '" << emit
                << "' for --emit (expected ast, tile, gpu, llvm, ptx, cubin, "
                   "hsaco, header, json or layouts)\n";
      return ExitUsageError;
    }
  }
  for (const std::string &def : joinSplitDefines(defines)) {
    size_t eq = def.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "tilec: error: -D expects name=value, got '" << def
                << "'\n";
      return ExitUsageError;
    }
    std::string name = def.substr(0, eq), value = def.substr(eq + 1);
    // Like a compiler's conflicting -D: two values for one name is an
    // error, the same value twice is harmless.
    bool repeated = false;
    for (const auto &[k, v] : opts.defines) {
      if (k != name)
        continue;
      if (v != value) {
        std::cerr << "tilec: error: -D " << name << " is given twice, with '"
                  << v << "' and '" << value << "'\n";
        return ExitUsageError;
      }
      repeated = true;
    }
    if (!repeated)
      opts.defines.emplace_back(name, value);
  }
  if (!opts.depfilePath.empty() || !opts.depTarget.empty())
    opts.writeDepfile = true;
  return runDriver(std::move(opts));
}
