#pragma once
// From an input record to a featurized molecule with a status: the one entry point readers, the
// CLI, the GUI and the benchmarks share.
#include <optional>
#include <string>

#include "chem/molecule.h"
#include "data/record.h"
#include "graph/featurized.h"

namespace gs::chem {

struct FeaturizeOptions {
  ParseOptions parse;
  int multi_hop_max_dist = 5;  // edge paths are truncated to this many hops before allocation
  bool keep_molecule = false;  // keep the RDKit molecule (depiction); costs memory on big files
  bool canonical_smiles = true;
};

struct MoleculeRow {
  int64_t row = 0;
  std::string id;
  std::string input;             // SMILES as given (SDF: the canonical SMILES)
  std::string canonical;         // "" when the molecule could not be read
  Status status;
  int num_atoms = 0;
  std::optional<graph::Featurized> features;  // set iff status is ok
  MolPtr mol;                    // only with keep_molecule
};

graph::Featurized featurizeMolecule(const RDKit::ROMol& mol, int multi_hop_max_dist);

// Never throws; a record that is malformed or fails to parse yields a row with that status.
MoleculeRow featurizeRecord(const data::RawRecord& record, const FeaturizeOptions& options = {});

}  // namespace gs::chem
