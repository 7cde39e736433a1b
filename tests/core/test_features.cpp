// OGB features and Graphormer encodings against the reference fixture, plus structural edge cases.
#include <gtest/gtest.h>

#include <string>

#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesParse.h>

#include <fstream>
#include <memory>

#include "chem/featurize.h"
#include "chem/ogb_features.h"
#include "core/fixture.h"
#include "graph/graph_encoding.h"

namespace gs {
namespace {

using nlohmann::json;

graph::Featurized featurize(const std::string& smiles, int hops = 5) {
  chem::ParsedMolecule p = chem::parseSmiles(smiles);
  EXPECT_TRUE(p.status.isOk()) << smiles << ": " << p.status.toString();
  return chem::featurizeMolecule(*p.mol, hops);
}

json matrix(const int16_t* d, int rows, int cols, int add = 0, int stride = 0) {
  json out = json::array();
  for (int r = 0; r < rows; ++r) {
    json row = json::array();
    for (int c = 0; c < cols; ++c) row.push_back(d[r * cols + c] + add + stride * c);
    out.push_back(row);
  }
  return out;
}

json edgeInputsJson(const std::vector<int16_t>& ei, int n, int hops) {
  json out = json::array();
  for (int i = 0; i < n; ++i) {
    json row = json::array();
    for (int j = 0; j < n; ++j) row.push_back(matrix(ei.data() + (static_cast<size_t>(i) * n + j) * hops * 3, hops, 3));
    out.push_back(row);
  }
  return out;
}

class FixtureFeatures : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { rows_ = new std::vector<json>(test::loadFeatureFixture()); }
  static void TearDownTestSuite() { delete rows_; }
  static std::vector<json>* rows_;
};
std::vector<json>* FixtureFeatures::rows_ = nullptr;

TEST_F(FixtureFeatures, AllSixtyFourMoleculesMatchTheReferenceExactly) {
  ASSERT_EQ(rows_->size(), 64u);
  for (const json& ref : *rows_) {
    SCOPED_TRACE(ref["smiles"].get<std::string>());
    const graph::Featurized f = featurize(ref["smiles"].get<std::string>());
    const int n = f.numNodes();
    ASSERT_EQ(n, ref["num_nodes"].get<int>());
    EXPECT_EQ(matrix(f.graph.node_feat.data(), n, 9), ref["node_feat"]);
    EXPECT_EQ(json({f.graph.edge_src, f.graph.edge_dst}), ref["edge_index"]);
    EXPECT_EQ(matrix(f.graph.edge_attr.data(), f.graph.numEdges(), 3), ref["edge_attr"]);
    EXPECT_EQ(matrix(f.graph.node_feat.data(), n, 9, 3, 512), ref["hf_input_nodes"]);
    json deg = json::array();
    for (int16_t d : f.enc.degree) deg.push_back(d + 1);
    EXPECT_EQ(deg, ref["hf_in_degree"]);
    EXPECT_EQ(matrix(f.enc.dist.data(), n, n, 1), ref["hf_spatial_pos"]);
    json et = json::array();
    for (int i = 0; i < n; ++i) et.push_back(matrix(f.enc.edge_type.data() + static_cast<size_t>(i) * n * 3, n, 3));
    EXPECT_EQ(et, ref["hf_attn_edge_type"]);
    // The reference keeps every hop; ours is truncated at 5 before allocation. Compare the full
    // paths (recomputed untruncated) and check the truncated tensor is their prefix.
    const auto full = graph::edgeInputs(graph::floydWarshall(f.graph), f.enc.edge_type, f.enc.max_dist);
    EXPECT_EQ(edgeInputsJson(full, n, f.enc.max_dist), ref["hf_input_edges"]);
    ASSERT_EQ(f.enc.hops, std::min(f.enc.max_dist, 5));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int h = 0; h < f.enc.hops * 3; ++h)
          ASSERT_EQ(f.enc.edge_input[(static_cast<size_t>(i) * n + j) * f.enc.hops * 3 + h],
                    full[(static_cast<size_t>(i) * n + j) * f.enc.max_dist * 3 + h]);
  }
}

