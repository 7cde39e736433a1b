// bench/trust: what trust costs.
//  1. predict throughput (molecules/s, featurization included) on the default model with and
//     without trust (intervals, σ from the snapshot ensemble, domain, neighbours), measured in one
//     run on the same molecules, alternating, median of --repeats; the ratio is the cost of trust.
//  2. the applicability-domain assessment per molecule (elements, fragments, size, radius-1/2
//     environments, the 20 nearest neighbours, their labels and the model's error on them) against
//     10^4, 10^5 and 10^6 reference molecules: the default model's training fingerprints, then
//     copies with 5 % of their on-bits moved at random, as a training set of that size would look.
// One core (--threads 1) unless told otherwise. Prints a table; never fails on time.
//   bench_trust [--input FILE.smi] [--molecules N] [--repeats N] [--threads N] [--sizes 10000,100000,1000000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "data/record_reader.h"
#include "predict/predictor.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

gs::similarity::BitFingerprint perturbed(const gs::similarity::BitFingerprint& f, std::mt19937_64& rng) {
  auto g = f;
  std::vector<int> on;
  for (int b = 0; b < g.numBits(); ++b)
    if (g.test(b)) on.push_back(b);
  for (int m = 0; m < std::max(1, f.on_bits / 20) && !on.empty(); ++m) {
    const size_t pick = rng() % on.size();
    int to = static_cast<int>(rng() % static_cast<uint64_t>(g.numBits()));
    while (g.test(to)) to = static_cast<int>(rng() % static_cast<uint64_t>(g.numBits()));
    g.words[static_cast<size_t>(on[pick] / 64)] ^= uint64_t{1} << (on[pick] % 64);
    g.words[static_cast<size_t>(to / 64)] ^= uint64_t{1} << (to % 64);
    on[pick] = to;
  }
  return g;
}

// The trust data with its reference set grown to n molecules.
gs::bundle::TrustData grown(gs::bundle::TrustData t, int64_t n, std::mt19937_64& rng) {
  auto& ref = t.reference;
  const auto base = ref.size();
  const auto outs = static_cast<size_t>(t.outputs);
  ref.fingerprints.resize(static_cast<size_t>(std::min(n, base)));
  ref.ids.resize(ref.fingerprints.size());
  ref.smiles.resize(ref.fingerprints.size());
  ref.labels.resize(ref.fingerprints.size() * outs);
  ref.predictions.resize(ref.fingerprints.size() * outs);
  for (int64_t i = base; i < n; ++i) {
    const auto from = static_cast<size_t>(i % base);
    ref.fingerprints.push_back(perturbed(ref.fingerprints[from], rng));
    ref.ids.push_back(ref.ids[from]);
    ref.smiles.push_back(ref.smiles[from]);
    for (size_t j = 0; j < outs; ++j) {
      ref.labels.push_back(ref.labels[from * outs + j]);
      ref.predictions.push_back(ref.predictions[from * outs + j]);
    }
  }
  return t;
}

// Plain and trusted predictors on the same molecules, alternating; prints the table.
bool timePredict(gs::predict::Predictor& with_trust, const std::vector<gs::data::RawRecord>& records, int repeats,
                 int threads, const std::string& input) {
  gs::predict::PredictorOptions plain = with_trust.options();
  plain.trust = false;
  auto p_plain = gs::predict::Predictor::open(plain);
  if (!p_plain.isOk()) return std::fprintf(stderr, "%s\n", p_plain.status().toString().c_str()), false;
  std::vector<double> t_plain, t_trust;
  for (int r = 0; r < repeats + 1; ++r) {  // the first round warms up
    auto t0 = Clock::now();
    p_plain.value()->predict(records);
    const double a = seconds(t0);
    t0 = Clock::now();
    with_trust.predict(records);
    const double b = seconds(t0);
    if (r > 0) t_plain.push_back(a), t_trust.push_back(b);
  }
  const double n = double(records.size());
  std::printf("predict, default model, %zu molecules of %s, %d thread(s), median of %d\n", records.size(),
              input.c_str(), threads, repeats);
  std::printf("| | molecules/s | ms/molecule |\n|---|---:|---:|\n");
  std::printf("| plain predict | %.0f | %.3f |\n", n / median(t_plain), 1e3 * median(t_plain) / n);
  const auto& sigma = with_trust.trust()->assessor().data().sigma;
  std::printf("| with trust (ensemble of %d, interval, domain, %d neighbours) | %.0f | %.3f |\n",
              with_trust.trust()->members() + 1, std::max(sigma.neighbours, sigma.residual_neighbours),
              n / median(t_trust), 1e3 * median(t_trust) / n);
  std::printf("cost of trust: %.2fx plain predict time\n\n", median(t_trust) / median(t_plain));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string input = arg(argc, argv, "--input", "/usr/share/RDKit/Data/NCI/first_5K.smi");
  const int molecules = std::stoi(arg(argc, argv, "--molecules", "2000"));
  const int repeats = std::stoi(arg(argc, argv, "--repeats", "3"));
  const int threads = std::stoi(arg(argc, argv, "--threads", "1"));
  std::vector<int64_t> sizes;
  std::stringstream ss(arg(argc, argv, "--sizes", "10000,100000,1000000"));
  for (std::string s; std::getline(ss, s, ',');) sizes.push_back(std::stoll(s));

  auto reader = gs::data::openReader(input);
  if (!reader.isOk()) return std::fprintf(stderr, "%s\n", reader.status().toString().c_str()), 1;
  std::vector<gs::data::RawRecord> records;
  for (gs::data::RawRecord r; static_cast<int>(records.size()) < molecules && reader.value()->next(r);)
    records.push_back(r);

  gs::predict::PredictorOptions trusted;
  trusted.session.threads = threads;
  auto p_trust = gs::predict::Predictor::open(trusted);
  if (!p_trust.isOk() || !p_trust.value()->trust())
    return std::fprintf(stderr, "cannot open the default model with its trust data\n"), 1;
  if (!timePredict(*p_trust.value(), records, repeats, threads, input)) return 1;

  // The domain assessment alone, against growing reference sets.
  std::vector<gs::chem::DomainFeatures> features;
  for (const auto& r : records) {
    auto row = p_trust.value()->featurize(r);
    if (row.domain) features.push_back(*row.domain);
    if (features.size() >= 500) break;
  }
  std::mt19937_64 rng(7);
  std::printf(
      "domain assessment per molecule (%zu query molecules, one core)\n| reference molecules | ms/molecule |\n|---:|---:|\n",
      features.size());
  for (int64_t size : sizes) {
    const gs::predict::TrustAssessor assessor(grown(p_trust.value()->trust()->assessor().data(), size, rng));
    const auto t0 = Clock::now();
    double sink = 0;
    for (const auto& f : features) {
      gs::predict::TrustRow row;
      assessor.assessDomain(f, row);
      sink += row.nn_similarity;
    }
    std::printf("| %lld | %.3f |\n", static_cast<long long>(size), 1e3 * seconds(t0) / double(features.size()));
    if (sink < 0) std::printf("-");
  }
  return 0;
}
