//===- OutputFile.cpp - Saved kernel outputs ------------------------------===//

#include "OutputFile.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>

namespace tilec::bench {

using Json = nlohmann::ordered_json;
static const char kMagic[8] = {'T', 'I', 'L', 'E', 'C', 'O', 'U', 'T'};

bool writeSavedOutput(const std::string &path, const Plan &plan, uint64_t seed,
                      const Snapshot &snapshot, std::string &error) {
  Json header;
  header["function"] = plan.function;
  header["seed"] = seed;
  Json tensors = Json::array();
  uint64_t offset = 0;
  for (size_t t = 0; t < plan.tensors.size(); ++t) {
    const TensorPlan &tp = plan.tensors[t];
    tensors.push_back({{"name", tp.name},
                       {"dtype", dtypeName(tp.dtype)},
                       {"shape", tp.shape},
                       {"offset", offset},
                       {"bytes", tp.bytes}});
    offset += tp.bytes;
  }
  header["tensors"] = tensors;
  std::string text = header.dump();
  std::string tmp = path + ".tmp";
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    uint64_t length = text.size();
    unsigned char len[8];
    for (int i = 0; i < 8; ++i)
      len[i] = (unsigned char)(length >> (8 * i));
    os.write(kMagic, 8);
    os.write(reinterpret_cast<const char *>(len), 8);
    os.write(text.data(), std::streamsize(text.size()));
    for (const std::vector<uint8_t> &b : snapshot)
      os.write(reinterpret_cast<const char *>(b.data()), std::streamsize(b.size()));
    if (!os) {
      error = "cannot write '" + path + "'";
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

bool readSavedOutput(const std::string &path, SavedOutput &out,
                     std::string &error) {
  std::ifstream is(path, std::ios::binary);
  if (!is) {
    error = "cannot read '" + path + "'";
    return false;
  }
  std::string data((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  if (data.size() < 16 || std::memcmp(data.data(), kMagic, 8) != 0) {
    error = "'" + path + "' is not a tilec-bench output file";
    return false;
  }
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i)
    length |= uint64_t((unsigned char)data[8 + i]) << (8 * i);
  if (16 + length > data.size()) {
    error = "'" + path + "' is truncated";
    return false;
  }
  try {
    Json header = Json::parse(data.substr(16, length));
    out.function = header.at("function").get<std::string>();
    out.seed = header.at("seed").get<uint64_t>();
    size_t base = 16 + length;
    for (const Json &t : header.at("tensors")) {
      SavedTensor s;
      s.name = t.at("name").get<std::string>();
      std::optional<DType> dt = parseDType(t.at("dtype").get<std::string>());
      if (!dt)
        throw std::runtime_error("unknown dtype");
      s.dtype = *dt;
      s.shape = t.at("shape").get<std::vector<int64_t>>();
      uint64_t offset = t.at("offset").get<uint64_t>();
      uint64_t bytes = t.at("bytes").get<uint64_t>();
      if (base + offset + bytes > data.size())
        throw std::runtime_error("tensor `" + s.name + "` is truncated");
      s.bytes.assign(data.begin() + std::ptrdiff_t(base + offset),
                     data.begin() + std::ptrdiff_t(base + offset + bytes));
      out.tensors.push_back(std::move(s));
    }
  } catch (const std::exception &e) {
    error = "'" + path + "' has a bad header: " + e.what();
    return false;
  }
  return true;
}

bool checkAgainstSaved(const Plan &plan, uint64_t seed, const Snapshot &snapshot,
                       const SavedOutput &saved, double rtol, double atol,
                       std::vector<TensorCheck> &checks, std::string &error) {
  if (saved.seed != seed) {
    error = "the saved output was made with --seed " + std::to_string(saved.seed) +
            ", this run uses " + std::to_string(seed);
    return false;
  }
  for (size_t t = 0; t < plan.tensors.size(); ++t) {
    const TensorPlan &tp = plan.tensors[t];
    const SavedTensor *s = nullptr;
    for (const SavedTensor &c : saved.tensors)
      if (c.name == tp.name)
        s = &c;
    if (!s) {
      error = "the saved output has no tensor `" + tp.name + "`";
      return false;
    }
    if (s->dtype != tp.dtype || s->shape != tp.shape) {
      error = "tensor `" + tp.name + "` was saved as another dtype or shape";
      return false;
    }
    checks.push_back({tp.name, compareTensors(snapshot[t].data(), s->bytes.data(),
                                              tp.dtype, tp.elements, rtol, atol)});
  }
  return true;
}

} // namespace tilec::bench
