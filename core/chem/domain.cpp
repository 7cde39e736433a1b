#include "chem/domain.h"

#include <DataStructs/SparseIntVect.h>
#include <GraphMol/Fingerprints/MorganFingerprints.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/MolStandardize/Fragment.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <algorithm>
#include <memory>
#include <set>

#include "chem/descriptors.h"

namespace gs::chem {

namespace {

// Per-atom environment identifiers of radius 1 and 2 from RDKit's bit info (every environment,
// redundant ones included, so each atom has one per radius).
void atomEnvironments(const RDKit::ROMol& mol, DomainFeatures& out) {
  const auto n = mol.getNumAtoms();
  out.env_r1.assign(n, 0);
  out.env_r2.assign(n, 0);
  RDKit::MorganFingerprints::BitInfoMap info;
  std::unique_ptr<RDKit::SparseIntVect<std::uint32_t>> fp(RDKit::MorganFingerprints::getFingerprint(
      mol, kDomainRadius, nullptr, nullptr, false, true, true, false, &info, true));
  for (const auto& [id, where] : info)
    for (const auto& [atom, radius] : where) {
      if (atom >= n) continue;
      if (radius == 1) out.env_r1[atom] = id;
      if (radius == 2) out.env_r2[atom] = id;
    }
}

}  // namespace

DomainFeatures domainFeatures(const RDKit::ROMol& parsed) {
  DomainFeatures out;
  try {
    // Renumber the atoms in the order the canonical SMILES writes them (the order is left on the
    // molecule by the MolToSmiles call that made the row's canonical SMILES, if there was one).
    std::vector<unsigned int> order;
    if (!parsed.hasProp(RDKit::common_properties::_smilesAtomOutputOrder)) (void)RDKit::MolToSmiles(parsed);
    std::unique_ptr<RDKit::ROMol> renumbered;
    if (parsed.getPropIfPresent(RDKit::common_properties::_smilesAtomOutputOrder, order) &&
        order.size() == parsed.getNumAtoms())
      renumbered.reset(RDKit::MolOps::renumberAtoms(parsed, order));
    const RDKit::ROMol& mol = renumbered ? *renumbered : parsed;
    std::set<int> elements;
    for (const RDKit::Atom* a : mol.atoms()) out.atomic_numbers.push_back(a->getAtomicNum());
    elements.insert(out.atomic_numbers.begin(), out.atomic_numbers.end());
    out.elements.assign(elements.begin(), elements.end());
    std::vector<int> component;
    out.fragments = static_cast<int>(RDKit::MolOps::getMolFrags(mol, component));
    out.heavy_atoms = static_cast<int>(mol.getNumHeavyAtoms());
    atomEnvironments(mol, out);
    out.fingerprint = morganFingerprint(mol, kDomainRadius, kDomainBits);
  } catch (...) {
    out = DomainFeatures{};
  }
  return out;
}

MolPtr largestFragment(const RDKit::ROMol& mol, std::vector<std::string>* removed) {
  try {
    RDKit::MolStandardize::LargestFragmentChooser chooser(true);
    MolPtr parent(chooser.choose(mol));
    if (!parent || !removed) return parent;
    removed->clear();
    const std::string kept = RDKit::MolToSmiles(*parent);
    bool skipped_parent = false;
    for (const auto& f : RDKit::MolOps::getMolFrags(mol, false)) {
      std::string s = RDKit::MolToSmiles(*f);
      if (!skipped_parent && s == kept)
        skipped_parent = true;
      else
        removed->push_back(std::move(s));
    }
    return parent;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace gs::chem
