#pragma once
// What the applicability domain needs to know about one molecule, computed from the parsed RDKit
// molecule while it is alive (featurizeRecord, training-set reading): its elements, fragments,
// size, the Morgan environment of every atom at radius 1 and 2, and its Morgan fingerprint.
// Atoms are numbered as in the molecule's canonical SMILES (the row's canonical_smiles), so that
// reasons and highlights refer to atoms a depiction of that SMILES shows.
// Also the salt-stripping standardisation (the parent of a salt or mixture).
#include <cstdint>
#include <string>
#include <vector>

#include "chem/molecule.h"
#include "similarity/fingerprint.h"

namespace gs::chem {

// Morgan fingerprint settings of the domain (and of the k-NN baseline): radius 2, 2,048 bits.
inline constexpr int kDomainRadius = 2;
inline constexpr int kDomainBits = 2048;

struct DomainFeatures {
  std::vector<int> elements;        // distinct atomic numbers, ascending
  std::vector<int> atomic_numbers;  // per atom
  int fragments = 0;                // connected components
  int heavy_atoms = 0;
  // Per atom (index = atom in the parsed molecule): the Morgan environment identifier (RDKit's
  // unfolded 32-bit invariant, chirality off, bond types on) of radius 1 and of radius 2; 0 where
  // the atom has no environment of that radius (RDKit drops duplicate environments).
  std::vector<uint32_t> env_r1, env_r2;
  similarity::BitFingerprint fingerprint;  // Morgan radius 2, 2,048 bits
};

// Never throws; an empty result (heavy_atoms 0) when RDKit fails.
DomainFeatures domainFeatures(const RDKit::ROMol& mol);

// The parent of a salt or mixture: the largest organic fragment (RDKit MolStandardize's
// LargestFragmentChooser, preferring organic fragments, counting atoms). `removed` receives the
// canonical SMILES of the fragments dropped (empty for a single fragment, `mol` then returned as
// a copy). Null when RDKit fails.
MolPtr largestFragment(const RDKit::ROMol& mol, std::vector<std::string>* removed);

}  // namespace gs::chem
