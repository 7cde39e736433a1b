#pragma once
// OGB's smiles2graph features (ogb.utils.features): 9 atom and 3 bond columns, every bond in both
// directions, atoms and bonds in RDKit order.
#include <string>

#include "common/status.h"
#include "graph/mol_graph.h"

namespace RDKit {
class ROMol;
}

namespace gs::chem {

// Two things in the reference featurization depend on the order the SMILES writes the atoms in:
// RDKit's tetrahedral tags (CW/CCW are relative to the order of an atom's bonds) and, downstream,
// which of several equally short paths the multi-hop edge encoding follows.
enum class AtomOrder {
  AsWritten,  // OGB / the Python reference: atoms and tags as parsed (reproduces it exactly)
  Canonical,  // atoms renumbered by canonical rank, tags relative to that order: any SMILES of a
              // molecule gives the same graph
};
const char* atomOrderName(AtomOrder order);  // "as-written", "canonical"
Result<AtomOrder> parseAtomOrder(const std::string& name);

// With Canonical, tags are re-expressed relative to neighbours in atom-index order (call it on a
// molecule already renumbered canonically).
graph::MolGraph ogbGraph(const RDKit::ROMol& mol, AtomOrder order = AtomOrder::AsWritten);

}  // namespace gs::chem
