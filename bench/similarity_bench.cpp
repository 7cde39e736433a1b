// bench/similarity: nearest-neighbour lookup time per query molecule (top 5 by Tanimoto on 2,048-bit
// Morgan radius-2 fingerprints) against 10^4, 10^5 and 10^6 reference fingerprints, with the
// index's BitBound pruning and with a plain scan of every reference, on one core. References are
// RDKit's NCI molecules, then copies of them with 5 % of their on-bits moved at random, so their bit
// counts and similarities look like a real library's; queries are NCI molecules.
// Prints a table; never fails on time.
// Then Butina clustering (the cluster split of training) of --butina N such references at 0.65.
//   bench_similarity [--input FILE.smi] [--queries N] [--sizes 10000,100000,1000000] [--butina 20000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chem/descriptors.h"
#include "chem/molecule.h"
#include "data/record_reader.h"
#include "similarity/butina.h"
#include "similarity/fingerprint_index.h"

namespace {

using Clock = std::chrono::steady_clock;
using gs::similarity::BitFingerprint;

std::vector<BitFingerprint> nciFingerprints(const std::string& path) {
  std::vector<BitFingerprint> out;
  auto reader = gs::data::openReader(path);
  if (!reader.isOk()) return out;
  gs::data::RawRecord r;
  while (reader.value()->next(r)) {
    auto parsed = gs::chem::parseSmiles(r.text);
    if (parsed.status.isOk()) out.push_back(gs::chem::morganFingerprint(*parsed.mol));
  }
  return out;
}

// A copy of `f` with about 5 % of its on-bits moved to random positions.
BitFingerprint perturbed(const BitFingerprint& f, std::mt19937_64& rng) {
  BitFingerprint g = f;
  auto test = [&](int b) { return (g.words[static_cast<size_t>(b / 64)] >> (b % 64)) & 1U; };
  auto flip = [&](int b) { g.words[static_cast<size_t>(b / 64)] ^= uint64_t{1} << (b % 64); };
  std::vector<int> on;
  for (int b = 0; b < 2048; ++b)
    if (test(b)) on.push_back(b);
  const int moves = std::max(1, f.on_bits / 20);
  for (int m = 0; m < moves && !on.empty(); ++m) {
    const size_t pick = rng() % on.size();
    int to = static_cast<int>(rng() % 2048);
    while (test(to)) to = static_cast<int>(rng() % 2048);
    flip(on[pick]);
    flip(to);
    on[pick] = to;
  }
  return g;
}

// References: the NCI fingerprints after the first `skip` (the queries), then perturbed copies up to n.
std::vector<BitFingerprint> references(const std::vector<BitFingerprint>& nci, int skip, int64_t n) {
  std::mt19937_64 rng(1);
  std::vector<BitFingerprint> refs(nci.begin() + std::min<int64_t>(skip, static_cast<int64_t>(nci.size()) / 2),
                                   nci.end());
  while (static_cast<int64_t>(refs.size()) < n) refs.push_back(perturbed(nci[rng() % nci.size()], rng));
  refs.resize(static_cast<size_t>(n));
  return refs;
}

GS_POPCOUNT_CLONES double scanAll(const std::vector<BitFingerprint>& refs, const BitFingerprint& q) {
  double best = 0;
  for (const auto& r : refs) best = std::max(best, gs::similarity::tanimoto(q, r));
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input = "/usr/share/RDKit/Data/NCI/first_5K.smi";
  int queries = 200;
  std::vector<int64_t> sizes{10000, 100000, 1000000};
  int64_t butina = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--input")
      input = v;
    else if (k == "--queries")
      queries = std::stoi(v);
    else if (k == "--butina")
      butina = std::stoll(v);
    else if (k == "--sizes") {
      sizes.clear();
      std::stringstream ss(v);
      for (std::string s; std::getline(ss, s, ',');) sizes.push_back(std::stoll(s));
    }
  }
  const auto nci = nciFingerprints(input);
  if (nci.size() < 10) {
    std::fprintf(stderr, "bench_similarity: too few molecules in %s\n", input.c_str());
    return 1;
  }
  double bits = 0;
  for (const auto& f : nci) bits += f.on_bits;
  std::printf("%zu NCI fingerprints (2,048 bits, radius 2), mean %.1f bits on; %d queries, top 5\n\n", nci.size(),
              bits / double(nci.size()), queries);
  std::printf("%10s %14s %14s %9s %12s\n", "references", "index ms/query", "scan ms/query", "speed-up", "mean top-1");
  for (int64_t n : sizes) {
    const auto refs = references(nci, queries, n);
    const gs::similarity::FingerprintIndex index(refs);
    double top = 0, check = 0;
    auto t0 = Clock::now();
    for (int q = 0; q < queries; ++q) top += index.nearest(nci[static_cast<size_t>(q)], 5).front().similarity;
    const double index_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / queries;
    t0 = Clock::now();
    for (int q = 0; q < queries; ++q) check += scanAll(refs, nci[static_cast<size_t>(q)]);
    const double scan_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / queries;
    std::printf("%10lld %14.3f %14.3f %8.1fx %12.3f%s\n", static_cast<long long>(n), index_ms, scan_ms,
                scan_ms / index_ms, top / queries,
                std::abs(top - check) < 1e-9 ? "" : "  (top-1 disagrees with the scan!)");
  }
  const auto set = references(nci, 0, butina);
  const auto t0 = Clock::now();
  const auto clusters = gs::similarity::butinaClusters(set, 0.65);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("\nButina clustering at Tanimoto 0.65 of %lld of these fingerprints: %.2f s, %d clusters\n",
              static_cast<long long>(butina), seconds,
              clusters.empty() ? 0 : *std::max_element(clusters.begin(), clusters.end()) + 1);
  return 0;
}
