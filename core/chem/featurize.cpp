#include "chem/featurize.h"

#include <GraphMol/MolOps.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/new_canon.h>

#include <memory>
#include <numeric>

#include "chem/ogb_features.h"

namespace gs::chem {

graph::Featurized featurizeMolecule(const RDKit::ROMol& mol, int multi_hop_max_dist, AtomOrder order,
                                    std::vector<int>* atom_of_node) {
  graph::Featurized f;
  const unsigned n = mol.getNumAtoms();
  if (order == AtomOrder::AsWritten) {
    f.graph = ogbGraph(mol);
    if (atom_of_node) {
      atom_of_node->resize(n);
      std::iota(atom_of_node->begin(), atom_of_node->end(), 0);
    }
  } else {
    // Canonical ranks with ties broken: numberings that differ only by a symmetry of the molecule
    // give identical graphs, so every SMILES of the molecule featurizes the same way.
    std::vector<unsigned int> ranks;
    RDKit::Canon::rankMolAtoms(mol, ranks, /*breakTies=*/true, /*includeChirality=*/true, /*includeIsotopes=*/true);
    std::vector<unsigned int> new_order(n);
    for (unsigned i = 0; i < n; ++i) new_order[ranks[i]] = i;
    std::unique_ptr<RDKit::ROMol> canonical(RDKit::MolOps::renumberAtoms(mol, new_order));
    f.graph = ogbGraph(*canonical, AtomOrder::Canonical);
    if (atom_of_node) atom_of_node->assign(new_order.begin(), new_order.end());
  }
  f.enc = graph::encodeGraph(f.graph, multi_hop_max_dist);
  return f;
}

namespace {

// Replaces a multi-fragment molecule by its parent and says so in the row's note.
void stripSalts(ParsedMolecule& parsed, MoleculeRow& row) {
  std::vector<std::string> removed;
  MolPtr parent = largestFragment(*parsed.mol, &removed);
  if (!parent || removed.empty()) return;
  std::string note = "salt stripped: removed ";
  for (size_t i = 0; i < removed.size(); ++i) note += (i ? "." : "") + removed[i];
  row.note = note;
  parsed.mol = std::move(parent);
  parsed.num_atoms = static_cast<int>(parsed.mol->getNumAtoms());
  row.num_atoms = parsed.num_atoms;
}

}  // namespace

MoleculeRow featurizeRecord(const data::RawRecord& record, const FeaturizeOptions& options) {
  MoleculeRow row;
  row.row = record.row;
  row.id = record.id;
  if (record.kind == data::RecordKind::Smiles) row.input = record.text;
  if (!record.status.isOk()) {
    row.status = record.status;
    return row;
  }
  ParsedMolecule parsed = record.kind == data::RecordKind::Smiles ? parseSmiles(record.text, options.parse)
                                                                  : parseMolBlock(record.text, options.parse);
  row.status = parsed.status;
  row.num_atoms = parsed.num_atoms;
  if (!parsed.status.isOk()) return row;
  try {
    if (options.strip_salts) stripSalts(parsed, row);
    if (options.canonical_smiles || record.kind == data::RecordKind::MolBlock)
      row.canonical = canonicalSmiles(parsed.mol.get());
    if (record.kind == data::RecordKind::MolBlock) row.input = row.canonical;
    row.features = featurizeMolecule(*parsed.mol, options.multi_hop_max_dist, options.atom_order, &row.atom_of_node);
  } catch (const std::exception& e) {
    row.status = {StatusCode::Internal, std::string("featurization failed: ") + e.what()};
    row.features.reset();
    return row;
  }
  if (options.domain) row.domain = domainFeatures(*parsed.mol);
  if (options.keep_molecule) row.mol = std::move(parsed.mol);
  return row;
}

std::vector<const graph::Featurized*> featurizedMolecules(const std::vector<MoleculeRow>& rows,
                                                          std::vector<int>* index_of_row) {
  std::vector<const graph::Featurized*> out;
  index_of_row->assign(rows.size(), -1);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].features) continue;
    (*index_of_row)[r] = static_cast<int>(out.size());
    out.push_back(&*rows[r].features);
  }
  return out;
}

}  // namespace gs::chem
