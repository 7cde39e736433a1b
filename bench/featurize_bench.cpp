// bench/featurize: molecules/s for parse + featurize + collate on RDKit's NCI sample, with one
// thread and with every core, next to RDKit's SMILES parsing alone. Prints a table; never fails
// on time. Usage: bench_featurize [FILE.smi] [--repeats N]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesParse.h>

#include "chem/featurize.h"
#include "data/batch_planner.h"
#include "data/smi_reader.h"
#include "tensor/collate.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<gs::data::RawRecord> loadRecords(const char* path) {
  std::ifstream in(path);
  gs::data::SmiReader reader(in);
  std::vector<gs::data::RawRecord> recs;
  gs::data::RawRecord r;
  while (reader.next(r)) recs.push_back(r);
  return recs;
}

// One worker's share: records [begin, end) parsed, featurized, planned and collated in batches.
void pipeline(const std::vector<gs::data::RawRecord>& recs, size_t begin, size_t end, bool canonical) {
  gs::chem::FeaturizeOptions fopt;
  fopt.canonical_smiles = canonical;
  std::vector<gs::chem::MoleculeRow> rows;
  rows.reserve(end - begin);
  std::vector<int> sizes;
  for (size_t i = begin; i < end; ++i) {
    rows.push_back(gs::chem::featurizeRecord(recs[i], fopt));
    if (rows.back().features) sizes.push_back(rows.back().features->numNodes());
  }
  std::vector<const gs::graph::Featurized*> ok;
  for (const auto& r : rows)
    if (r.features) ok.push_back(&*r.features);
  gs::data::PlanOptions plan;
  plan.max_batch_size = 32;
  for (const auto& batch : gs::data::planBatches(sizes, plan)) {
    std::vector<const gs::graph::Featurized*> mols;
    for (int i : batch) mols.push_back(ok[i]);
    gs::tensor::collate(mols, {});
  }
}

void rdkitDefault(const std::vector<gs::data::RawRecord>& recs, size_t begin, size_t end, bool) {
  for (size_t i = begin; i < end; ++i) {
    try {
      delete RDKit::SmilesToMol(recs[i].text);
    } catch (const std::exception&) {
      // a few NCI entries fail sanitization; they count as parsed work
    }
  }
}

void parseOnly(const std::vector<gs::data::RawRecord>& recs, size_t begin, size_t end, bool) {
  for (size_t i = begin; i < end; ++i) gs::chem::parseSmiles(recs[i].text);
}

using Stage = std::function<void(const std::vector<gs::data::RawRecord>&, size_t, size_t, bool)>;

double rate(const Stage& stage, const std::vector<gs::data::RawRecord>& recs, int threads, bool canonical,
            int repeats) {
  double best = 0;
  for (int rep = 0; rep < repeats; ++rep) {
    const auto t0 = Clock::now();
    std::vector<std::thread> pool;
    const size_t chunk = (recs.size() + threads - 1) / threads;
    for (int t = 0; t < threads; ++t) {
      const size_t b = std::min(recs.size(), t * chunk), e = std::min(recs.size(), b + chunk);
      pool.emplace_back([&, b, e] { stage(recs, b, e, canonical); });
    }
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, recs.size() / s);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = "/usr/share/RDKit/Data/NCI/first_5K.smi";
  int repeats = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc)
      repeats = std::atoi(argv[++i]);
    else
      path = argv[i];
  }
  at::set_num_threads(1);  // collation is per-thread work; keep LibTorch's pool out of it
  const auto recs = loadRecords(path);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  rate(pipeline, recs, 1, false, 1);  // warm-up: RDKit tables, allocator
  std::printf("bench_featurize: %zu molecules from %s, best of %d\n\n", recs.size(), path, repeats);
  std::printf("%-46s %8s %14s %12s\n", "stage", "threads", "molecules/s", "per core");
  struct Row {
    const char* name;
    Stage stage;
    bool canonical;
  };
  const Row rows[] = {{"RDKit SmilesToMol, default parameters", rdkitDefault, false},
                      {"chem::parseSmiles (same molecule, less work)", parseOnly, false},
                      {"parse + featurize + plan + collate", pipeline, false},
                      {"  ... + canonical SMILES (predict output)", pipeline, true}};
  for (const Row& r : rows) {
    for (int threads : {1, cores}) {
      const double mps = rate(r.stage, recs, threads, r.canonical, repeats);
      std::printf("%-46s %8d %14.0f %12.0f\n", r.name, threads, mps, mps / threads);
      if (cores == 1) break;
    }
  }
  return 0;
}
