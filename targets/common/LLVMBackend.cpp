//===- LLVMBackend.cpp - The LLVM half of code emission
//--------------------===//
//
// Vendor-neutral LLVM plumbing for the backends: target machines, bitcode
// libraries, internalization, the optimization pipeline, running codegen
// with fatal errors caught, temporary files and the two external tools; plus
// the entry points that only dispatch on the vendor (emitLLVMIR,
// emitBinary).
//
//===----------------------------------------------------------------------===//

#include "CodegenImpl.h"

#include "tilec/Dialect/TileDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <mutex>

using namespace tilec;
using namespace tilec::detail;
using mlir::failure;
using mlir::FailureOr;
using mlir::Location;
using mlir::LogicalResult;
using mlir::success;

//===----------------------------------------------------------------------===//
// Target selection
//===----------------------------------------------------------------------===//

std::unique_ptr<TargetInfo> detail::getTargetInfo(mlir::ModuleOp module,
                                                  const CodegenOptions &options,
                                                  std::optional<Vendor> vendor,
                                                  llvm::StringRef what) {
  // The module's #tile.target is the decision; options.chip, when given,
  // must agree with it (the lowering chose instructions for that chip).
  std::string chip = options.chip;
  if (tile::TargetAttr recorded = tile::lookupTarget(module)) {
    if (!chip.empty() && chip != recorded.getChip()) {
      mlir::emitError(module.getLoc())
          << "the module was lowered for '" << recorded.getChip()
          << "', not for '" << chip << "'";
      return nullptr;
    }
    chip = recorded.getChip().str();
  }
  std::unique_ptr<TargetInfo> target = TargetInfo::get(chip);
  if (!target) {
    mlir::InFlightDiagnostic diag = mlir::emitError(module.getLoc())
                                    << "unknown target chip '" << chip
                                    << "'; supported:";
    for (llvm::StringRef chip : TargetInfo::supportedChips())
      diag << " " << chip;
    return nullptr;
  }
  if (vendor && (*vendor == Vendor::NVIDIA) != target->isNVIDIA()) {
    mlir::emitError(module.getLoc())
        << "cannot emit " << what << " for " << target->chip() << ": it is "
        << (target->isNVIDIA() ? "an NVIDIA" : "an AMD") << " chip";
    return nullptr;
  }
  return target;
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

LLVMDiagnosticScope::LLVMDiagnosticScope(llvm::LLVMContext &ctx, Location loc)
    : ctx(ctx), loc(loc) {
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *info, void *self) {
        llvm::DiagnosticSeverity severity = info->getSeverity();
        if (severity != llvm::DS_Error && severity != llvm::DS_Warning)
          return;
        std::string text;
        llvm::raw_string_ostream os(text);
        llvm::DiagnosticPrinterRawOStream printer(os);
        info->print(printer);
        static_cast<LLVMDiagnosticScope *>(self)->messages.emplace_back(
            severity == llvm::DS_Error, std::move(text));
      },
      this);
}

LLVMDiagnosticScope::~LLVMDiagnosticScope() {
  ctx.setDiagnosticHandlerCallBack(nullptr, nullptr);
}

LogicalResult LLVMDiagnosticScope::flush() {
  bool hadError = false;
  for (auto &[isError, text] : messages) {
    if (isError)
      mlir::emitError(loc) << "LLVM: " << text;
    else
      mlir::emitWarning(loc) << "LLVM: " << text;
    hadError |= isError;
  }
  messages.clear();
  return mlir::failure(hadError);
}

//===----------------------------------------------------------------------===//
// Target machines, libraries, optimization
//===----------------------------------------------------------------------===//

static void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    // Assembles inline asm into AMDGPU object files.
    LLVMInitializeAMDGPUAsmParser();
  });
}

static llvm::CodeGenOptLevel codeGenOptLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

