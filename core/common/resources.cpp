#include "common/resources.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#ifndef GS_SOURCE_RESOURCES_DIR
#define GS_SOURCE_RESOURCES_DIR ""
#endif

namespace gs {
namespace fs = std::filesystem;

std::string defaultModelPath() {
  std::error_code ec;
  if (const char* env = std::getenv("GRAPHORMER_DEFAULT_MODEL"); env && *env) return env;
  std::vector<fs::path> candidates;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share/graphormer-studio/models/default");
  if (*GS_SOURCE_RESOURCES_DIR) candidates.push_back(fs::path(GS_SOURCE_RESOURCES_DIR) / "models/default");
  for (const auto& dir : candidates)
    if (fs::exists(dir / "model.safetensors", ec)) return dir.string();
  return "";
}

}  // namespace gs