// parseSmiles skips RDKit work that cannot change the molecule; prove it on the whole NCI set
// (plus H-bearing and stereo SMILES) against SmilesToMol with its default parameters.
TEST(FastParse, SameFeaturesAsRdkitDefaultsOnNci) {
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_5K.smi");
  ASSERT_TRUE(in) << "rdkit-data is not installed";
  std::vector<std::string> smiles = {"[H]C([H])([H])O", "[2H]C", "F/C=C\\Cl", "C[C@H](N)O", "[H][C@@](F)(Cl)Br"};
  std::string line;
  while (std::getline(in, line)) smiles.push_back(line.substr(0, line.find_first_of(" \t")));
  int compared = 0;
  for (const std::string& s : smiles) {
    std::unique_ptr<RDKit::ROMol> ref;
    try {
      ref.reset(RDKit::SmilesToMol(s));
    } catch (...) {
    }
    chem::ParsedMolecule ours = chem::parseSmiles(s);
    ASSERT_EQ(ref != nullptr, ours.status.isOk()) << s << ": " << ours.status.toString();
    if (!ref) continue;
    const graph::MolGraph a = chem::ogbGraph(*ref), b = chem::ogbGraph(*ours.mol);
    ASSERT_EQ(a.node_feat, b.node_feat) << s;
    ASSERT_EQ(a.edge_attr, b.edge_attr) << s;
    ASSERT_EQ(a.edge_src, b.edge_src) << s;
    ASSERT_EQ(chem::canonicalSmiles(ref.get()), chem::canonicalSmiles(ours.mol.get())) << s;
    ++compared;
  }
  EXPECT_GT(compared, 4900);
}

TEST(EdgeCases, SingleAtomHasNoEdgesAndNoHops) {
  const graph::Featurized f = featurize("[Na+]");
  EXPECT_EQ(f.numNodes(), 1);
  EXPECT_EQ(f.graph.numEdges(), 0);
  EXPECT_EQ(f.enc.max_dist, 0);
  EXPECT_EQ(f.enc.hops, 0);
  EXPECT_TRUE(f.enc.edge_input.empty());
}

TEST(EdgeCases, DisconnectedSaltAllocatesOnlyTruncatedHops) {
  const graph::Featurized f = featurize("[Na+].[O-]C(=O)c1ccccc1", 5);
  const int n = f.numNodes();
  EXPECT_EQ(f.enc.max_dist, graph::kUnreachable);
  EXPECT_EQ(f.enc.hops, 5);
  EXPECT_EQ(f.enc.edge_input.size(), static_cast<size_t>(n) * n * 5 * 3);
  EXPECT_EQ(f.enc.distance(0, 1), graph::kUnreachable);
  for (int h = 0; h < 5 * 3; ++h) EXPECT_EQ(f.enc.edge_input[(0 * n + 1) * 15 + h], 0);  // no path, no edges
}

TEST(EdgeCases, SixtyCarbonChainDistancesAndTruncation) {
  const graph::Featurized f = featurize(std::string(60, 'C'), 5);
  const int n = f.numNodes();
  ASSERT_EQ(n, 60);
  EXPECT_EQ(f.enc.max_dist, 59);
  EXPECT_EQ(f.enc.distance(0, 59), 59);
  EXPECT_EQ(f.enc.distance(10, 20), 10);
  EXPECT_EQ(f.enc.hops, 5);
  // 0 -> 59 walks 59 single bonds; the first 5 are stored, each single non-conjugated: 0+3, 0+515, 0+1027
  const int16_t* p = &f.enc.edge_input[(0 * n + 59) * 5 * 3];
  for (int h = 0; h < 5; ++h) {
    EXPECT_EQ(p[h * 3 + 0], 3);
    EXPECT_EQ(p[h * 3 + 1], 515);
    EXPECT_EQ(p[h * 3 + 2], 1027);
  }
}

TEST(EdgeCases, LargeMoleculeOverTwoHundredAtoms) {
  // A 25-residue poly-alanine-like chain with rings: > 200 heavy atoms.
  std::string smiles;
  for (int i = 0; i < 25; ++i) smiles += "NC(Cc1ccccc1)C(=O)";
  smiles += "O";
  const graph::Featurized f = featurize(smiles, 5);
  EXPECT_GT(f.numNodes(), 200);
  EXPECT_EQ(f.enc.hops, 5);
  for (int i = 0; i < f.numNodes(); ++i) EXPECT_EQ(f.enc.distance(i, i), 0);
  EXPECT_LT(f.enc.max_dist, graph::kUnreachable);  // connected
}

TEST(EdgeCases, DummyAtomIsTheMiscAtomicNumber) {
  const graph::Featurized f = featurize("*C");
  EXPECT_EQ(f.graph.node_feat[0], 118);  // OGB 'misc' slot for atomic number 0
  EXPECT_EQ(f.graph.node_feat[9], 5);    // carbon
}

TEST(EdgeCases, FloydWarshallSymmetricOnRings) {
  const graph::Featurized f = featurize("c1ccc2ccccc2c1");
  const int n = f.numNodes();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) EXPECT_EQ(f.enc.distance(i, j), f.enc.distance(j, i));
  EXPECT_EQ(f.enc.max_dist, 5);
}

}  // namespace
}  // namespace gs
