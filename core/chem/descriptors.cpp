#include "chem/descriptors.h"

#include <DataStructs/ExplicitBitVect.h>
#include <GraphMol/ChemTransforms/ChemTransforms.h>
#include <GraphMol/Descriptors/MolSurf.h>
#include <GraphMol/Fingerprints/MorganFingerprints.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <memory>

namespace gs::chem {

std::string murckoScaffold(const RDKit::ROMol& mol) {
  try {
    std::unique_ptr<RDKit::ROMol> scaffold(RDKit::MurckoDecompose(mol));
    if (!scaffold || scaffold->getNumAtoms() == 0) return "";
    return RDKit::MolToSmiles(*scaffold);
  } catch (...) {
    // A scaffold RDKit cannot write: fall back to the molecule itself (its own group).
    return "!" + canonicalSmiles(&mol);
  }
}

similarity::BitFingerprint morganFingerprint(const RDKit::ROMol& mol, int radius, int bits) {
  similarity::BitFingerprint fp;
  if (bits <= 0 || radius < 0) return fp;
  fp.words.assign((static_cast<size_t>(bits) + 63) / 64, 0);
  try {
    std::unique_ptr<ExplicitBitVect> v(RDKit::MorganFingerprints::getFingerprintAsBitVect(
        mol, static_cast<unsigned>(radius), static_cast<unsigned>(bits)));
    std::vector<int> on;
    v->getOnBits(on);
    for (int i : on) fp.words[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64);
    fp.on_bits = static_cast<int>(on.size());
  } catch (...) {
    fp.words.clear();
    fp.on_bits = 0;
  }
  return fp;
}

std::vector<std::string> atomSymbols(const RDKit::ROMol& mol) {
  std::vector<std::string> out;
  for (const RDKit::Atom* a : mol.atoms()) out.push_back(a->getSymbol());
  return out;
}

std::vector<double> tpsaContributions(const RDKit::ROMol& mol) {
  std::vector<double> contribs(mol.getNumAtoms(), 0.0);
  try {
    RDKit::Descriptors::getTPSAAtomContribs(mol, contribs);
  } catch (...) {
    contribs.assign(mol.getNumAtoms(), 0.0);
  }
  return contribs;
}

}  // namespace gs::chem
