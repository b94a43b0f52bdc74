//===- NVPTXCodegen.cpp - LLVM IR to PTX, and PTX to cubin
//-----------------===//
//
// The NVIDIA half of code emission after translation: link libdevice when
// the module calls __nv_* functions, optimize with the NVPTX target machine,
// print PTX, and assemble it with ptxas (the one subprocess: NVIDIA ships no
// library for it) whose -v report becomes KernelResources.
//
// PTX ISA 8.0 is requested for both chips: it is the first version with the
// sm_90a instructions (wgmma, setmaxnreg), ptxas 12.0+ and drivers from
// CUDA 12.0 on accept it, and one version keeps output differences between
// chips down to what the chips need.
//
//===----------------------------------------------------------------------===//

#include "../common/CodegenImpl.h"
#include "../common/ToolCache.h"
#include "tilec/Target/Toolchain.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Target/TargetMachine.h"

using namespace tilec;
using namespace tilec::detail;
using mlir::failure;
using mlir::FailureOr;
using mlir::Location;
using mlir::LogicalResult;
using mlir::success;


/// What every "not found" error of the CUDA toolkit suggests.
static const char kCudaHint[] =
    "give the CUDA toolkit's root with --cuda-path, TILEC_CUDA_PATH or "
    "CUDA_PATH, or put its bin/ on PATH";

std::string detail::nvptxFeatures(const TargetInfo &,
                                  const llvm::Module &module) {
  // PTX 8.0 (CUDA 12.0) unless the module needs more: mma.sync with
  // e4m3 / e5m2 operands is PTX 8.4 (sm_89+).
  if (declaresFunctionWithPrefix(module,
                                 "llvm.nvvm.mma.m16n8k32.row.col.f32.e"))
    return "+ptx84";
  return "+ptx80";
}

/// Bounds the registers of each kernel of more than 256 threads by what its
/// block allows (`.maxnreg`). Told only the block size (`.maxntid`), ptxas
/// was seen to fall back to 32 registers and spill kilobytes there: a
/// 192x256 gemm over 384 threads on sm_80 took 32 registers and spilled
/// 3.8 KB, and 168 registers with 348 B of spill once bounded by the 168 a
/// 384-thread block allows. Kernels that move registers between warpgroups
/// (setmaxnreg, with `nvvm.minctasm`) keep ptxas's entry allocation, which
/// their split is computed from.
static void boundKernelRegisters(llvm::Module &module,
                                 const TargetInfo &target) {
  for (llvm::Function &function : module.functions()) {
    if (function.isDeclaration() ||
        function.getCallingConv() != llvm::CallingConv::PTX_Kernel ||
        function.hasFnAttribute("nvvm.maxnreg") ||
        function.hasFnAttribute("nvvm.minctasm"))
      continue;
    llvm::Attribute block = function.getFnAttribute("nvvm.maxntid");
    if (!block.isValid() || !block.isStringAttribute())
      continue;
    llvm::SmallVector<llvm::StringRef, 3> dims;
    block.getValueAsString().split(dims, ',');
    uint64_t threads = 1;
    for (llvm::StringRef dim : dims) {
      uint64_t extent = 0;
      if (dim.trim().getAsInteger(10, extent))
        extent = 0; // not a block size: leave this kernel alone
      threads *= extent;
    }
    if (threads <= 256 || threads > 1024)
      continue;
    unsigned registers =
        target.maxRegistersPerThreadInBlock(unsigned(threads)) / 8 * 8;
    function.addFnAttr("nvvm.maxnreg", std::to_string(registers));
  }
}

LogicalResult detail::prepareNVPTXModule(PreparedModule &prepared,
                                         const TargetInfo &target,
                                         const CodegenOptions &options,
                                         Location loc) {
  llvm::Module &module = *prepared.module;
  boundKernelRegisters(module, target);
  if (declaresFunctionWithPrefix(module, "__nv_")) {
    std::string path = options.libdevicePath;
    if (path.empty()) {
      ToolSearch found = findLibdevice(ToolchainEnv::fromProcess(options));
      if (found.path.empty())
        return mlir::emitError(loc) << found.notFoundMessage(
                   "libdevice.10.bc (needed for the __nv_* math functions)",
                   kCudaHint);
      path = found.path;
    }
    if (failed(linkBitcodeLibrary(module, path, loc)))
      return failure();
  }
  // Read by NVVMReflect for libdevice's __nvvm_reflect("__CUDA_FTZ").
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                       options.flushDenormals ? 1 : 0);
  if (options.flushDenormals)
    for (llvm::Function &function : module.functions())
      if (!function.isDeclaration())
        function.addFnAttr("denormal-fp-math-f32", "preserve-sign");
  internalizeNonKernels(module);
  optimizeModule(module, *prepared.tm, options.optLevel);
  return success();
}

