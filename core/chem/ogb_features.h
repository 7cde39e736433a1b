#pragma once
// OGB's smiles2graph features (ogb.utils.features): 9 atom and 3 bond columns, every bond in both
// directions, atoms and bonds in RDKit order.
#include "graph/mol_graph.h"

namespace RDKit {
class ROMol;
}

namespace gs::chem {

graph::MolGraph ogbGraph(const RDKit::ROMol& mol);

}  // namespace gs::chem
