//===- AMDGPUCodegen.cpp - LLVM IR to an HSACO code object
//-----------------===//
//
// The AMD half of code emission after translation: link the ROCm device
// libraries (ocml, ockl) when the module calls into them, define their
// oclc_* control constants for the chip (instead of linking the per-chip
// oclc_*.bc files, which the installed device libraries lack for gfx942),
// request code object v5, optimize, emit an object with the AMDGPU backend
// and link it with ld.lld into a shared-object HSACO (Debian ships no lld
// library for LLVM 22, so ld.lld is run). The result is checked for
// undefined symbols and its metadata note gives KernelResources.
//
//===----------------------------------------------------------------------===//

#include "../common/CodegenImpl.h"
#include "tilec/Target/Toolchain.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Path.h"
#include "llvm/Target/TargetMachine.h"

using namespace tilec;
using namespace tilec::detail;
using mlir::failure;
using mlir::FailureOr;
using mlir::Location;
using mlir::LogicalResult;
using mlir::success;


/// Code object v5: what ROCm 5.x/6.x runtimes on MI200/MI300 load (LLVM 22
/// defaults to v6, which needs ROCm 6.3+).
static constexpr unsigned kCodeObjectVersion = 500;

// The CDNA chips are wave64-only: the default features are right.
std::string detail::amdgpuFeatures(const TargetInfo &) { return ""; }

/// The ISA version the device libraries compare against: major * 1000 +
/// minor * 100 + stepping, from "gfx<major><minor><stepping>" whose last two
/// characters are hex digits (gfx90a -> 9010, gfx942 -> 9402).
static int isaVersion(llvm::StringRef chip) {
  llvm::StringRef digits = chip.drop_front(3);
  if (digits.size() < 3)
    return 0;
  unsigned major = 0, minor = 0, stepping = 0;
  if (digits.drop_back(2).getAsInteger(10, major) ||
      digits.substr(digits.size() - 2, 1).getAsInteger(16, minor) ||
      digits.take_back(1).getAsInteger(16, stepping))
    return 0;
  return major * 1000 + minor * 100 + stepping;
}

/// Gives the device libraries' control constant `name` its value, if the
/// linked code refers to it.
static void defineControlConstant(llvm::Module &module, llvm::StringRef name,
                                  unsigned bits, uint64_t value) {
  llvm::GlobalVariable *global = module.getGlobalVariable(name, true);
  if (!global || !global->isDeclaration())
    return;
  global->setInitializer(llvm::ConstantInt::get(
      llvm::IntegerType::get(module.getContext(), bits), value));
  global->setConstant(true);
  global->setLinkage(llvm::GlobalValue::InternalLinkage);
}

/// Moves every stack slot into the private address space (5). The MLIR
/// lowering creates allocas in the generic space 0; the AMDGPU promotion to
/// registers rewrites most of them, but one it keeps (an array indexed by a
/// run-time value, e.g. a replicated fragment read at `mask[k]`) reaches
/// instruction selection as a 64-bit generic frame index, which the backend
/// cannot select. A private alloca cast to a generic pointer is what clang
/// emits; the optimizer's address-space inference then gives its loads and
/// stores the private space (scratch instructions).
static void allocasToPrivateSpace(llvm::Module &module) {
  unsigned privateSpace = module.getDataLayout().getAllocaAddrSpace();
  for (llvm::Function &function : module.functions()) {
    llvm::SmallVector<llvm::AllocaInst *> generic;
    for (llvm::Instruction &inst : llvm::instructions(function))
      if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
        if (alloca->getAddressSpace() != privateSpace)
          generic.push_back(alloca);
    for (llvm::AllocaInst *alloca : generic) {
      llvm::IRBuilder<> builder(alloca);
      auto *slot = builder.CreateAlloca(alloca->getAllocatedType(),
                                        privateSpace, alloca->getArraySize());
      slot->setAlignment(alloca->getAlign());
      slot->takeName(alloca);
      alloca->replaceAllUsesWith(
          builder.CreateAddrSpaceCast(slot, alloca->getType()));
      alloca->eraseFromParent();
    }
  }
}

