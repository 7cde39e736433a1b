#pragma once
// A small "--flag value" / "--switch" parser for graphormer-cli sub-commands.
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gs::app {

class CliArgs {
 public:
  // switches: flags that take no value. Returns false with error set on unknown/missing values.
  bool parse(int argc, char** argv, int first, const std::set<std::string>& valued,
             const std::set<std::string>& switches, std::string* error);
  bool has(const std::string& flag) const { return values_.count(flag) > 0; }
  std::string get(const std::string& flag, const std::string& fallback = "") const;
  // Integer flag; sets error and returns false when the value is not an integer in [lo, hi].
  bool getInt(const std::string& flag, int fallback, int lo, int hi, int* out, std::string* error) const;
  // Number flag in [lo, hi]; `out` keeps its value when the flag is absent.
  bool getDouble(const std::string& flag, double lo, double hi, double* out, std::string* error) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace gs::app
