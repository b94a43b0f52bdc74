//===- MultiTarget.cpp - One header for several chips ---------------------===//
//
// `tilec k.tile --target sm_80,sm_90a -o k.h` runs the whole pipeline once
// per chip (the frontend and the lowering depend on the chip: tile shapes,
// pipelining depth, tensor-core path), each run handing back its launch
// description, cubin and PTX instead of writing files, and then renders one
// header and one JSON from all of them. The outputs are written only when
// every chip compiled, so a failure leaves none.
//
// The chips are compiled side by side, one thread each: a compile owns its
// MLIR and LLVM contexts, and most of its time is ptxas, a process of its
// own, so two chips on a 2-core build machine take little more than one
// (README, "Compile time"). Each thread's diagnostics are kept and printed
// in target order, up to the first target that failed, as a one-by-one
// compile would print them. -ftime-report and --print-ir-after-all compile
// one chip after the other, so that their reports stay readable.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "tilec/Support/OutputFile.h"
#include "tilec/Target/Header.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <thread>

using namespace llvm;

namespace tilec {

static void reportError(const Twine &msg) {
  WithColor::error(errs(), "tilec") << msg << "\n";
}

int runMultiTargetDriver(DriverOptions opts) {
  bool nvidia = StringRef(opts.targets.front()).starts_with("sm_");
  for (const std::string &target : opts.targets)
    if (StringRef(target).starts_with("sm_") != nvidia) {
      reportError("--target " + opts.targets.front() + "," + target +
                  ": one header is for one runtime; compile NVIDIA and AMD "
                  "targets separately");
      return ExitUsageError;
    }
  // Only the header and the JSON can hold several images.
  StringRef out = opts.outputPath;
  EmitKind emit = EmitKind::Header;
  if (opts.emit) {
    emit = *opts.emit;
  } else if (out.ends_with(".json")) {
    emit = EmitKind::JSON;
  } else if (!out.empty() && !out.ends_with(".h") && !out.ends_with(".hpp")) {
    reportError("-o " + out + ": several targets make one header (.h) or "
                "metadata file (.json)");
    return ExitUsageError;
  }
  if (emit != EmitKind::Header && emit != EmitKind::JSON) {
    reportError("--emit=" + Twine(emitKindName(emit)) +
                " makes one file per target: give one --target, or emit a "
                "header or json for several");
    return ExitUsageError;
  }
  if (opts.outputPath.empty()) {
    StringRef stem = opts.inputPath;
    stem = stem.substr(stem.find_last_of('/') + 1);
    stem = stem.substr(0, stem.find('.'));
    opts.outputPath = (stem + (emit == EmitKind::Header ? ".h" : ".json")).str();
  }
  for (const std::string *path :
       {&opts.outputPath, &opts.headerPath, &opts.jsonPath, &opts.depfilePath})
    if (!path->empty())
      if (std::string problem = checkOutputWritable(*path); !problem.empty()) {
        reportError(problem);
        return ExitCompileError;
      }

  struct TargetRun {
    Capture capture;
    std::string log;
    int code = ExitSuccess;
  };
  std::vector<TargetRun> runs(opts.targets.size());
  bool sideBySide = !opts.timeReport && !opts.printIRAfterAll;
  bool colors = errs().has_colors(); // asked once: it caches the answer
  auto compile = [&](size_t i) {
    TargetRun &run = runs[i];
    DriverOptions one = opts;
    one.target = opts.targets[i];
    one.targets = {};
    one.capture = &run.capture;
    one.emit = EmitKind::Header;
    one.outputPath = "-";
    one.headerPath = one.jsonPath = one.depfilePath = one.depTarget = "";
    one.writeDepfile = false;
    raw_string_ostream log(run.log);
    log.enable_colors(colors);
    if (sideBySide)
      run.capture.log = &log;
    else if (opts.timeReport)
      errs() << "===-- tilec -ftime-report: " << one.target << " --===\n";
    run.code = runDriver(std::move(one));
  };
  if (sideBySide) {
    std::vector<std::thread> others;
    for (size_t i = 1; i < runs.size(); ++i)
      others.emplace_back(compile, i);
    compile(0);
    for (std::thread &thread : others)
      thread.join();
  } else {
    for (size_t i = 0; i < runs.size(); ++i) {
      compile(i);
      if (runs[i].code != ExitSuccess)
        break;
    }
  }

  header::MultiUnit multi;
  std::vector<std::string> deps;
  for (TargetRun &run : runs) {
    errs() << run.log;
    if (run.code != ExitSuccess)
      return run.code;
    multi.units.push_back(std::move(run.capture.unit));
    multi.ptx.push_back(std::move(run.capture.ptx));
    for (std::string &dep : run.capture.deps)
      if (std::find(deps.begin(), deps.end(), dep) == deps.end())
        deps.push_back(std::move(dep));
  }

  std::vector<std::pair<std::string, std::string>> outputs;
  try {
    header::Flavor flavor = nvidia ? header::Flavor::CUDA : header::Flavor::HIP;
    std::string headerText;
    if (emit == EmitKind::Header || !opts.headerPath.empty())
      headerText = header::renderMultiTargetHeader(multi, flavor);
    std::string json = header::renderMetadataJSON(multi);
    outputs.push_back({opts.outputPath,
                       emit == EmitKind::Header ? headerText : json});
    if (!opts.headerPath.empty())
      outputs.push_back({opts.headerPath, headerText});
    if (!opts.jsonPath.empty())
      outputs.push_back({opts.jsonPath, json});
  } catch (const header::HeaderError &e) {
    reportError(Twine("cannot render the launch header: ") + e.what());
    return ExitCompileError;
  }
  if (opts.writeDepfile && opts.outputPath != "-") {
    std::string depPath = opts.depfilePath.empty() ? opts.outputPath + ".d"
                                                   : opts.depfilePath;
    std::string target =
        opts.depTarget.empty() ? opts.outputPath : opts.depTarget;
    outputs.push_back({depPath, renderDepfile(target, deps)});
  }
  for (const auto &[path, text] : outputs)
    if (Error e = writeFileAtomically(path, text)) {
      reportError("cannot write '" + path + "': " + toString(std::move(e)));
      return ExitCompileError;
    }
  return ExitSuccess;
}

} // namespace tilec