LogicalResult detail::prepareAMDGPUModule(PreparedModule &prepared,
                                          const TargetInfo &target,
                                          const CodegenOptions &options,
                                          Location loc) {
  llvm::Module &module = *prepared.module;
  module.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                       kCodeObjectVersion);

  // ocml may call ockl, so ockl comes second; each is linked at most once.
  std::string dir = options.rocmBitcodeDir;
  bool linkedAny = false;
  for (auto [library, prefix] :
       {std::pair{"ocml.bc", "__ocml_"}, std::pair{"ockl.bc", "__ockl_"}}) {
    if (!declaresFunctionWithPrefix(module, prefix))
      continue;
    if (dir.empty()) {
      ToolSearch found = findRocmBitcodeDir(ToolchainEnv::fromProcess(options));
      if (found.path.empty())
        return mlir::emitError(loc) << found.notFoundMessage(
                   "the ROCm device libraries (ocml.bc)",
                   "give the ROCm root with --rocm-path, TILEC_ROCM_PATH or "
                   "ROCM_PATH");
      dir = found.path;
    }
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, library);
    if (failed(linkBitcodeLibrary(module, path, loc)))
      return failure();
    linkedAny = true;
  }
  for (const llvm::Function &function : module.functions()) {
    llvm::StringRef name = function.getName();
    if (function.isDeclaration() && !function.isIntrinsic() &&
        (name.starts_with("__ocml_") || name.starts_with("__ockl_")))
      return mlir::emitError(loc) << "the ROCm device libraries in '" << dir
                                  << "' do not define '" << name << "'";
  }
  if (linkedAny) {
    unsigned waveSize64 = target.warpSize() == 64;
    defineControlConstant(module, "__oclc_ISA_version", 32,
                          isaVersion(target.chip()));
    defineControlConstant(module, "__oclc_ABI_version", 32, kCodeObjectVersion);
    defineControlConstant(module, "__oclc_wavefrontsize64", 8, waveSize64);
    defineControlConstant(module, "__oclc_daz_opt", 8, options.flushDenormals);
    defineControlConstant(module, "__oclc_finite_only_opt", 8, 0);
    defineControlConstant(module, "__oclc_unsafe_math_opt", 8, 0);
    defineControlConstant(module, "__oclc_correctly_rounded_sqrt32", 8, 1);
  }
  if (options.flushDenormals)
    for (llvm::Function &function : module.functions())
      if (!function.isDeclaration())
        function.addFnAttr("denormal-fp-math-f32", "preserve-sign");
  internalizeNonKernels(module);
  allocasToPrivateSpace(module);
  optimizeModule(module, *prepared.tm, options.optLevel);
  return success();
}

//===----------------------------------------------------------------------===//
// The linked code object
//===----------------------------------------------------------------------===//

/// Integer value of `key` in a metadata map, or -1.
static int metadataInt(llvm::msgpack::MapDocNode &map, llvm::StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return -1;
  llvm::msgpack::DocNode &node = it->second;
  if (node.getKind() == llvm::msgpack::Type::UInt)
    return static_cast<int>(node.getUInt());
  if (node.getKind() == llvm::msgpack::Type::Int)
    return static_cast<int>(node.getInt());
  return -1;
}

/// Reads the NT_AMDGPU_METADATA note of a code object: one KernelResources
/// per entry of amdhsa.kernels.
static std::vector<KernelResources>
readKernelResources(const llvm::object::ELF64LEObjectFile &object) {
  std::vector<KernelResources> kernels;
  const auto &file = object.getELFFile();
  auto headers = file.program_headers();
  if (!headers) {
    llvm::consumeError(headers.takeError());
    return kernels;
  }
  for (const auto &header : *headers) {
    if (header.p_type != llvm::ELF::PT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const auto &note : file.notes(header, error)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(header.p_align),
                            /*Multi=*/false))
        continue;
      if (!doc.getRoot().isMap())
        continue;
      llvm::msgpack::MapDocNode root = doc.getRoot().getMap();
      auto list = root.find("amdhsa.kernels");
      if (list == root.end() || !list->second.isArray())
        continue;
      for (llvm::msgpack::DocNode &entry : list->second.getArray()) {
        if (!entry.isMap())
          continue;
        llvm::msgpack::MapDocNode map = entry.getMap();
        KernelResources kernel;
        auto name = map.find(".name");
        if (name != map.end() && name->second.isString())
          kernel.name = name->second.getString().str();
        // On gfx90a/gfx942 `.vgpr_count` is already the unified total: the
        // arch VGPRs rounded up to 4, then the AGPRs (LLVM's
        // getTotalNumVGPRs; 9 VGPRs + 32 AGPRs give 44). Adding
        // `.agpr_count` again would count the AGPRs twice.
        kernel.registers = metadataInt(map, ".vgpr_count");
        kernel.accumRegisters = metadataInt(map, ".agpr_count");
        kernel.scalarRegisters = metadataInt(map, ".sgpr_count");
        kernel.spilledVectorRegisters = metadataInt(map, ".vgpr_spill_count");
        kernel.spilledScalarRegisters = metadataInt(map, ".sgpr_spill_count");
        kernel.stackBytes = metadataInt(map, ".private_segment_fixed_size");
        kernel.sharedBytes = metadataInt(map, ".group_segment_fixed_size");
        kernels.push_back(std::move(kernel));
      }
    }
    llvm::consumeError(std::move(error));
  }
  return kernels;
}

