#pragma once
// From an input record to a featurized molecule with a status: the one entry point readers, the
// CLI, the GUI and the benchmarks share.
#include <optional>
#include <string>

#include "bundle/config.h"
#include "chem/domain.h"
#include "chem/molecule.h"
#include "chem/ogb_features.h"
#include "data/record.h"
#include "graph/featurized.h"

namespace gs::chem {

struct FeaturizeOptions {
  ParseOptions parse;
  int multi_hop_max_dist = 5;  // edge paths are truncated to this many hops before allocation
  bool keep_molecule = false;  // keep the RDKit molecule (depiction); costs memory on big files
  bool canonical_smiles = true;
  // Canonical (default): a molecule gets the same graph however its SMILES orders the atoms;
  // AsWritten reproduces OGB / the Python reference exactly.
  AtomOrder atom_order = AtomOrder::Canonical;
  // Predict the parent of a salt or mixture (largest organic fragment; chem/domain.h). The row's
  // note names what was removed; its canonical SMILES is the parent's.
  bool strip_salts = false;
  bool domain = false;  // compute DomainFeatures (trust)

  // The featurization a model reads: edge paths cut at its multi_hop_max_dist. The one place that
  // rule lives (predictors, train and evaluate use it).
  static FeaturizeOptions forModel(const bundle::GraphormerConfig& config, const ParseOptions& parse = {},
                                   AtomOrder order = AtomOrder::Canonical) {
    FeaturizeOptions f;
    f.parse = parse;
    f.atom_order = order;
    f.multi_hop_max_dist = config.multi_hop_max_dist;
    return f;
  }
};

struct MoleculeRow : data::RowIdentity {
  int num_atoms = 0;
  std::optional<graph::Featurized> features;  // set iff status is ok
  std::vector<int> atom_of_node;              // graph node k is atom atom_of_node[k] of the parsed molecule
  MolPtr mol;                                 // only with keep_molecule
  std::optional<DomainFeatures> domain;       // only with FeaturizeOptions::domain, when parsed
};

// atom_of_node (optional) receives, for each graph node, the index of its atom in `mol`.
graph::Featurized featurizeMolecule(const RDKit::ROMol& mol, int multi_hop_max_dist,
                                    AtomOrder order = AtomOrder::AsWritten, std::vector<int>* atom_of_node = nullptr);

// Never throws; a record that is malformed or fails to parse yields a row with that status.
MoleculeRow featurizeRecord(const data::RawRecord& record, const FeaturizeOptions& options = {});

// The featurized molecules of `rows`, in row order, for the engine; index_of_row[r] is row r's
// position among them, or -1 for a row without features.
std::vector<const graph::Featurized*> featurizedMolecules(const std::vector<MoleculeRow>& rows,
                                                          std::vector<int>* index_of_row);

}  // namespace gs::chem