FailureOr<std::string> tilec::emitPTX(mlir::ModuleOp module,
                                      const CodegenOptions &options) {
  std::unique_ptr<TargetInfo> target =
      getTargetInfo(module, options, Vendor::NVIDIA, "PTX");
  if (!target)
    return failure();
  FailureOr<PreparedModule> prepared = prepareModule(module, *target, options);
  if (failed(prepared))
    return failure();
  mlir::TimingScope backendTiming = nestTiming(options, "NVPTX backend");
  return runBackend(*prepared, llvm::CodeGenFileType::AssemblyFile,
                    backendLocation(module));
}

//===----------------------------------------------------------------------===//
// ptxas
//===----------------------------------------------------------------------===//

/// The first integer in `text` after `key` ("Used 32 registers" -> 32 for
/// key "Used "), or -1.
static int numberAfter(llvm::StringRef text, llvm::StringRef key) {
  size_t pos = text.find(key);
  if (pos == llvm::StringRef::npos)
    return -1;
  llvm::StringRef rest = text.drop_front(pos + key.size()).ltrim();
  llvm::StringRef digits = rest.take_while(llvm::isDigit);
  int value;
  if (digits.getAsInteger(10, value))
    return -1;
  return value;
}

/// The integer right before `suffix` ("8192 bytes smem" -> 8192 for suffix
/// " bytes smem"), or -1.
static int numberBefore(llvm::StringRef text, llvm::StringRef suffix) {
  size_t pos = text.find(suffix);
  if (pos == llvm::StringRef::npos)
    return -1;
  llvm::StringRef head = text.take_front(pos).rtrim();
  size_t start = head.size();
  while (start > 0 && llvm::isDigit(head[start - 1]))
    --start;
  int value;
  if (head.drop_front(start).getAsInteger(10, value))
    return -1;
  return value;
}

/// The name between the first pair of single quotes in `line`.
static llvm::StringRef quotedName(llvm::StringRef line) {
  size_t open = line.find('\'');
  if (open == llvm::StringRef::npos)
    return {};
  size_t close = line.find('\'', open + 1);
  if (close == llvm::StringRef::npos)
    return {};
  return line.slice(open + 1, close);
}

std::vector<KernelResources>
tilec::parsePtxasResourceUsage(llvm::StringRef log) {
  // ptxas -v prints, per entry function:
  //   ptxas info : Compiling entry function 'k' for 'sm_90a'
  //   ptxas info : Function properties for k
  //       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  //   ptxas info : Used 8 registers, used 0 barriers, 380 bytes cmem[0]
  // ("N bytes smem" joins the last line when the kernel has shared memory).
  // Device functions that survive inlining get "Function properties" blocks
  // of their own; those are not kernels and are skipped.
  std::vector<KernelResources> kernels;
  KernelResources *compiling = nullptr;  // target of "Used ..." lines
  KernelResources *properties = nullptr; // target of the frame line
  llvm::SmallVector<llvm::StringRef> lines;
  log.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (line.contains("Compiling entry function")) {
      kernels.push_back({});
      kernels.back().name = quotedName(line).str();
      compiling = &kernels.back();
      properties = nullptr;
    } else if (line.contains("Function properties for")) {
      llvm::StringRef name =
          line.substr(line.find("Function properties for") +
                      llvm::StringRef("Function properties for").size())
              .trim();
      properties = nullptr;
      for (KernelResources &kernel : kernels)
        if (kernel.name == name)
          properties = &kernel;
    } else if (line.contains("bytes stack frame")) {
      if (properties) {
        properties->stackBytes = numberBefore(line, " bytes stack frame");
        properties->spillStoreBytes = numberBefore(line, " bytes spill stores");
        properties->spillLoadBytes = numberBefore(line, " bytes spill loads");
      }
    } else if (line.contains("Used ") && line.contains(" registers")) {
      if (compiling) {
        compiling->registers = numberAfter(line, "Used ");
        int smem = numberBefore(line, " bytes smem");
        compiling->sharedBytes = smem < 0 ? 0 : smem;
      }
    }
  }
  return kernels;
}

/// `line` with the temporary PTX file's name replaced by "<ptx>".
static std::string withoutTempPath(llvm::StringRef line,
                                   llvm::StringRef ptxPath) {
  std::string text = line.str();
  size_t at = text.find(ptxPath.str());
  if (at != std::string::npos)
    text.replace(at, ptxPath.size(), "<ptx>");
  return text;
}

