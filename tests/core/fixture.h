#pragma once
// Access to the Graphormer reference fixture (tests/data/graphormer-reference).
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gs::test {

inline std::string fixtureDir() { return std::string(GS_TEST_DATA) + "/graphormer-reference"; }

inline std::vector<nlohmann::json> loadFeatureFixture() {
  std::vector<nlohmann::json> rows;
  std::ifstream in(fixtureDir() + "/features.jsonl");
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

}  // namespace gs::test
