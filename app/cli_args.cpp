#include "cli_args.h"

#include <cstdlib>

namespace gs::app {

bool CliArgs::parse(int argc, char** argv, int first, const std::set<std::string>& valued,
                    const std::set<std::string>& switches, std::string* error) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    const size_t eq = a.find('=');
    const bool inline_value = a.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    if (switches.count(a)) {
      values_[a] = "1";
    } else if (valued.count(a)) {
      if (!inline_value) {
        if (i + 1 >= argc) {
          *error = "missing value for " + a;
          return false;
        }
        value = argv[++i];
      }
      values_[a] = value;
    } else {
      *error = "unknown option '" + a + "'";
      return false;
    }
  }
  return true;
}

std::string CliArgs::get(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second;
}

bool CliArgs::getInt(const std::string& flag, int fallback, int lo, int hi, int* out, std::string* error) const {
  auto it = values_.find(flag);
  if (it == values_.end()) {
    *out = fallback;
    return true;
  }
  try {
    size_t used = 0;
    const long v = std::stol(it->second, &used);
    if (used == it->second.size() && v >= lo && v <= hi) {
      *out = static_cast<int>(v);
      return true;
    }
  } catch (...) {
  }
  *error = flag + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" +
           it->second + "'";
  return false;
}

bool CliArgs::getDouble(const std::string& flag, double lo, double hi, double* out, std::string* error) const {
  if (!has(flag)) return true;
  char* end = nullptr;
  const std::string text = get(flag);
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !(v >= lo && v <= hi)) {
    *error = flag + " must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  *out = v;
  return true;
}

}  // namespace gs::app
