//===- tilec-tune.cpp - Compile every configuration of an autotune space --===//
//
// `tilec-tune FILE.tile [-D ...] --target sm_90a -o DIR` is the build-machine
// half of offline autotuning: it lists the configurations of each
// @tilelang.autotune factory (Autotune.h), compiles each one with tilec in
// its own process (in parallel; a configuration is a one-instance
// --instances file), keeps the ones that compile and pass tilec's resource
// checks, says why each other one was dropped, and writes DIR/manifest.json
// for `tilec-bench --tune DIR` on the GPU machine. Separate processes keep
// one configuration's failure (or crash) from touching the others, and
// reuse exactly the checks and outputs of a normal compile.
//
//===----------------------------------------------------------------------===//

#include "TuningCache.h"

#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/MLIRGen/Autotune.h"
#include "tilec/Support/OutputFile.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

using namespace tilec;
using tuning::Json;

namespace {

struct Job {
  size_t space = 0;
  std::string id;
  Json config;
  std::string factory;
  // Results.
  bool ok = false;
  std::string reason;
  double seconds = 0;
};

std::string hexDigest(llvm::StringRef bytes) {
  std::array<uint8_t, 32> hash = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(bytes.data()),
                              bytes.size()));
  static const char *digits = "0123456789abcdef";
  std::string hex;
  for (uint8_t b : hash) {
    hex += digits[b >> 4];
    hex += digits[b & 15];
  }
  return hex;
}

Json toNlohmann(const llvm::json::Value &v) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << v;
  os.flush();
  return Json::parse(text);
}

/// The first line of a compile log that reports an error, else its first
/// line.
std::string firstError(const std::string &log) {
  std::string first;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    std::string line =
        log.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (first.empty() && !line.empty())
      first = line;
    if (line.find("error:") != std::string::npos)
      return line;
    if (end == std::string::npos)
      break;
    pos = end + 1;
  }
  return first.empty() ? "tilec failed without a message" : first;
}

std::string readFile(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  return buf ? (*buf)->getBuffer().str() : std::string();
}

} // namespace

