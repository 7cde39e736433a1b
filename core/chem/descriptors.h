#pragma once
// Molecule-level descriptors used for dataset splits and the baselines that a trained model is
// compared with: the Bemis–Murcko scaffold and the Morgan (ECFP-like) bit fingerprint.
#include <string>
#include <vector>

#include "chem/molecule.h"
#include "similarity/fingerprint.h"

namespace gs::chem {

// Canonical SMILES of the Bemis–Murcko scaffold (ring systems and the linkers between them,
// side chains removed; RDKit's MurckoDecompose). "" for an acyclic molecule. Never throws.
std::string murckoScaffold(const RDKit::ROMol& mol);

// Morgan fingerprint of the given radius folded to `bits` bits (RDKit's
// GetMorganFingerprintAsBitVect with default invariants). Never throws; empty on failure.
similarity::BitFingerprint morganFingerprint(const RDKit::ROMol& mol, int radius = 2, int bits = 2048);

// Element symbol of every atom, in the molecule's atom order.
std::vector<std::string> atomSymbols(const RDKit::ROMol& mol);

// RDKit's per-atom TPSA contributions (Ertl et al.; N and O only, as Descriptors.TPSA), in Å².
std::vector<double> tpsaContributions(const RDKit::ROMol& mol);

}  // namespace gs::chem
