// Seeded mutation fuzzer for parse + featurize + collate. Starts from the fixture molecules and
// RDKit's NCI sample, applies byte-level and SMILES-aware mutations, and checks invariants that
// must hold for any input: no exception, a status for every row, features only for ok rows, and
// collated tensors whose shapes and index ranges fit the model's embedding tables.
// Usage: fuzz_featurize [--iterations N] [--seconds S] [--seed K] [SEED_FILE...]
// Stops after N inputs or S seconds (0 = no time limit), whichever comes first.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "chem/featurize.h"
#include "tensor/collate.h"

namespace {

const char kAlphabet[] = "CNOScnos()[]=#@+-123456789%/\\.*HBrClFPIK:$ \t";

std::string mutate(const std::vector<std::string>& seeds, std::mt19937& rng) {
  std::string s = seeds[rng() % seeds.size()];
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 6) {
      case 0:
        if (!s.empty() && pos < s.size()) s.erase(pos, 1 + rng() % 3);
        break;
      case 1: s.insert(pos, 1, kAlphabet[rng() % (sizeof kAlphabet - 1)]); break;
      case 2:
        if (pos < s.size()) s[pos] = static_cast<char>(rng() % 256);
        break;
      case 3: s.insert(pos, "." + seeds[rng() % seeds.size()]); break;  // salts / mixtures
      case 4: {
        const std::string& o = seeds[rng() % seeds.size()];
        s = s.substr(0, pos) + o.substr(rng() % (o.size() + 1));
        break;
      }
      default:
        if (!s.empty()) s = s + s.substr(rng() % s.size());
        break;
    }
  }
  if (s.size() > 4000) s.resize(4000);
  return s;
}

bool checkBatch(const gs::tensor::GraphBatch& b) {
  const int64_t max_node_index = 4608, max_edge_index = 1536, max_spatial = 512, max_degree = 512;
  return b.input_nodes.max().item<int64_t>() <= max_node_index && b.input_nodes.min().item<int64_t>() >= 0 &&
         b.input_edges.max().item<int64_t>() <= max_edge_index &&
         b.attn_edge_type.max().item<int64_t>() <= max_edge_index &&
         b.spatial_pos.max().item<int64_t>() < max_spatial && b.in_degree.max().item<int64_t>() < max_degree;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = 2000;
  double seconds = 0;
  unsigned seed = 1;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--iterations") && i + 1 < argc)
      iterations = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = static_cast<unsigned>(std::atol(argv[++i]));
    else {
      std::ifstream in(argv[i]);
      std::string line;
      while (std::getline(in, line)) seeds.push_back(line.substr(0, line.find_first_of(" \t,")));
    }
  }
  if (seeds.empty()) seeds = {"CCO", "c1ccccc1O", "[Na+].[O-]C(=O)C", "C1CC1", "*c1ccccc1"};
  std::mt19937 rng(seed);
  gs::chem::FeaturizeOptions fopt;
  fopt.parse.max_atoms = 200;
  gs::graph::CollateOptions copt;
  std::vector<gs::chem::MoleculeRow> pending;
  long ok = 0, failed = 0, done = 0;
  const auto start = std::chrono::steady_clock::now();
  for (; done < iterations; ++done) {
    if (seconds > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) break;
    gs::data::RawRecord rec;
    rec.row = done + 1;
    rec.text = mutate(seeds, rng);
    gs::chem::MoleculeRow row = gs::chem::featurizeRecord(rec, fopt);
    if (row.features.has_value() != row.status.isOk()) {
      std::cerr << "invariant broken (features vs status) for: " << rec.text << "\n";
      return 1;
    }
    if (!row.status.isOk()) {
      ++failed;
      continue;
    }
    ++ok;
    pending.push_back(std::move(row));
    if (pending.size() == 8) {
      std::vector<const gs::graph::Featurized*> mols;
      for (const auto& r : pending) mols.push_back(&*r.features);
      if (!checkBatch(gs::tensor::collate(mols, copt))) {
        std::cerr << "collated indices out of range; batch starts with " << pending.front().input << "\n";
        return 1;
      }
      pending.clear();
    }
  }
  std::cout << "fuzz_featurize: " << done << " inputs, " << ok << " ok, " << failed << " rejected, no findings\n";
  return 0;
}
