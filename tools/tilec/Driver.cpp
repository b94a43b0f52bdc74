//===- Driver.cpp - The tilec compilation pipeline ------------------------===//
//
// Reads the input into a SourceMgr, runs the stages up to the requested one
// and writes every output through writeFileAtomically, so a failure at any
// stage leaves no output file behind. Stages not built yet say so and exit 1.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "tilec/Config.h"
#include "tilec/Dialect/TileDialect.h"
#include "tilec/Frontend/ASTDump.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/MLIRGen/MLIRGen.h"
#include "tilec/Passes/Passes.h"
#include "tilec/Support/InputFile.h"
#include "tilec/Support/OutputFile.h"
#include "tilec/Target/Codegen.h"
#include "tilec/Target/Header.h"
#include "tilec/Target/ResourceChecks.h"
#include "tilec/Target/TargetInfo.h"

#include "EmitLayouts.h"
#include "LaunchInfo.h"
#include "TuningLookup.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tilec {

namespace {
struct EmitInfo {
  EmitKind kind;
  const char *name;
  const char *extension; // for -o inference and default output names
  bool textual;          // textual stages default to stdout
};
} // namespace

static const EmitInfo kEmitInfos[] = {
    {EmitKind::AST, "ast", ".ast", true},
    {EmitKind::Tile, "tile", ".mlir", true},
    {EmitKind::GPU, "gpu", ".gpu.mlir", true},
    {EmitKind::LLVM, "llvm", ".ll", true},
    {EmitKind::PTX, "ptx", ".ptx", false},
    {EmitKind::Cubin, "cubin", ".cubin", false},
    {EmitKind::HSACO, "hsaco", ".hsaco", false},
    {EmitKind::Header, "header", ".h", false},
    {EmitKind::JSON, "json", ".json", false},
    {EmitKind::Layouts, "layouts", ".svg", false},
};

static const EmitInfo &info(EmitKind kind) {
  for (const EmitInfo &i : kEmitInfos)
    if (i.kind == kind)
      return i;
  llvm_unreachable("every EmitKind has an entry");
}

std::optional<EmitKind> parseEmitKind(const std::string &name) {
  for (const EmitInfo &i : kEmitInfos)
    if (name == i.name)
      return i.kind;
  return std::nullopt;
}

const char *emitKindName(EmitKind kind) { return info(kind).name; }

const std::vector<std::string> &knownTargets() {
  static const std::vector<std::string> targets = {"sm_90a", "sm_80",
                                                   "gfx90a", "gfx942"};
  return targets;
}

static bool isNVIDIA(StringRef target) { return target.starts_with("sm_"); }

static void reportError(const Twine &msg, raw_ostream &os = errs()) {
  WithColor::error(os, "tilec") << msg << "\n";
}

/// Picks the stage from --emit, else from the output's extension (the
/// longest that matches: `.gpu.mlir` before `.mlir`), else the target's
/// natural artifact. Nullopt for an extension tilec does not know.
static std::optional<EmitKind> resolveEmit(const DriverOptions &opts) {
  if (opts.emit)
    return *opts.emit;
  StringRef out = opts.outputPath;
  const EmitInfo *best = nullptr;
  for (const EmitInfo &i : kEmitInfos)
    if (!out.empty() && out.ends_with(i.extension) &&
        (!best || strlen(i.extension) > strlen(best->extension)))
      best = &i;
  if (best)
    return best->kind;
  if (out.ends_with(".hpp"))
    return EmitKind::Header;
  if (out.ends_with(".html"))
    return EmitKind::Layouts;
  if (out.empty() || out == "-" || sys::path::extension(out).empty())
    return isNVIDIA(opts.target) ? EmitKind::PTX : EmitKind::HSACO;
  return std::nullopt;
}

static std::string defaultOutput(const DriverOptions &opts, EmitKind kind) {
  const EmitInfo &i = info(kind);
  // Text goes to stdout, and so does anything compiled from stdin.
  if (i.textual || opts.inputPath == "-")
    return "-";
  SmallString<128> name(sys::path::stem(opts.inputPath));
  name += i.extension;
  return std::string(name);
}

/// The depfile a compile writes, or "" for none (-MD with the output on
/// stdout and no -MF has no file to name).
static std::string depfilePath(const DriverOptions &opts) {
  if (!opts.writeDepfile)
    return "";
  if (!opts.depfilePath.empty())
    return opts.depfilePath;
  return opts.outputPath == "-" ? "" : opts.outputPath + ".d";
}