/// ld.lld --no-undefined already refuses undefined symbols; checking the
/// result again keeps the guarantee independent of the linker's defaults.
static LogicalResult checkCodeObject(llvm::StringRef hsaco, Location loc,
                                     std::vector<KernelResources> *resources) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> object =
      llvm::object::ObjectFile::createObjectFile(
          llvm::MemoryBufferRef(hsaco, "hsaco"));
  if (!object)
    return mlir::emitError(loc) << "the linked HSACO is not a valid object: "
                                << llvm::toString(object.takeError());
  auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(object->get());
  if (!elf || elf->getELFFile().getHeader().e_machine != llvm::ELF::EM_AMDGPU)
    return mlir::emitError(loc) << "the linked HSACO is not an AMDGPU ELF";
  for (const llvm::object::SymbolRef &symbol : elf->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!flags) {
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (name->empty())
      continue; // the null symbol
    return mlir::emitError(loc)
           << "the HSACO has an undefined symbol '" << *name << "'";
  }
  if (resources)
    *resources = readKernelResources(*elf);
  return success();
}

FailureOr<std::string>
tilec::emitHSACO(mlir::ModuleOp module, const CodegenOptions &options,
                 std::vector<KernelResources> *resources) {
  std::unique_ptr<TargetInfo> target =
      getTargetInfo(module, options, Vendor::AMD, "an HSACO");
  if (!target)
    return failure();
  Location loc = backendLocation(module);
  FailureOr<PreparedModule> prepared = prepareModule(module, *target, options);
  if (failed(prepared))
    return failure();
  mlir::TimingScope backendTiming = nestTiming(options, "AMDGPU backend");
  FailureOr<std::string> object =
      runBackend(*prepared, llvm::CodeGenFileType::ObjectFile, loc);
  backendTiming.stop();
  mlir::TimingScope lldTiming = nestTiming(options, "ld.lld");
  if (failed(object))
    return failure();

  std::string lld = options.lldPath;
  if (lld.empty()) {
    ToolSearch found = findLld(ToolchainEnv::fromProcess(options));
    if (found.path.empty())
      return mlir::emitError(loc) << found.notFoundMessage(
                 "ld.lld (LLVM 22's, to link the HSACO)",
                 "install lld-22 or put LLVM 22's bin/ on PATH");
    lld = found.path;
  }
  FailureOr<TempFile> input = TempFile::create("amdgpu", "o", loc);
  if (failed(input) || failed(input->write(*object, loc)))
    return failure();
  FailureOr<TempFile> output = TempFile::create("hsaco", "hsaco", loc);
  if (failed(output))
    return failure();
  std::vector<std::string> args = {lld,
                                   "-shared",
                                   "--no-undefined",
                                   "-o",
                                   output->path().str(),
                                   input->path().str()};
  FailureOr<ToolResult> result = runTool(lld, args, loc);
  if (failed(result))
    return failure();
  if (result->exitCode != 0) {
    mlir::InFlightDiagnostic diag = mlir::emitError(loc)
                                    << "ld.lld could not link the HSACO for "
                                    << target->chip();
    for (llvm::StringRef line : llvm::split(result->output, '\n'))
      if (!line.trim().empty())
        diag.attachNote() << line.trim();
    return failure();
  }
  FailureOr<std::string> hsaco = output->read(loc);
  if (failed(hsaco) || failed(checkCodeObject(*hsaco, loc, resources)))
    return failure();
  return hsaco;
}
