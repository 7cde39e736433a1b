#include "chem/depict.h"

#include <GraphMol/Depictor/RDDepictor.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/MolDraw2D/MolDraw2DSVG.h>
#include <GraphMol/MolDraw2D/MolDraw2DUtils.h>
#include <GraphMol/RWMol.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "chem/molecule.h"

namespace gs::chem {

namespace {
// The drawing options both depictions share.
void applyOptions(RDKit::MolDraw2DSVG& drawer, const DepictOptions& options) {
  if (options.transparent_background) drawer.drawOptions().clearBackground = false;
  drawer.drawOptions().addStereoAnnotation = true;
  if (options.max_bond_length > 0) drawer.drawOptions().fixedBondLength = options.max_bond_length;
}

// Half the width of the label RDKit draws for an atom, in bond lengths (0 for an unlabelled carbon).
double labelHalfWidth(const RDKit::Atom& atom, size_t fragment_atoms) {
  if (atom.getAtomicNum() == 6 && fragment_atoms > 1 && atom.getFormalCharge() == 0) return 0.0;
  const unsigned hs = atom.getTotalNumHs();
  const size_t chars =
      atom.getSymbol().size() + (hs > 0 ? (hs > 1 ? 2 : 1) : 0) + (atom.getFormalCharge() != 0 ? 1 : 0);
  return 0.3 * static_cast<double>(chars);
}

// RDKit's 2D coordinates, with the fragments of a salt or mixture set side by side with room for
// their labels: RDKit packs single-atom fragments (cisplatin's NH3, water, counter-ions) so closely
// that their labels run together.
void layOut(RDKit::RWMol& mol) {
  RDDepict::compute2DCoords(mol);
  std::vector<std::vector<int>> fragments;
  RDKit::MolOps::getMolFrags(mol, fragments);
  if (fragments.size() < 2) return;
  auto& conf = mol.getConformer();
  double x = 0;
  for (const auto& fragment : fragments) {
    double min_x = 1e300, max_x = -1e300, min_y = 1e300, max_y = -1e300;
    for (int a : fragment) {
      const auto& p = conf.getAtomPos(static_cast<unsigned>(a));
      const double half = labelHalfWidth(*mol.getAtomWithIdx(static_cast<unsigned>(a)), fragment.size());
      min_x = std::min(min_x, p.x - half);
      max_x = std::max(max_x, p.x + half);
      min_y = std::min(min_y, p.y);
      max_y = std::max(max_y, p.y);
    }
    const double dx = x - min_x, dy = -(min_y + max_y) / 2;
    for (int a : fragment) {
      auto& p = conf.getAtomPos(static_cast<unsigned>(a));
      p.x += dx;
      p.y += dy;
    }
    x += (max_x - min_x) + 0.9;
  }
}

void numberAtoms(RDKit::RWMol& mol, const DepictOptions& options) {
  if (!options.atom_numbers) return;
  for (RDKit::Atom* a : mol.atoms()) a->setProp(RDKit::common_properties::atomNote, std::to_string(a->getIdx() + 1));
}

// Draws `source` with the options' amber highlights and `problems` in red. An unsanitized molecule
// (one that failed with a chemistry error) is drawn as written, without kekulization.
std::string drawSvg(const RDKit::ROMol& source, const DepictOptions& options, const std::vector<int>& problems,
                    bool sanitized) {
  RDKit::RWMol mol(source);
  layOut(mol);
  numberAtoms(mol, options);
  RDKit::MolDraw2DSVG drawer(options.width, options.height);
  applyOptions(drawer, options);
  std::vector<int> atoms;
  std::map<int, RDKit::DrawColour> colours;
  auto mark = [&](int a, const RDKit::DrawColour& c) {
    if (a < 0 || a >= static_cast<int>(mol.getNumAtoms())) return;
    if (!colours.count(a)) atoms.push_back(a);
    colours[a] = c;
  };
  for (int a : options.highlight_atoms) mark(a, RDKit::DrawColour(1.0, 0.75, 0.2));
  for (int a : problems) mark(a, RDKit::DrawColour(1.0, 0.35, 0.35));
  const std::vector<int>* highlight = atoms.empty() ? nullptr : &atoms;
  const std::map<int, RDKit::DrawColour>* highlight_colours = atoms.empty() ? nullptr : &colours;
  if (sanitized) {
    RDKit::MolDraw2DUtils::prepareAndDrawMolecule(drawer, mol, "", highlight, nullptr, highlight_colours);
  } else {
    RDKit::MolDraw2DUtils::prepareMolForDrawing(mol, /*kekulize=*/false, /*addChiralHs=*/false);
    drawer.drawOptions().prepareMolsBeforeDrawing = false;  // it would kekulize, and throw again
    drawer.drawMolecule(mol, "", highlight, nullptr, highlight_colours);
  }
  drawer.finishDrawing();
  return drawer.getDrawingText();
}
}  // namespace

std::string depictSvg(std::string_view smiles, const DepictOptions& options) {
  try {
    auto parsed = parseSmiles(smiles);
    if (parsed.mol) return drawSvg(*parsed.mol, options, {}, true);
    if (parsed.status.code() != StatusCode::ChemistryError) return "";
    const MolPtr raw = parseSmilesUnsanitized(smiles);
    return raw ? drawSvg(*raw, options, parsed.problem_atoms, false) : "";
  } catch (...) {
    return "";
  }
}

HeatmapDepiction depictHeatmapSvg(std::string_view smiles, const std::vector<double>& values,
                                  const DepictOptions& options) {
  HeatmapDepiction out;
  auto parsed = parseSmiles(smiles);
  if (!parsed.mol || values.size() != parsed.mol->getNumAtoms()) return out;
  try {
    RDKit::RWMol mol(*parsed.mol);
    layOut(mol);
    RDKit::MolDraw2DUtils::prepareMolForDrawing(mol);
    numberAtoms(mol, options);
    RDKit::MolDraw2DSVG drawer(options.width, options.height);
    applyOptions(drawer, options);
    drawer.drawOptions().atomHighlightsAreCircles = true;
    drawer.drawOptions().fillHighlights = true;
    for (double v : values) out.scale = std::max(out.scale, std::abs(v));
    std::vector<int> atoms;
    std::map<int, RDKit::DrawColour> colours;
    std::map<int, double> radii;
    for (size_t i = 0; i < values.size(); ++i) {
      const double t = out.scale > 0 ? std::clamp(values[i] / out.scale, -1.0, 1.0) : 0.0;
      // White to red (positive) or white to blue (negative).
      const RDKit::DrawColour c = t >= 0 ? RDKit::DrawColour(1.0, 1.0 - 0.75 * t, 1.0 - 0.75 * t)
                                         : RDKit::DrawColour(1.0 + 0.75 * t, 1.0 + 0.5 * t, 1.0);
      atoms.push_back(static_cast<int>(i));
      colours[static_cast<int>(i)] = c;
      radii[static_cast<int>(i)] = 0.3 + 0.25 * std::abs(t);
    }
    drawer.drawMolecule(mol, "", &atoms, nullptr, &colours, nullptr, &radii);
    drawer.finishDrawing();
    out.svg = drawer.getDrawingText();
    for (size_t i = 0; i < values.size(); ++i) {
      const auto p = drawer.getDrawCoords(static_cast<int>(i));
      out.atom_xy.emplace_back(p.x, p.y);
    }
  } catch (...) {
    out = HeatmapDepiction();
  }
  return out;
}

std::string molBlock2D(std::string_view smiles, const std::string& title) {
  auto parsed = parseSmiles(smiles);
  if (!parsed.mol) return "";
  try {
    RDKit::RWMol mol(*parsed.mol);
    layOut(mol);
    mol.setProp("_Name", title);
    return RDKit::MolToMolBlock(mol);
  } catch (...) {
    return "";
  }
}

}  // namespace gs::chem