std::unique_ptr<llvm::TargetMachine>
detail::createTargetMachine(const TargetInfo &target, llvm::StringRef features,
                            unsigned optLevel, Location loc) {
  initializeTargets();
  llvm::Triple triple(target.llvmTriple());
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget) {
    mlir::emitError(loc) << "LLVM has no backend for " << target.llvmTriple()
                         << ": " << error;
    return nullptr;
  }
  llvm::TargetOptions targetOptions;
  std::optional<llvm::Reloc::Model> reloc;
  if (!target.isNVIDIA())
    reloc = llvm::Reloc::PIC_; // code objects are shared libraries
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      triple, target.chip(), features, targetOptions, reloc, std::nullopt,
      codeGenOptLevel(optLevel)));
  if (!tm)
    mlir::emitError(loc) << "LLVM cannot create a target machine for "
                         << target.chip();
  return tm;
}

void detail::setDataLayout(llvm::Module &module, llvm::TargetMachine &tm) {
  module.setDataLayout(tm.createDataLayout());
  module.setTargetTriple(tm.getTargetTriple());
}

LogicalResult detail::linkBitcodeLibrary(llvm::Module &module,
                                         llvm::StringRef path, Location loc) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return mlir::emitError(loc) << "cannot read device library '" << path
                                << "': " << buffer.getError().message();
  // Lazily loaded: the linker materializes only the functions the module
  // needs, which is most of the cost saved for a large library (libdevice).
  llvm::Expected<std::unique_ptr<llvm::Module>> library =
      llvm::getOwningLazyBitcodeModule(std::move(*buffer), module.getContext());
  if (!library)
    return mlir::emitError(loc) << "cannot parse device library '" << path
                                << "': " << llvm::toString(library.takeError());
  // Libraries are built for a generic triple/layout of the same target;
  // retarget them so the linker does not warn about the mismatch.
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());
  LLVMDiagnosticScope diagnostics(module.getContext(), loc);
  bool linkError = llvm::Linker::linkModules(module, std::move(*library),
                                             llvm::Linker::LinkOnlyNeeded);
  if (failed(diagnostics.flush()) || linkError)
    return mlir::emitError(loc)
           << "cannot link device library '" << path << "'";
  return success();
}

bool detail::declaresFunctionWithPrefix(const llvm::Module &module,
                                        llvm::StringRef prefix) {
  return llvm::any_of(module.functions(), [&](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with(prefix);
  });
}

static bool isKernel(const llvm::GlobalValue &value) {
  const auto *function = llvm::dyn_cast<llvm::Function>(&value);
  if (!function)
    return false;
  llvm::CallingConv::ID cc = function->getCallingConv();
  return cc == llvm::CallingConv::PTX_Kernel ||
         cc == llvm::CallingConv::AMDGPU_KERNEL;
}

void detail::internalizeNonKernels(llvm::Module &module) {
  llvm::internalizeModule(
      module, [](const llvm::GlobalValue &value) { return isKernel(value); });
}

void detail::optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                            unsigned optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // The target machine registers its own passes (NVVMReflect resolves
  // libdevice's __nvvm_reflect queries, AMDGPU adds its attributor...).
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = llvm::OptimizationLevel::O3;
  if (optLevel == 0)
    level = llvm::OptimizationLevel::O0;
  else if (optLevel == 1)
    level = llvm::OptimizationLevel::O1;
  else if (optLevel == 2)
    level = llvm::OptimizationLevel::O2;
  llvm::ModulePassManager mpm = optLevel == 0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

//===----------------------------------------------------------------------===//
// Running the backend
//===----------------------------------------------------------------------===//

namespace {
/// Where the fatal-error handler stores LLVM's message before unwinding to
/// the crash-recovery context.
struct FatalErrorState {
  std::string message;
};
} // namespace