/// Turns ptxas's complaints into notes: the temporary file name is replaced
/// by "<ptx>" and the offending PTX line is quoted.
static void attachPtxasMessages(mlir::InFlightDiagnostic &diag,
                                llvm::StringRef output, llvm::StringRef ptxPath,
                                llvm::StringRef ptx) {
  llvm::SmallVector<llvm::StringRef> ptxLines;
  ptx.split(ptxLines, '\n');
  llvm::SmallVector<llvm::StringRef> lines;
  output.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (line.empty() || line.starts_with("ptxas info"))
      continue;
    mlir::Diagnostic &note = diag.attachNote()
                             << withoutTempPath(line, ptxPath);
    int lineNumber = numberAfter(line, "line ");
    if (lineNumber > 0 && static_cast<size_t>(lineNumber) <= ptxLines.size())
      note << "\n    " << ptxLines[lineNumber - 1].trim();
  }
}

/// Warnings (e.g. about spills or ignored options) reach the user too.
static void reportPtxasWarnings(Location loc, llvm::StringRef output,
                                llvm::StringRef ptxPath) {
  for (llvm::StringRef line : llvm::split(output, '\n'))
    if (line.contains("warning"))
      mlir::emitWarning(loc) << "ptxas: "
                             << withoutTempPath(line.trim(), ptxPath);
}

FailureOr<std::string>
tilec::assemblePTX(llvm::StringRef ptx, Location loc,
                   const CodegenOptions &options,
                   std::vector<KernelResources> *resources) {
  std::unique_ptr<TargetInfo> target = TargetInfo::get(options.chip);
  if (!target || !target->isNVIDIA())
    return mlir::emitError(loc) << "cannot assemble PTX for '" << options.chip
                                << "': not a supported NVIDIA chip";
  std::string ptxas = options.ptxasPath;
  if (ptxas.empty()) {
    ToolSearch found = findPtxas(ToolchainEnv::fromProcess(options));
    if (found.path.empty())
      return mlir::emitError(loc) << found.notFoundMessage("ptxas", kCudaHint);
    ptxas = found.path;
  } else if (!llvm::sys::fs::can_execute(ptxas)) {
    return mlir::emitError(loc) << "ptxas not found at '" << ptxas << "'";
  }

  std::vector<std::string> args = {
      ptxas,
      "-arch=" + target->chip().str(),
      "-O" + std::to_string(std::min(options.ptxasOptLevel, 3u)),
      "-v",
  };
  args.insert(args.end(), options.ptxasArgs.begin(), options.ptxasArgs.end());

  // The same PTX through the same ptxas gives the same cubin: reuse it.
  std::string key = toolCacheKey(ptxas, args, ptx);
  if (std::optional<CachedRun> cached = lookupToolCache(key)) {
    mlir::TimingScope hit = nestTiming(options, "(from the cache)");
    reportPtxasWarnings(loc, cached->report, "<ptx>");
    if (resources)
      *resources = parsePtxasResourceUsage(cached->report);
    return std::move(cached->output);
  }

  FailureOr<TempFile> input = TempFile::create("ptx", "ptx", loc);
  if (failed(input) || failed(input->write(ptx, loc)))
    return failure();
  FailureOr<TempFile> cubin = TempFile::create("cubin", "cubin", loc);
  if (failed(cubin))
    return failure();
  args.insert(args.end(), {input->path().str(), "-o", cubin->path().str()});
  FailureOr<ToolResult> result = runTool(ptxas, args, loc);
  if (failed(result))
    return failure();
  if (result->exitCode != 0) {
    mlir::InFlightDiagnostic diag =
        mlir::emitError(loc) << "ptxas rejected the PTX for " << target->chip()
                             << " (exit code " << result->exitCode << ")";
    attachPtxasMessages(diag, result->output, input->path(), ptx);
    return failure();
  }
  reportPtxasWarnings(loc, result->output, input->path());
  if (resources)
    *resources = parsePtxasResourceUsage(result->output);
  FailureOr<std::string> bytes = cubin->read(loc);
  if (succeeded(bytes)) {
    std::string report;
    for (llvm::StringRef line : llvm::split(result->output, '\n'))
      report += withoutTempPath(line, input->path()) + "\n";
    storeToolCache(key, {*bytes, report});
  }
  return bytes;
}

FailureOr<std::string>
tilec::emitCubin(mlir::ModuleOp module, const CodegenOptions &options,
                 std::vector<KernelResources> *resources) {
  FailureOr<std::string> ptx = emitPTX(module, options);
  if (failed(ptx))
    return failure();
  return assemblePTX(*ptx, backendLocation(module), options, resources);
}
