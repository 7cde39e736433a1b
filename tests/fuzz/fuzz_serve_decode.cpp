// Seeded mutation fuzzer for the prediction server's request decoder (serve/api.h): JSON bodies
// for /v1/predict and /v2/models/{m}/infer mutated byte-wise and structurally (deep nesting,
// invalid UTF-8, huge numbers, truncation). Invariants for any input: no exception or crash
// (run under ASan in the sanitizer pass), a refusal is 400 or 413 with a message, and an accepted
// request holds 1..max_molecules molecules with ids within their limit.
// Usage: fuzz_serve_decode [--iterations N] [--seconds S] [--seed K]
// Stops after N bodies or S seconds (0 = no time limit), whichever comes first.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "serve/api.h"

namespace {

const std::vector<std::string> kSeeds = {
    R"({"molecules": ["CCO", {"smiles": "c1ccccc1", "id": "benzene"}], "timeout_ms": 500})",
    R"({"inputs": [{"smiles": "C", "id": 3}], "model": "graphormer"})",
    R"({"id": "q", "inputs": [{"name": "smiles", "datatype": "BYTES", "shape": [2], "data": ["CCO", "N"]}],
        "parameters": {"timeout_ms": 100}})",
    R"({"inputs": [{"name": "smiles", "datatype": "BYTES", "shape": [1, 1], "data": ["O"]},
                   {"name": "id", "datatype": "BYTES", "shape": [1], "data": ["x"]}]})",
    R"({"molecules": ["caf\u00e9", "\ud83e\uddea", "C\"C"]})"};

const char* const kFragments[] = {"[",
                                  "]",
                                  "{",
                                  "}",
                                  "\"",
                                  ",",
                                  ":",
                                  "\\u",
                                  "\\ud800",
                                  "1e999",
                                  "-0",
                                  "null",
                                  "true",
                                  "\xff",
                                  "\xc0\xaf",
                                  "\xed\xa0\x80",
                                  "\xf4\x90\x80\x80",
                                  "\"molecules\"",
                                  "\"shape\"",
                                  "[[[[[[[[[[",
                                  "]]]]]]]]]]",
                                  "\"data\"",
                                  "\"BYTES\"",
                                  "99999999999999999999"};

std::string mutate(std::mt19937& rng) {
  std::string s = kSeeds[rng() % kSeeds.size()];
  const int edits = 1 + static_cast<int>(rng() % 5);
  for (int e = 0; e < edits; ++e) {
    const size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 6) {
      case 0:
        if (pos < s.size()) s.erase(pos, 1 + rng() % 8);
        break;
      case 1: s.insert(pos, kFragments[rng() % (sizeof kFragments / sizeof *kFragments)]); break;
      case 2:
        if (pos < s.size()) s[pos] = static_cast<char>(rng() % 256);
        break;
      case 3: s.resize(pos); break;                                                   // truncated body
      case 4: s.insert(pos, std::string(1 + rng() % 20000, "[{"[rng() % 2])); break;  // deep nesting
      default:
        if (!s.empty()) s.insert(pos, s.substr(rng() % s.size(), 1 + rng() % 64));
        break;
    }
  }
  return s;
}

bool check(const std::optional<gs::serve::HttpError>& e, const gs::serve::PredictRequest& r,
           const gs::serve::RequestLimits& limits, const std::string& body) {
  if (e) {
    if ((e->status == 400 || e->status == 413) && !e->message.empty()) return true;
    std::cerr << "refusal with status " << e->status << " and message '" << e->message << "' for: " << body << "\n";
    return false;
  }
  const bool ok = !r.molecules.empty() && r.molecules.size() <= static_cast<size_t>(limits.max_molecules);
  bool ids = true;
  for (const auto& m : r.molecules)
    ids = ids && !m.id.empty() && m.id.size() <= static_cast<size_t>(limits.max_id_bytes);
  if (!ok || !ids) std::cerr << "accepted a request outside its limits: " << body << "\n";
  return ok && ids;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = 20000;
  double seconds = 0;
  unsigned seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--iterations"))
      iterations = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seconds"))
      seconds = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = static_cast<unsigned>(std::atol(argv[i + 1]));
  }
  std::mt19937 rng(seed);
  gs::serve::RequestLimits limits;
  limits.max_molecules = 4;
  limits.max_id_bytes = 16;
  long accepted = 0, n = 0;
  const auto start = std::chrono::steady_clock::now();
  for (; n < iterations; ++n) {
    if (seconds > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) break;
    const std::string body = mutate(rng);
    gs::serve::PredictRequest v1, v2;
    std::string id;
    if (!check(gs::serve::decodePredict(body, limits, &v1), v1, limits, body)) return 1;
    if (!check(gs::serve::decodeV2Infer(body, limits, &v2, &id), v2, limits, body)) return 1;
    accepted += !v1.molecules.empty() || !v2.molecules.empty();
  }
  std::cout << "fuzz_serve_decode: " << n << " bodies, " << accepted << " accepted, no findings\n";
  return 0;
}