/// Lowers tile-dialect kernels to the GPU dialect. A module already at the
/// GPU level (hand-written, or from --emit=gpu) passes through unchanged,
/// except for the fastmath flags --fast-math puts on its float ops.
static mlir::LogicalResult lowerToGPU(mlir::ModuleOp module,
                                      const DriverOptions &opts,
                                      mlir::TimingScope &timing) {
  // @tilelang.jit(pass_configs={TL_ENABLE_FAST_MATH: True}) on the file's
  // kernels (MLIRGen checks that they agree) means --fast-math.
  bool fastMath = opts.fastMath || module->hasAttr("tile.fast_math");
  bool hasTileKernels = false;
  module.walk([&](mlir::Operation *op) {
    if (op->hasAttr(tile::TileDialect::getKernelFuncAttrName()))
      hasTileKernels = true;
  });
  mlir::PassManager pm(module.getContext());
  pm.enableTiming(timing);
  // Verifying the module after each of the lowering's ~17 passes is for
  // finding a pass that breaks the IR; a release build verifies once, after
  // the last (invalid IR still stops before code generation), unless
  // --verify-each asks for every pass. Debug builds verify each.
#ifdef NDEBUG
  bool verifyEach = opts.verifyEach;
#else
  bool verifyEach = true;
#endif
  pm.enableVerifier(verifyEach);
  auto run = [&]() -> mlir::LogicalResult {
    if (mlir::failed(pm.run(module)))
      return mlir::failure();
    return verifyEach ? mlir::success() : mlir::verify(module);
  };
  if (!hasTileKernels ||
      module->hasAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName())) {
    // Only --fast-math has work left there: the flags on the gpu.funcs'
    // float ops are what the code generators read.
    if (!fastMath)
      return mlir::success();
    pm.addPass(createTileFastMath());
    return run();
  }
  if (opts.printIRAfterAll) {
    module.getContext()->disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](mlir::Pass *, mlir::Operation *) { return false; },
        /*shouldPrintAfterPass=*/[](mlir::Pass *, mlir::Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  TileToGPUOptions lowering;
  lowering.fastMath = fastMath;
  buildTileToGPUPipeline(pm, lowering);
  return run();
}