static void recoverFromFatalError(void *userData, const char *reason,
                                  bool /*genCrashDiag*/) {
  static_cast<FatalErrorState *>(userData)->message = reason;
  // Jump back to RunSafely instead of letting LLVM exit or abort.
  if (llvm::CrashRecoveryContext *crc =
          llvm::CrashRecoveryContext::GetCurrent())
    crc->HandleExit(1);
}

FailureOr<std::string> detail::runBackend(PreparedModule &prepared,
                                          llvm::CodeGenFileType type,
                                          Location loc) {
  llvm::Module &module = *prepared.module;
  llvm::TargetMachine &tm = *prepared.tm;
  llvm::SmallString<0> output;
  llvm::raw_svector_ostream os(output);
  // Heap-allocated: after a recovered crash it is in an unknown state and is
  // deliberately leaked rather than destroyed.
  auto *pm = new llvm::legacy::PassManager();
  if (tm.addPassesToEmitFile(*pm, os, nullptr, type)) {
    delete pm;
    return mlir::emitError(loc)
           << "LLVM cannot emit this file type for " << tm.getTargetCPU();
  }

  LLVMDiagnosticScope diagnostics(module.getContext(), loc);
  FatalErrorState fatal;
  bool completed;
  {
    // The fatal-error handler and crash recovery are process-wide: one
    // backend run at a time (each takes milliseconds).
    static std::mutex backendMutex;
    std::lock_guard<std::mutex> lock(backendMutex);
    llvm::ScopedFatalErrorHandler handler(recoverFromFatalError, &fatal);
    llvm::CrashRecoveryContext::Enable();
    llvm::CrashRecoveryContext crc;
    completed = crc.RunSafely([&] { pm->run(module); });
    llvm::CrashRecoveryContext::Disable();
  }
  if (!completed) {
    // The module and the pass manager are half-transformed: destroying them
    // could crash, so they are leaked (this is a rare, fatal-for-the-run path).
    (void)prepared.tm.release();
    (void)prepared.module.release();
    (void)prepared.ctx.release();
    mlir::InFlightDiagnostic diag =
        mlir::emitError(loc) << "code generation for " << tm.getTargetCPU()
                             << " failed in LLVM's backend";
    if (!fatal.message.empty())
      diag << ": " << fatal.message;
    diag.attachNote() << "the kernel probably uses an operation "
                      << tm.getTargetCPU()
                      << " does not support that tilec's checks missed";
    return failure();
  }
  delete pm;
  if (failed(diagnostics.flush()))
    return failure();
  return std::string(output.str());
}

