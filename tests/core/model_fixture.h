#pragma once
// The fixture's molecules as featurized graphs (from features.jsonl, no RDKit), its expected
// outputs, and a helper that runs a session over them.
#include <map>
#include <sstream>

#include "core/fixture.h"
#include "engine/inference_session.h"
#include "graph/featurized.h"
#include "model/checkpoint.h"
#include "tensor/collate.h"

namespace gs::test {

// A small architecture for tests that need a model but not the fixture's weights.
inline bundle::GraphormerConfig tinyConfig(int layers, int dim, int ffn, int heads, int classes = 1) {
  bundle::GraphormerConfig c;
  c.num_hidden_layers = layers;
  c.embedding_dim = dim;
  c.ffn_embedding_dim = ffn;
  c.num_attention_heads = heads;
  c.num_classes = classes;
  return c;
}

inline std::vector<graph::Featurized> fixtureGraphs(int hops) {
  std::vector<graph::Featurized> out;
  for (const auto& row : loadFeatureFixture()) {
    graph::MolGraph g;
    const auto& nf = row["node_feat"];
    g.num_nodes = static_cast<int>(nf.size());
    for (const auto& atom : nf)
      for (const auto& v : atom) g.node_feat.push_back(v.get<int16_t>());
    for (const auto& v : row["edge_index"][0]) g.edge_src.push_back(v.get<int32_t>());
    for (const auto& v : row["edge_index"][1]) g.edge_dst.push_back(v.get<int32_t>());
    for (const auto& bond : row["edge_attr"])
      for (const auto& v : bond) g.edge_attr.push_back(v.get<int16_t>());
    graph::Featurized f{g, graph::encodeGraph(g, hops)};
    out.push_back(std::move(f));
  }
  return out;
}

// expected.csv as column name -> 64 values.
inline std::map<std::string, std::vector<double>> loadExpected(const std::string& variant) {
  std::ifstream in(fixtureDir() + "/" + variant + "/expected.csv");
  std::string line;
  auto chomp = [](std::string& l) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
  };
  std::getline(in, line);
  chomp(line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string f; std::getline(hs, f, ',');) header.push_back(f);
  std::map<std::string, std::vector<double>> cols;
  while (std::getline(in, line)) {
    chomp(line);
    std::stringstream ls(line);
    size_t i = 0;
    for (std::string f; std::getline(ls, f, ','); ++i)
      if (i >= 3 && i < header.size()) cols[header[i]].push_back(std::stod(f));
  }
  return cols;
}

inline std::vector<const graph::Featurized*> pointers(const std::vector<graph::Featurized>& mols) {
  std::vector<const graph::Featurized*> out;
  for (const auto& m : mols) out.push_back(&m);
  return out;
}

}  // namespace gs::test
