//===- tilec-header.cpp - Render a launch header from metadata ------------===//
//
// `tilec-header k.json --image k.ptx -o k.h [--hip]` renders the launch
// header for an image from the metadata JSON that `tilec --json` wrote, so
// that the header can be made again (for another runtime, or after editing
// a check) without the compiler, and so that the header renderer can be
// tested from lit. Output is written atomically; errors go to stderr with
// exit status 1.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Header.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace {

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  out.assign(std::istreambuf_iterator<char>(in),
             std::istreambuf_iterator<char>());
  return !in.bad();
}

// Writes next to `path` and renames, so a failed run leaves no partial file.
bool writeFile(const std::string &path, const std::string &text) {
  if (path == "-") {
    std::cout << text;
    return bool(std::cout.flush());
  }
  std::string temp = path + ".tmp-tilec-header";
  {
    std::ofstream out(temp, std::ios::binary);
    if (!out || !out.write(text.data(), text.size()) || !out.flush()) {
      std::remove(temp.c_str());
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Render a tilec launch header from metadata JSON and an image",
               "tilec-header"};
  std::string jsonPath, imagePath, outputPath = "-";
  bool hip = false, emitJson = false;
  app.add_option("metadata", jsonPath,
                 "Metadata JSON written by `tilec --json`")
      ->required();
  app.add_option("--image", imagePath, "The image (.ptx, .cubin, .hsaco)")
      ->required();
  app.add_option("-o", outputPath, "Output file ('-': stdout)");
  app.add_flag("--hip", hip, "Render the HIP header (default: CUDA)");
  app.add_flag("--emit-json", emitJson,
               "Write the metadata JSON again instead (round-trip check)");
  CLI11_PARSE(app, argc, argv);

  std::string json, image;
  if (!readFile(jsonPath, json)) {
    std::cerr << "tilec-header: error: cannot read `" << jsonPath << "`\n";
    return 1;
  }
  if (!readFile(imagePath, image)) {
    std::cerr << "tilec-header: error: cannot read `" << imagePath << "`\n";
    return 1;
  }
  std::string text;
  try {
    tilec::header::Unit unit =
        tilec::header::parseMetadataJSON(json, std::move(image));
    if (emitJson)
      text = tilec::header::renderMetadataJSON(unit);
    else
      text = tilec::header::renderHeader(
          unit, hip ? tilec::header::Flavor::HIP : tilec::header::Flavor::CUDA);
  } catch (const tilec::header::HeaderError &e) {
    std::cerr << "tilec-header: error: " << jsonPath << ": " << e.what()
              << "\n";
    return 1;
  }
  if (!writeFile(outputPath, text)) {
    std::cerr << "tilec-header: error: cannot write `" << outputPath << "`\n";
    return 1;
  }
  return 0;
}