int main(int argc, char **argv) {
  std::string input, outDir, target = "sm_90a", tilecPath, image = "cubin";
  std::vector<std::string> defineArgs;
  std::string instancesPath, onlyFactory;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool fastMath = false;

  CLI::App app{"tilec-tune: compile every configuration of the "
               "@tilelang.autotune factories of a .tile file, for "
               "`tilec-bench --tune DIR` to time",
               "tilec-tune"};
  app.add_option("input", input, "The .tile file")->required();
  app.add_option("-o,--output", outDir, "Directory for the images and manifest.json")
      ->required();
  app.add_option("--target", target, "sm_90a (default) or sm_80")
      ->check(CLI::IsMember({"sm_90a", "sm_80"}));
  app.add_option("-D,--define", defineArgs,
                 "Bind a parameter for every configuration: -D name=value")
      ->allow_extra_args(false);
  app.add_option("--instances", instancesPath,
                 "JSON file of instances: one search space per instance");
  app.add_option("--factory", onlyFactory, "Tune only this factory");
  app.add_option("-j,--jobs", jobs, "Configurations compiled at once")
      ->check(CLI::PositiveNumber);
  app.add_option("--image", image, "cubin (default: no JIT on the GPU machine) or ptx")
      ->check(CLI::IsMember({"cubin", "ptx"}));
  app.add_option("--tilec", tilecPath, "The tilec to compile with (default: beside tilec-tune)");
  app.add_flag("--fast-math", fastMath, "Compile every configuration with --fast-math");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (const std::string &d : defineArgs)
    if (d.find('=') == std::string::npos || d.front() == '=') {
      std::cerr << "tilec-tune: error: -D expects name=value, got '" << d << "'\n";
      return 2;
    }
  if (tilecPath.empty()) {
    llvm::SmallString<256> self(
        llvm::sys::fs::getMainExecutable(argv[0], (void *)&hexDigest));
    llvm::sys::path::remove_filename(self);
    llvm::sys::path::append(self, "tilec");
    tilecPath = std::string(self);
  }
  if (!llvm::sys::fs::can_execute(tilecPath)) {
    std::cerr << "tilec-tune: error: cannot run tilec at '" << tilecPath
              << "' (give --tilec PATH)\n";
    return 1;
  }

  // The search spaces.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(input, /*IsText=*/true);
  if (!file) {
    std::cerr << "tilec-tune: error: cannot read '" << input
              << "': " << file.getError().message() << "\n";
    return 1;
  }
  std::string sha = hexDigest((*file)->getBuffer());
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  DiagnosticEngine diag(sourceMgr);
  std::unique_ptr<ast::Module> ast =
      parseModule(sourceMgr, sourceMgr.getMainFileID(), diag);
  if (!ast || diag.hasErrors())
    return 1;
  MLIRGenOptions genOptions;
  genOptions.target = target;
  for (const std::string &d : defineArgs)
    genOptions.defines.push_back({d.substr(0, d.find('=')), d.substr(d.find('=') + 1)});
  if (!instancesPath.empty()) {
    std::string problem =
        parseInstancesJSON(readFile(instancesPath), genOptions.instances);
    if (!problem.empty()) {
      std::cerr << "tilec-tune: error: " << instancesPath << ": " << problem << "\n";
      return 1;
    }
  }
  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  std::optional<std::vector<AutotuneSpace>> spaces =
      listAutotuneSpaces(*ast, context, diag, genOptions);
  if (!spaces)
    return 1;
  if (!onlyFactory.empty())
    std::erase_if(*spaces, [&](const AutotuneSpace &s) { return s.factory != onlyFactory; });
  if (spaces->empty()) {
    std::cerr << "tilec-tune: error: " << input << " has no @tilelang.autotune factory"
              << (onlyFactory.empty() ? "" : " named `" + onlyFactory + "`") << "\n";
    return 1;
  }

  if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
    std::cerr << "tilec-tune: error: cannot create '" << outDir << "': " << ec.message() << "\n";
    return 1;
  }

  // One job per configuration; ids are factory[_iINSTANCE]_NNN.
  std::vector<Job> jobList;
  for (size_t s = 0; s < spaces->size(); ++s) {
    const AutotuneSpace &space = (*spaces)[s];
    if (space.droppedByDefines)
      std::cerr << "tilec-tune: note: " << space.factory << ": "
                << space.droppedByDefines
                << " configuration(s) contradict a -D/--instances value and are skipped\n";
    std::string prefix = space.factory;
    if (!genOptions.instances.empty())
      prefix += "_i" + std::to_string(space.instanceIndex);
    for (size_t c = 0; c < space.configs.size(); ++c) {
      Job job;
      job.space = s;
      char num[16];
      std::snprintf(num, sizeof num, "%03zu", c);
      job.id = prefix + "_" + num;
      job.factory = space.factory;
      job.config = toNlohmann(llvm::json::Value(llvm::json::Object(space.configs[c])));
      jobList.push_back(std::move(job));
    }
  }
  if (jobList.empty()) {
    std::cerr << "tilec-tune: error: no configuration left to compile\n";
    return 1;
  }

  // Compile in parallel.
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0}, compiled{0};
  std::mutex printLock;
  auto worker = [&] {
    for (size_t k = next++; k < jobList.size(); k = next++) {
      Job &job = jobList[k];
      const AutotuneSpace &space = (*spaces)[job.space];
      std::string base = (llvm::Twine(outDir) + "/" + job.id).str();
      // A one-instance --instances file: the tuned factory only, with the
      // configuration's values.
      Json inst = Json::array();
      Json one;
      one["factory"] = job.factory;
      one["name"] = job.factory;
      Json p = Json::object();
      for (const auto &[k2, v] : job.config.items())
        p[k2] = v;
      one["params"] = p;
      inst.push_back(one);
      std::string instPath = base + ".instances.json";
      bool wrote = !llvm::errorToBool(writeFileAtomically(instPath, inst.dump(2) + "\n"));
      std::vector<std::string> args = {tilecPath, input, "--target", target,
                                       "--instances", instPath,
                                       "-o", base + "." + image,
                                       "--json", base + ".json"};
      for (const std::string &d : defineArgs)
        args.insert(args.end(), {"-D", d});
      // Values an --instances entry gave that the configuration does not
      // override become -D bindings (they apply to this factory only,
      // since only it is instantiated).
      if (!genOptions.instances.empty())
        for (const auto &[k2, text] : genOptions.instances[space.instanceIndex].params)
          if (!job.config.contains(k2))
            args.insert(args.end(), {"-D", k2 + "=" + text});
      if (fastMath)
        args.push_back("--fast-math");
      std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
      std::string logPath = base + ".log";
      std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(logPath),
                                                    llvm::StringRef(logPath)};
      auto start = std::chrono::steady_clock::now();
      std::string errMsg;
      int rc = wrote ? llvm::sys::ExecuteAndWait(tilecPath, argRefs, std::nullopt,
                                                 redirects, 0, 0, &errMsg)
                     : -1;
      job.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      job.ok = rc == 0;
      if (!wrote)
        job.reason = "cannot write " + instPath;
      else if (rc < 0)
        job.reason = "tilec did not run: " + errMsg;
      else if (rc != 0)
        job.reason = firstError(readFile(logPath));
      std::lock_guard<std::mutex> lock(printLock);
      size_t n = ++done;
      if (job.ok)
        ++compiled;
      std::cerr << "tilec-tune: [" << n << "/" << jobList.size() << "] " << job.id << " "
                << tuning::describeConfig(job.config) << ": "
                << (job.ok ? "compiled" : "dropped: " + job.reason) << "\n";
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::min<size_t>(jobs, jobList.size()); ++t)
    threads.emplace_back(worker);
  for (std::thread &t : threads)
    t.join();

  // The manifest.
  Json manifest;
  manifest["format"] = tuning::kManifestFormat;
  manifest["format_version"] = tuning::kFormatVersion;
  manifest["source"] = input;
  manifest["source_sha256"] = sha;
  manifest["target"] = target;
  manifest["image_kind"] = image;
  Json defines = Json::object();
  for (const auto &[k, v] : genOptions.defines)
    defines[k] = v;
  manifest["defines"] = defines;
  manifest["fast_math"] = fastMath;
  Json spaceList = Json::array();
  for (size_t s = 0; s < spaces->size(); ++s) {
    const AutotuneSpace &space = (*spaces)[s];
    Json js;
    js["factory"] = space.factory;
    js["instance"] = space.instanceIndex;
    js["location"] = space.location;
    js["bindings"] = toNlohmann(llvm::json::Value(llvm::json::Object(space.bindings)));
    js["tuned_params"] = space.tunedParams;
    if (space.defaults.size() == space.tunedParams.size())
      js["defaults"] = toNlohmann(llvm::json::Value(llvm::json::Object(space.defaults)));
    js["options"] = toNlohmann(llvm::json::Value(llvm::json::Object(space.options)));
    js["ignored_options"] = space.ignoredOptions;
    Json configs = Json::array();
    for (const Job &job : jobList) {
      if (job.space != s)
        continue;
      Json c;
      c["id"] = job.id;
      c["config"] = job.config;
      c["status"] = job.ok ? "ok" : "dropped";
      if (job.ok) {
        c["image"] = job.id + "." + image;
        c["metadata"] = job.id + ".json";
      } else {
        c["reason"] = job.reason;
      }
      c["compile_seconds"] = std::round(job.seconds * 1000) / 1000;
      configs.push_back(c);
    }
    js["configs"] = configs;
    spaceList.push_back(js);
  }
  manifest["spaces"] = spaceList;
  std::string manifestPath = outDir + "/manifest.json";
  if (llvm::Error e = writeFileAtomically(manifestPath, manifest.dump(2) + "\n")) {
    std::cerr << "tilec-tune: error: cannot write '" << manifestPath
              << "': " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  std::cerr << "tilec-tune: " << compiled << " of " << jobList.size()
            << " configurations compiled into " << outDir << " ("
            << jobList.size() - compiled << " dropped); time them with `tilec-bench --tune "
            << outDir << "` on the GPU\n";
  return compiled ? 0 : 1;
}
