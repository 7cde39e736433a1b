#pragma once
// Versions of the libraries this build runs on, for --version and run records; no LibTorch or
// RDKit headers, so front ends (the CLI, the Qt app) can include it.
#include <string>

namespace gs::predict {

struct LibraryVersions {
  std::string libtorch;  // compiled against: "1.13.1", "2.4.0+cuda" for a CUDA build
  std::string rdkit;     // e.g. "2022.09.5"
};

LibraryVersions libraryVersions();

}  // namespace gs::predict