std::string detail::printModule(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

//===----------------------------------------------------------------------===//
// Preparing a module, and the dispatching entry points
//===----------------------------------------------------------------------===//

mlir::TimingScope detail::nestTiming(const CodegenOptions &options,
                                     llvm::StringRef name) {
  return options.timing ? options.timing->nest(name) : mlir::TimingScope();
}

FailureOr<PreparedModule> detail::prepareModule(mlir::ModuleOp module,
                                                const TargetInfo &target,
                                                const CodegenOptions &options) {
  if (options.optLevel > 3)
    return mlir::emitError(module.getLoc())
           << "optimization level must be 0-3, not " << options.optLevel;
  PreparedModule prepared;
  prepared.ctx = std::make_unique<llvm::LLVMContext>();
  mlir::TimingScope translateTiming = nestTiming(options, "translate to LLVM IR");
  // Its parts (the conversion passes, the translation) nest in it.
  CodegenOptions translateOptions = options;
  if (options.timing)
    translateOptions.timing = &translateTiming;
  FailureOr<std::unique_ptr<llvm::Module>> translated =
      translateToLLVMIR(module, target, translateOptions, *prepared.ctx);
  if (failed(translated))
    return failure();
  translateTiming.stop();
  mlir::TimingScope optimizeTiming =
      nestTiming(options, "link device library, optimize");
  prepared.module = std::move(*translated);
  std::string features =
      target.isNVIDIA() ? nvptxFeatures(target, *prepared.module)
                         : amdgpuFeatures(target);
  prepared.tm =
      createTargetMachine(target, features, options.optLevel, module.getLoc());
  if (!prepared.tm)
    return failure();
  setDataLayout(*prepared.module, *prepared.tm);
  LogicalResult vendorResult =
      target.isNVIDIA()
          ? prepareNVPTXModule(prepared, target, options, module.getLoc())
          : prepareAMDGPUModule(prepared, target, options, module.getLoc());
  if (failed(vendorResult))
    return failure();
  return prepared;
}

FailureOr<std::string> tilec::emitLLVMIR(mlir::ModuleOp module,
                                         const CodegenOptions &options) {
  std::unique_ptr<TargetInfo> target =
      getTargetInfo(module, options, std::nullopt, "LLVM IR");
  if (!target)
    return failure();
  FailureOr<PreparedModule> prepared = prepareModule(module, *target, options);
  if (failed(prepared))
    return failure();
  return printModule(*prepared->module);
}

FailureOr<std::string>
tilec::emitBinary(mlir::ModuleOp module, const CodegenOptions &options,
                  std::vector<KernelResources> *resources) {
  std::unique_ptr<TargetInfo> target =
      getTargetInfo(module, options, std::nullopt, "a binary");
  if (!target)
    return failure();
  return target->isNVIDIA() ? emitCubin(module, options, resources)
                            : emitHSACO(module, options, resources);
}

//===----------------------------------------------------------------------===//
// Temporary files and tools
//===----------------------------------------------------------------------===//

FailureOr<TempFile> TempFile::create(llvm::StringRef prefix,
                                     llvm::StringRef suffix, Location loc) {
  llvm::SmallString<128> path;
  std::error_code ec =
      llvm::sys::fs::createTemporaryFile("tilec-" + prefix.str(), suffix, path);
  if (ec)
    return mlir::emitError(loc)
           << "cannot create a temporary file: " << ec.message();
  return TempFile(path.str().str());
}

TempFile::TempFile(TempFile &&other) : filePath(std::move(other.filePath)) {
  other.filePath.clear();
}

TempFile::~TempFile() {
  if (!filePath.empty())
    llvm::sys::fs::remove(filePath);
}

LogicalResult TempFile::write(llvm::StringRef contents, Location loc) const {
  std::error_code ec;
  llvm::raw_fd_ostream os(filePath, ec);
  if (!ec) {
    os << contents;
    os.close();
    if (os.has_error())
      ec = os.error();
  }
  if (ec)
    return mlir::emitError(loc) << "cannot write temporary file '" << filePath
                                << "': " << ec.message();
  return success();
}

FailureOr<std::string> TempFile::read(Location loc) const {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(filePath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return mlir::emitError(loc) << "cannot read temporary file '" << filePath
                                << "': " << buffer.getError().message();
  return (*buffer)->getBuffer().str();
}

FailureOr<ToolResult> detail::runTool(llvm::StringRef program,
                                      llvm::ArrayRef<std::string> args,
                                      Location loc) {
  if (!llvm::sys::fs::can_execute(program))
    return mlir::emitError(loc)
           << "cannot run '" << program << "': not an executable file";
  FailureOr<TempFile> log = TempFile::create("log", "txt", loc);
  if (failed(log))
    return failure();
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  // stdin from /dev/null; stdout and stderr into one log.
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""),
                                                log->path(), log->path()};
  std::string errorMessage;
  bool executionFailed = false;
  int exitCode = llvm::sys::ExecuteAndWait(
      program, argRefs, /*Env=*/std::nullopt, redirects, /*SecondsToWait=*/0,
      /*MemoryLimit=*/0, &errorMessage, &executionFailed);
  if (executionFailed)
    return mlir::emitError(loc)
           << "cannot run '" << program << "': " << errorMessage;
  FailureOr<std::string> output = log->read(loc);
  if (failed(output))
    return failure();
  return ToolResult{exitCode, std::move(*output)};
}
