//===- Tune.cpp - tilec-bench --tune DIR ----------------------------------===//

#include "Tune.h"

#include "TuningCache.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <ostream>
#include <poll.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace tilec::bench {

using tuning::Json;

int runChild(const std::vector<std::string> &argv, double timeoutSeconds,
             std::string &out, std::string &err) {
  int outPipe[2], errPipe[2];
  if (pipe(outPipe) != 0)
    return -1;
  if (pipe(errPipe) != 0) {
    close(outPipe[0]);
    close(outPipe[1]);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    dup2(outPipe[1], 1);
    dup2(errPipe[1], 2);
    close(outPipe[0]);
    close(errPipe[0]);
    close(outPipe[1]);
    close(errPipe[1]);
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(outPipe[1]);
  close(errPipe[1]);
  auto start = std::chrono::steady_clock::now();
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  bool open[2] = {true, true};
  bool killed = false;
  char buf[65536];
  while (open[0] || open[1]) {
    double left = timeoutSeconds -
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeoutSeconds > 0 && left <= 0) {
      kill(pid, SIGKILL);
      killed = true;
      break;
    }
    int ms = timeoutSeconds > 0 ? int(std::min(left, 1.0) * 1000) + 1 : 1000;
    for (int i = 0; i < 2; ++i)
      fds[i].fd = open[i] ? (i ? errPipe[0] : outPipe[0]) : -1;
    if (poll(fds, 2, ms) < 0)
      continue;
    for (int i = 0; i < 2; ++i) {
      if (!open[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0)
        open[i] = false;
      else
        (i ? err : out).append(buf, size_t(n));
    }
  }
  close(outPipe[0]);
  close(errPipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (killed)
    return -2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

namespace {

std::string lastLine(const std::string &text) {
  std::istringstream is(text);
  std::string line, last;
  while (std::getline(is, line))
    if (!line.empty())
      last = line;
  return last.empty() ? "no message" : last;
}

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

bool readText(const std::string &path, std::string &text) {
  std::ifstream is(path, std::ios::binary);
  if (!is)
    return false;
  text.assign(std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>());
  return true;
}

} // namespace

int runTune(const BenchOptions &o, const std::string &self, std::ostream &out,
            std::ostream &err) {
  std::string dir = o.tuneDir;
  std::string text;
  if (!readText(dir + "/manifest.json", text)) {
    err << "tilec-bench: error: cannot read '" << dir
        << "/manifest.json' (make the directory with tilec-tune)\n";
    return 1;
  }
  Json manifest, cache;
  std::string cachePath = o.cachePath.empty() ? dir + "/tuning-cache.json" : o.cachePath;
  try {
    manifest = tuning::parseFormat(text, tuning::kManifestFormat);
    std::string old;
    cache = readText(cachePath, old) ? tuning::parseFormat(old, tuning::kCacheFormat)
                                     : tuning::emptyCache();
  } catch (const tuning::TuningError &e) {
    err << "tilec-bench: error: " << e.what() << "\n";
    return 1;
  }

  bool anyRan = false;
  for (const Json &space : manifest.at("spaces")) {
    const Json opts = space.value("options", Json::object());
    double warmup = opts.value("warmup", o.run.warmupMs), rep = opts.value("rep", o.run.repMs);
    double timeout = o.timeoutSeconds > 0 ? o.timeoutSeconds : opts.value("timeout", 100.0);
    bool skipCheck = opts.value("skip_check", false);
    double rtol = opts.value("rtol", o.rtol), atol = opts.value("atol", o.atol);
    double ratio = opts.value("max_mismatched_ratio", o.maxMismatchedRatio);
    // The factory's supply_type, else the command line's --fill.
    std::string supply = opts.value("supply_type", distributionName(o.plan.fill));
    std::string factory = space.value("factory", "?");
    std::string refPath = dir + "/" + factory + "_i" +
                          std::to_string(space.value("instance", 0)) + ".reference.out";
    std::remove(refPath.c_str());
    std::string refId;
    if (opts.contains("cache_input_tensors") && !opts.value("cache_input_tensors", true))
      err << "tilec-bench: note: " << factory << ": cache_input_tensors=False; every "
          << "configuration still gets the same seeded inputs (the outputs are "
          << "compared across configurations)\n";
    for (const Json &name : space.value("ignored_options", Json::array()))
      err << "tilec-bench: note: " << factory << ": `" << name.get<std::string>()
          << "` is host Python; it is not used\n";

    const Json &configs = space.at("configs");
    Json results = Json::array();
    size_t k = 0, total = configs.size();
    for (const Json &c : configs) {
      ++k;
      Json r;
      r["id"] = c.value("id", "?");
      r["config"] = c.value("config", Json::object());
      std::string prefix = "tilec-bench: [" + std::to_string(k) + "/" +
                           std::to_string(total) + "] " + r["id"].get<std::string>() +
                           " " + tuning::describeConfig(r["config"]) + ": ";
      if (c.value("status", "") != "ok") {
        r["status"] = "dropped";
        r["reason"] = c.value("reason", "did not compile");
        err << prefix << "not compiled (" << r["reason"].get<std::string>() << ")\n";
        results.push_back(r);
        continue;
      }
      std::vector<std::string> argv = {self,
                                       dir + "/" + c.value("image", ""),
                                       "--meta",
                                       dir + "/" + c.value("metadata", ""),
                                       "--json",
                                       "--warmup",
                                       num(warmup),
                                       "--rep",
                                       num(rep),
                                       "--seed",
                                       std::to_string(o.run.seed),
                                       "--device",
                                       std::to_string(o.run.device),
                                       "--fill",
                                       supply};
      for (const auto &[name, value] : o.plan.values)
        argv.insert(argv.end(), {"--dim", name + "=" + num(value)});
      for (const auto &[name, d] : o.plan.fills)
        argv.insert(argv.end(), {"--fill", name + "=" + distributionName(d)});
      if (!o.run.flushL2)
        argv.push_back("--no-flush");
      if (o.run.iters > 0)
        argv.insert(argv.end(), {"--iters", std::to_string(o.run.iters)});
      if (!o.flops.empty())
        argv.insert(argv.end(), {"--flops", o.flops});
      if (!o.bytes.empty())
        argv.insert(argv.end(), {"--bytes", o.bytes});
      if (!skipCheck) {
        if (refId.empty())
          argv.insert(argv.end(), {"--save-output", refPath});
        else
          argv.insert(argv.end(), {"--check-against", refPath, "--rtol", num(rtol),
                                   "--atol", num(atol), "--max-mismatched-ratio",
                                   num(ratio)});
      }
      std::string childOut, childErr;
      int rc = runChild(argv, timeout, childOut, childErr);
      Json report;
      bool parsed = false;
      try {
        if (!childOut.empty()) {
          report = Json::parse(childOut);
          parsed = report.contains("median_ms");
        }
      } catch (const nlohmann::json::exception &) {
      }
      if (rc == -2) {
        r["status"] = "timeout";
        r["reason"] = "took more than " + num(timeout) + " s";
      } else if (parsed && report.contains("check") && !report["check"].value("ok", true)) {
        r["status"] = "wrong";
        r["reason"] = "output differs from " + refId + "'s";
        r["check"] = report["check"];
      } else if (rc != 0 || !parsed) {
        r["status"] = "failed";
        r["reason"] = rc == -1 ? "could not start " + self : lastLine(childErr);
      } else {
        r["status"] = "ok";
        for (const char *key : {"median_ms", "min_ms", "max_ms", "mean_ms", "runs", "tflops", "gbps"})
          if (report.contains(key))
            r[key] = report[key];
        if (refId.empty() && !skipCheck)
          refId = r["id"].get<std::string>();
        r["device"] = report.value("device", "");
        anyRan = true;
      }
      if (r["status"] == "ok")
        err << prefix << r["median_ms"].get<double>() << " ms"
            << (r.contains("tflops") ? ", " + num(r["tflops"].get<double>()) + " TFLOP/s" : "")
            << "\n";
      else
        err << prefix << r["status"].get<std::string>() << ": "
            << r["reason"].get<std::string>() << "\n";
      results.push_back(r);
    }

    // Fastest first; the others after, in manifest order.
    std::vector<Json> ok, rest;
    for (const Json &r : results)
      (r.value("status", "") == "ok" ? ok : rest).push_back(r);
    std::stable_sort(ok.begin(), ok.end(), [](const Json &a, const Json &b) {
      return a["median_ms"].get<double>() < b["median_ms"].get<double>();
    });
    Json entry;
    entry["source"] = manifest.value("source", "");
    entry["source_sha256"] = manifest.value("source_sha256", "");
    entry["factory"] = factory;
    entry["location"] = space.value("location", "");
    entry["bindings"] = space.value("bindings", Json::object());
    entry["chip"] = manifest.value("target", "");
    entry["device"] = ok.empty() ? "" : ok.front().value("device", "");
    entry["options"] = opts;
    if (!skipCheck && !refId.empty())
      entry["reference"] = refId;
    if (!ok.empty()) {
      entry["best"] = ok.front()["config"];
      entry["best_ms"] = ok.front()["median_ms"];
    }
    Json all = Json::array();
    for (const Json &r : ok)
      all.push_back(r);
    for (const Json &r : rest)
      all.push_back(r);
    entry["results"] = all;

    out << factory << " (" << tuning::describeConfig(entry["bindings"]) << ") on "
        << (ok.empty() ? std::string("?") : entry["device"].get<std::string>()) << ": "
        << ok.size() << " of " << total << " configurations timed\n";
    int rank = 0;
    for (const Json &r : ok) {
      char line[64];
      std::snprintf(line, sizeof line, "  %2d. %9.4f ms", ++rank, r["median_ms"].get<double>());
      out << line;
      if (r.contains("tflops")) {
        std::snprintf(line, sizeof line, " %7.1f TFLOP/s", r["tflops"].get<double>());
        out << line;
      }
      out << "  " << r["id"].get<std::string>() << "  " << tuning::describeConfig(r["config"])
          << "\n";
    }
    if (space.contains("defaults") && !ok.empty()) {
      for (const Json &r : ok)
        if (tuning::sameValue(r["config"], space["defaults"])) {
          char line[128];
          std::snprintf(line, sizeof line,
                        "  default configuration: %.4f ms; best %.4f ms (%.2fx)\n",
                        r["median_ms"].get<double>(), ok.front()["median_ms"].get<double>(),
                        r["median_ms"].get<double>() / ok.front()["median_ms"].get<double>());
          out << line;
          entry["default_ms"] = r["median_ms"];
        }
    }
    if (ok.empty()) {
      err << "tilec-bench: error: no configuration of " << factory << " ran\n";
      continue;
    }
    tuning::mergeEntry(cache, entry);
  }
  if (!anyRan)
    return 1;
  std::string tmp = cachePath + ".tmp";
  {
    std::ofstream os(tmp, std::ios::trunc);
    os << cache.dump(2) << "\n";
    if (!os) {
      err << "tilec-bench: error: cannot write '" << cachePath << "'\n";
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), cachePath.c_str()) != 0) {
    err << "tilec-bench: error: cannot write '" << cachePath << "'\n";
    return 1;
  }
  out << "tuning cache: " << cachePath << " (compile with `tilec "
      << manifest.value("source", "FILE") << " --tuning-cache " << cachePath << "`)\n";
  return 0;
}

} // namespace tilec::bench
