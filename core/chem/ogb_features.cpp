#include "chem/ogb_features.h"

#include <GraphMol/GraphMol.h>

#include <vector>

#include "common/named_enum.h"

namespace gs::chem {
namespace {

// Index of value in [lo, hi], or the trailing 'misc' slot (hi - lo + 1) when out of range, as
// OGB's safe_index does for its integer lists.
int16_t rangeIndex(int value, int lo, int hi) {
  return static_cast<int16_t>(value >= lo && value <= hi ? value - lo : hi - lo + 1);
}

int16_t chiralityIndex(RDKit::Atom::ChiralType tag) {
  switch (tag) {
    case RDKit::Atom::CHI_UNSPECIFIED: return 0;
    case RDKit::Atom::CHI_TETRAHEDRAL_CW: return 1;
    case RDKit::Atom::CHI_TETRAHEDRAL_CCW: return 2;
    case RDKit::Atom::CHI_OTHER: return 3;
    default: return 4;  // misc
  }
}

int16_t hybridizationIndex(RDKit::Atom::HybridizationType h) {
  switch (h) {
    case RDKit::Atom::SP: return 0;
    case RDKit::Atom::SP2: return 1;
    case RDKit::Atom::SP3: return 2;
    case RDKit::Atom::SP3D: return 3;
    case RDKit::Atom::SP3D2: return 4;
    default: return 5;  // misc
  }
}

int16_t bondTypeIndex(RDKit::Bond::BondType t) {
  switch (t) {
    case RDKit::Bond::SINGLE: return 0;
    case RDKit::Bond::DOUBLE: return 1;
    case RDKit::Bond::TRIPLE: return 2;
    case RDKit::Bond::AROMATIC: return 3;
    default: return 4;  // misc
  }
}

// OGB's list order: STEREONONE, STEREOZ, STEREOE, STEREOCIS, STEREOTRANS, STEREOANY.
int16_t bondStereoIndex(RDKit::Bond::BondStereo s) {
  switch (s) {
    case RDKit::Bond::STEREONONE: return 0;
    case RDKit::Bond::STEREOZ: return 1;
    case RDKit::Bond::STEREOE: return 2;
    case RDKit::Bond::STEREOCIS: return 3;
    case RDKit::Bond::STEREOTRANS: return 4;
    default: return 5;  // STEREOANY
  }
}

bool hasTetrahedralTags(const RDKit::ROMol& mol) {
  for (const RDKit::Atom* a : mol.atoms())
    if (a->getChiralTag() == RDKit::Atom::CHI_TETRAHEDRAL_CW || a->getChiralTag() == RDKit::Atom::CHI_TETRAHEDRAL_CCW)
      return true;
  return false;
}

// The tag each atom would carry if its bonds were listed in index order of the neighbours: an odd permutation between the two orders swaps CW and CCW. An implicit H keeps the
// same place under both orders, so only the explicit neighbours are permuted.
std::vector<RDKit::Atom::ChiralType> canonicalTags(const RDKit::ROMol& mol) {
  std::vector<RDKit::Atom::ChiralType> tags;
  for (const RDKit::Atom* a : mol.atoms()) tags.push_back(a->getChiralTag());
  if (!hasTetrahedralTags(mol)) return tags;
  std::vector<unsigned int> order;
  for (const RDKit::Atom* a : mol.atoms()) {
    auto& tag = tags[a->getIdx()];
    if (tag != RDKit::Atom::CHI_TETRAHEDRAL_CW && tag != RDKit::Atom::CHI_TETRAHEDRAL_CCW) continue;
    order.clear();
    for (const RDKit::Bond* b : mol.atomBonds(a)) order.push_back(b->getOtherAtomIdx(a->getIdx()));
    int inversions = 0;
    for (size_t i = 0; i < order.size(); ++i)
      for (size_t j = i + 1; j < order.size(); ++j) inversions += order[i] > order[j];
    if (inversions % 2)
      tag = tag == RDKit::Atom::CHI_TETRAHEDRAL_CW ? RDKit::Atom::CHI_TETRAHEDRAL_CCW : RDKit::Atom::CHI_TETRAHEDRAL_CW;
  }
  return tags;
}

}  // namespace

graph::MolGraph ogbGraph(const RDKit::ROMol& mol, AtomOrder order) {
  graph::MolGraph g;
  g.num_nodes = static_cast<int>(mol.getNumAtoms());
  g.node_feat.reserve(static_cast<size_t>(g.num_nodes) * graph::kAtomFeatures);
  const RDKit::RingInfo* rings = mol.getRingInfo();
  std::vector<RDKit::Atom::ChiralType> canonical;
  if (order == AtomOrder::Canonical) canonical = canonicalTags(mol);
  for (const RDKit::Atom* a : mol.atoms()) {
    const int16_t f[graph::kAtomFeatures] = {
        rangeIndex(a->getAtomicNum(), 1, 118),
        chiralityIndex(canonical.empty() ? a->getChiralTag() : canonical[a->getIdx()]),
        rangeIndex(static_cast<int>(a->getTotalDegree()), 0, 10),
        rangeIndex(a->getFormalCharge(), -5, 5),
        rangeIndex(static_cast<int>(a->getTotalNumHs()), 0, 8),
        rangeIndex(static_cast<int>(a->getNumRadicalElectrons()), 0, 4),
        hybridizationIndex(a->getHybridization()),
        static_cast<int16_t>(a->getIsAromatic() ? 1 : 0),
        static_cast<int16_t>(rings->numAtomRings(a->getIdx()) > 0 ? 1 : 0),
    };
    g.node_feat.insert(g.node_feat.end(), f, f + graph::kAtomFeatures);
  }
  const size_t num_bonds = mol.getNumBonds();
  g.edge_src.reserve(2 * num_bonds);
  g.edge_dst.reserve(2 * num_bonds);
  g.edge_attr.reserve(2 * num_bonds * graph::kBondFeatures);
  for (const RDKit::Bond* b : mol.bonds()) {
    const int16_t f[graph::kBondFeatures] = {bondTypeIndex(b->getBondType()), bondStereoIndex(b->getStereo()),
                                             static_cast<int16_t>(b->getIsConjugated() ? 1 : 0)};
    const int i = static_cast<int>(b->getBeginAtomIdx());
    const int j = static_cast<int>(b->getEndAtomIdx());
    for (int dir = 0; dir < 2; ++dir) {
      g.edge_src.push_back(dir == 0 ? i : j);
      g.edge_dst.push_back(dir == 0 ? j : i);
      g.edge_attr.insert(g.edge_attr.end(), f, f + graph::kBondFeatures);
    }
  }
  return g;
}

namespace {
constexpr NameTable<AtomOrder, 2> kAtomOrders{{AtomOrder::Canonical, "canonical"},
                                              {AtomOrder::AsWritten, "as-written"}};
}  // namespace

const char* atomOrderName(AtomOrder order) { return nameIn(kAtomOrders, order); }
Result<AtomOrder> parseAtomOrder(const std::string& name) { return parseIn(kAtomOrders, name, "atom order"); }

}  // namespace gs::chem
