#pragma once
// A fixed-length bit fingerprint (e.g. Morgan/ECFP folded to 2,048 bits) and Tanimoto similarity,
// free of RDKit so that baselines and reports can use it on any layer.
#include <cstddef>
#include <cstdint>
#include <vector>

// GS_POPCOUNT_CLONES on a function whose loops call tanimoto(): GCC compiles it with the POPCNT
// instruction and without, and picks one at load time (function multi-versioning). Baseline x86-64
// has no POPCNT, and the library call that replaces it made every similarity several times slower.
// (-DGS_POPCOUNT_CLONES= builds without, to measure the difference.)
#if defined(GS_POPCOUNT_CLONES)
#elif defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define GS_POPCOUNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define GS_POPCOUNT_CLONES
#endif

namespace gs::similarity {

struct BitFingerprint {
  std::vector<uint64_t> words;  // bit i is words[i / 64] >> (i % 64)
  int on_bits = 0;

  int numBits() const { return static_cast<int>(words.size() * 64); }
  bool test(int i) const { return (words[static_cast<size_t>(i) / 64] >> (i % 64)) & 1U; }
};

// |a ∩ b| / |a ∪ b|; 1 for two empty fingerprints (identical), 0 when the lengths differ.
inline double tanimoto(const BitFingerprint& a, const BitFingerprint& b) {
  if (a.words.size() != b.words.size()) return 0.0;
  int common = 0;
  for (size_t i = 0; i < a.words.size(); ++i) common += __builtin_popcountll(a.words[i] & b.words[i]);
  const int uni = a.on_bits + b.on_bits - common;
  return uni == 0 ? 1.0 : double(common) / double(uni);
}

}  // namespace gs::similarity
