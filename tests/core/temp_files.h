#pragma once
// Files the tests write: a temporary directory of this test process, removed on scope exit, and
// part of a (compressed) CSV data file copied line for line with its header.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "common/compression.h"

namespace gs::testing_files {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

// The header and data lines [begin, begin + count) of `input` (compressed or not) as `dir / name`.
inline std::string csvSlice(const std::string& input, const std::filesystem::path& dir, const std::string& name,
                            size_t begin, size_t count) {
  auto in = InputFile::open(input);
  EXPECT_TRUE(in.isOk()) << in.status().toString();
  std::ofstream out(dir / name);
  std::string line;
  if (in.isOk() && std::getline(*in.value(), line)) out << line << "\n";
  for (size_t i = 0; in.isOk() && i < begin + count && std::getline(*in.value(), line); ++i)
    if (i >= begin) out << line << "\n";
  EXPECT_TRUE(out.good()) << (dir / name);
  return (dir / name).string();
}

}  // namespace gs::testing_files