int runDriver(DriverOptions opts) {
  if (opts.targets.size() > 1 && !opts.capture)
    return runMultiTargetDriver(std::move(opts));
  // Every message of this compile goes to one stream: stderr, or the
  // buffer of one target of a multi-target compile (printed in order).
  raw_ostream &diagOS =
      opts.capture && opts.capture->log ? *opts.capture->log : errs();
  auto report = [&](const Twine &msg) { reportError(msg, diagOS); };
  // -ftime-report: a tree of stage times (and the lowering's passes),
  // printed to stderr when `timing` goes out of scope.
  mlir::DefaultTimingManager timing;
  timing.setEnabled(opts.timeReport);
  timing.setDisplayMode(mlir::DefaultTimingManager::DisplayMode::Tree);
  mlir::TimingScope rootTiming = timing.getRootScope();
  std::optional<EmitKind> resolved = resolveEmit(opts);
  if (!resolved) {
    report("cannot tell what to emit from the extension of -o '" +
           opts.outputPath +
           "'; give --emit, or an output ending in .ptx, .cubin, .hsaco, "
           ".ll, .mlir, .gpu.mlir, .ast, .h, .hpp, .json, .svg or .html");
    return ExitUsageError;
  }
  EmitKind emit = *resolved;
  if (opts.outputPath.empty())
    opts.outputPath = defaultOutput(opts, emit);
  // An output must never overwrite an input or another output.
  std::vector<NamedFile> outputs = {{"-o", opts.outputPath}};
  if (!opts.headerPath.empty())
    outputs.push_back({"--header", opts.headerPath});
  if (!opts.jsonPath.empty())
    outputs.push_back({"--json", opts.jsonPath});
  std::string depfile = depfilePath(opts);
  if (!depfile.empty())
    outputs.push_back({opts.depfilePath.empty() ? "the depfile" : "-MF",
                       depfile});
  std::vector<NamedFile> inputs = {{"the input file", opts.inputPath}};
  if (!opts.instancesPath.empty())
    inputs.push_back({"the --instances file", opts.instancesPath});
  if (!opts.tuningCachePath.empty())
    inputs.push_back({"the --tuning-cache file", opts.tuningCachePath});
  std::string conflict = checkOutputConflicts(outputs, inputs);
  if (!conflict.empty()) {
    report(conflict);
    return ExitUsageError;
  }

  if ((emit == EmitKind::PTX || emit == EmitKind::Cubin) &&
      !isNVIDIA(opts.target)) {
    report("--emit=" + Twine(emitKindName(emit)) +
           " needs an NVIDIA target, not '" + opts.target + "'");
    return ExitUsageError;
  }
  if (emit == EmitKind::HSACO && isNVIDIA(opts.target)) {
    report("--emit=hsaco needs an AMD target (gfx90a, gfx942), not '" +
           opts.target + "'");
    return ExitUsageError;
  }

  std::string readProblem;
  std::unique_ptr<MemoryBuffer> file =
      readInputFile(opts.inputPath, readProblem);
  if (!file) {
    report(readProblem);
    return ExitCompileError;
  }
  for (const NamedFile &output : outputs) {
    std::string problem = checkOutputWritable(output.path);
    if (!problem.empty()) {
      report(problem);
      return ExitCompileError;
    }
  }

  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  std::vector<std::string> deps = {opts.inputPath};

  MLIRGenOptions genOptions;
  genOptions.defines = opts.defines;
  genOptions.target = opts.target;
  genOptions.indexBits = opts.indexBits;
  if (!opts.instancesPath.empty()) {
    std::unique_ptr<MemoryBuffer> inst =
        readInputFile(opts.instancesPath, readProblem);
    if (!inst) {
      report(readProblem);
      return ExitCompileError;
    }
    std::string problem =
        parseInstancesJSON(inst->getBuffer(), genOptions.instances);
    if (!problem.empty()) {
      report(opts.instancesPath + ": " + problem);
      return ExitCompileError;
    }
    deps.push_back(opts.instancesPath);
  }

  mlir::DialectRegistry registry;
  registerCodegenDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  loadMLIRGenDialects(context);
  mlir::SourceMgrDiagnosticHandler mlirDiags(sourceMgr, &context, diagOS);
  DiagnosticEngine diag(sourceMgr, diagOS);

  // Writes `text` to `path` and, on success, the depfile.
  auto finish = [&](StringRef path, StringRef text) -> int {
    if (Error e = writeFileAtomically(path, text)) {
      report("cannot write '" + path + "': " + toString(std::move(e)));
      return ExitCompileError;
    }
    if (!depfile.empty()) {
      std::string depPath = depfile;
      std::string target = opts.depTarget.empty() ? path.str() : opts.depTarget;
      if (Error e = writeFileAtomically(depPath, renderDepfile(target, deps))) {
        report("cannot write '" + depPath + "': " + toString(std::move(e)));
        return ExitCompileError;
      }
    }
    return ExitSuccess;
  };

  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (StringRef(opts.inputPath).ends_with(".mlir")) {
    // IR written by hand or by an earlier `--emit`: resume from there.
    if (emit == EmitKind::AST) {
      report("--emit=ast needs a .tile input");
      return ExitUsageError;
    }
    mlir::TimingScope parseTiming = rootTiming.nest("parse");
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
    if (!module)
      return ExitCompileError;
  } else {
    mlir::TimingScope parseTiming = rootTiming.nest("parse");
    std::unique_ptr<ast::Module> ast =
        parseModule(sourceMgr, sourceMgr.getMainFileID(), diag);
    parseTiming.stop();
    if (!ast || diag.hasErrors())
      return ExitCompileError;
    if (emit == EmitKind::AST) {
      std::string text;
      raw_string_ostream os(text);
      dumpAST(*ast, os);
      return finish(opts.outputPath, text);
    }
    if (!opts.tuningCachePath.empty()) {
      if (!applyTuningCache(opts.tuningCachePath, sourceMgr.getMemoryBuffer(
                                sourceMgr.getMainFileID())->getBuffer(),
                            *ast, diag, genOptions, opts.target))
        return ExitCompileError;
      deps.push_back(opts.tuningCachePath);
    }
    mlir::TimingScope elaborateTiming = rootTiming.nest("elaborate");
    module = elaborate(*ast, context, diag, genOptions);
    if (!module || diag.hasErrors())
      return ExitCompileError;
  }

  // Read by tile-plan-warp-specialize, like TileLang's pass configs.
  if (opts.overlapGemms)
    (*module)->setAttr("tile.overlap_gemms", mlir::UnitAttr::get(&context));
  if (opts.noOverlapGemms)
    (*module)->setAttr("tile.no_overlap_gemms", mlir::UnitAttr::get(&context));
  if (opts.pingpong)
    (*module)->setAttr("tile.pingpong_gemms", mlir::UnitAttr::get(&context));
  if (opts.remarks)
    (*module)->setAttr("tile.remarks", mlir::UnitAttr::get(&context));

  if (emit == EmitKind::Layouts) {
    mlir::FailureOr<std::string> page = renderLayouts(
        *module, opts.target, StringRef(opts.outputPath).ends_with(".html"));
    if (mlir::failed(page))
      return ExitCompileError;
    return finish(opts.outputPath, *page);
  }

  if (emit == EmitKind::Tile) {
    std::string text;
    raw_string_ostream os(text);
    module->print(os);
    return finish(opts.outputPath, text);
  }

  // Tile kernels go down to the GPU dialect first.
  mlir::TimingScope lowerTiming = rootTiming.nest("lower to GPU");
  if (failed(lowerToGPU(*module, opts, lowerTiming)))
    return ExitCompileError;
  lowerTiming.stop();
  if (emit == EmitKind::GPU) {
    std::string text;
    raw_string_ostream os(text);
    module->print(os);
    return finish(opts.outputPath, text);
  }

  // A block the chip cannot run is an error before any code is generated.
  std::unique_ptr<TargetInfo> chip = TargetInfo::get(opts.target);
  if (chip && mlir::failed(checkKernelThreads(*module, *chip)))
    return ExitCompileError;

  CodegenOptions cg;
  cg.chip = opts.target;
  cg.optLevel = opts.optLevel;
  cg.cudaPath = opts.cudaPath;
  cg.rocmPath = opts.rocmPath;
  mlir::TimingScope codegenTiming = rootTiming.nest("codegen");
  cg.timing = &codegenTiming;
  bool nvidia = isNVIDIA(opts.target);
  bool wantLaunchInfo = !opts.headerPath.empty() || !opts.jsonPath.empty() ||
                        emit == EmitKind::Header || emit == EmitKind::JSON;
  mlir::FailureOr<std::string> out = mlir::failure();
  mlir::FailureOr<std::string> cubin = mlir::failure();
  std::vector<KernelResources> resources;
  header::ImageKind imageKind = nvidia ? header::ImageKind::PTX
                                       : header::ImageKind::HSACO;
  switch (emit) {
  case EmitKind::LLVM:
    out = emitLLVMIR(*module, cg);
    break;
  case EmitKind::Cubin:
    out = emitCubin(*module, cg, &resources);
    imageKind = header::ImageKind::Cubin;
    break;
  case EmitKind::HSACO:
    out = emitHSACO(*module, cg, &resources);
    break;
  default: // PTX, and the image embedded by --emit=header/json
    out = nvidia ? emitPTX(*module, cg) : emitHSACO(*module, cg, &resources);
    // ptxas reports registers and spills for the header and metadata.
    if (mlir::succeeded(out) && nvidia && (wantLaunchInfo || opts.capture)) {
      mlir::TimingScope ptxasTiming = codegenTiming.nest("ptxas");
      cubin = assemblePTX(*out, backendLocation(*module), cg, &resources);
      if (mlir::failed(cubin))
        return ExitCompileError;
    }
    break;
  }
  if (mlir::failed(out))
    return ExitCompileError;
  // Registers, shared memory and spills as the assembler reported them.
  if (chip && mlir::failed(checkKernelResources(*module, *chip, resources)))
    return ExitCompileError;
  codegenTiming.stop();
  mlir::TimingScope headerTiming = rootTiming.nest("header and JSON");

  if (opts.capture) {
    // One target of a multi-target header: hand back the description,
    // with the binary as its image, and write nothing.
    Capture &capture = *opts.capture;
    capture.unit.sourceFile = opts.inputPath;
    capture.unit.compilerVersion = TILEC_VERSION_STRING;
    capture.unit.nameSpace = opts.nameSpace;
    if (nvidia) {
      capture.unit.image = {header::ImageKind::Cubin, opts.target, *cubin};
      capture.ptx = *out;
    } else {
      capture.unit.image = {header::ImageKind::HSACO, opts.target, *out};
    }
    capture.deps = deps;
    if (mlir::failed(collectLaunchInfo(*module, resources, capture.unit)))
      return ExitCompileError;
    return ExitSuccess;
  }

  // Every output is rendered before any is written: a failure leaves none.
  std::vector<std::pair<std::string, std::string>> rendered;
  if (wantLaunchInfo) {
    header::Unit unit;
    unit.sourceFile = opts.inputPath;
    unit.compilerVersion = TILEC_VERSION_STRING;
    unit.nameSpace = opts.nameSpace;
    unit.image = {imageKind, opts.target, *out};
    if (mlir::failed(collectLaunchInfo(*module, resources, unit)))
      return ExitCompileError;
    try {
      header::Flavor flavor = nvidia ? header::Flavor::CUDA : header::Flavor::HIP;
      std::string headerText = header::renderHeader(unit, flavor);
      std::string json = header::renderMetadataJSON(unit);
      if (!opts.headerPath.empty())
        rendered.push_back({opts.headerPath, headerText});
      if (!opts.jsonPath.empty())
        rendered.push_back({opts.jsonPath, json});
      if (emit == EmitKind::Header)
        out = headerText;
      else if (emit == EmitKind::JSON)
        out = json;
    } catch (const header::HeaderError &e) {
      report(Twine("cannot render the launch header: ") + e.what());
      return ExitCompileError;
    }
  }
  for (const auto &[path, text] : rendered)
    if (Error e = writeFileAtomically(path, text)) {
      report("cannot write '" + path + "': " + toString(std::move(e)));
      return ExitCompileError;
    }
  return finish(opts.outputPath, *out);
}

} // namespace tilec
