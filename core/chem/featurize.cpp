#include "chem/featurize.h"

#include <GraphMol/ROMol.h>

#include "chem/ogb_features.h"

namespace gs::chem {

graph::Featurized featurizeMolecule(const RDKit::ROMol& mol, int multi_hop_max_dist) {
  graph::Featurized f;
  f.graph = ogbGraph(mol);
  f.enc = graph::encodeGraph(f.graph, multi_hop_max_dist);
  return f;
}

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
    if (options.canonical_smiles || record.kind == data::RecordKind::MolBlock)
      row.canonical = canonicalSmiles(parsed.mol.get());
    if (record.kind == data::RecordKind::MolBlock) row.input = row.canonical;
    row.features = featurizeMolecule(*parsed.mol, options.multi_hop_max_dist);
  } catch (const std::exception& e) {
    row.status = {StatusCode::Internal, std::string("featurization failed: ") + e.what()};
    row.features.reset();
    return row;
  }
  if (options.keep_molecule) row.mol = std::move(parsed.mol);
  return row;
}

}  // namespace gs::chem
