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
}  // namespace

namespace {
void numberAtoms(RDKit::RWMol& mol, const DepictOptions& options) {
  if (!options.atom_numbers) return;
  for (RDKit::Atom* a : mol.atoms()) a->setProp(RDKit::common_properties::atomNote, std::to_string(a->getIdx() + 1));
}
}  // namespace

std::string depictSvg(std::string_view smiles, const DepictOptions& options) {
  auto parsed = parseSmiles(smiles);
  if (!parsed.mol) return "";
  try {
    RDKit::RWMol mol(*parsed.mol);
    RDDepict::compute2DCoords(mol);
    numberAtoms(mol, options);
    RDKit::MolDraw2DSVG drawer(options.width, options.height);
    applyOptions(drawer, options);
    std::vector<int> atoms;
    std::map<int, RDKit::DrawColour> colours;
    for (int a : options.highlight_atoms)
      if (a >= 0 && a < static_cast<int>(mol.getNumAtoms())) {
        atoms.push_back(a);
        colours[a] = RDKit::DrawColour(1.0, 0.75, 0.2);
      }
    RDKit::MolDraw2DUtils::prepareAndDrawMolecule(drawer, mol, "", atoms.empty() ? nullptr : &atoms, nullptr,
                                                  atoms.empty() ? nullptr : &colours);
    drawer.finishDrawing();
    return drawer.getDrawingText();
  } catch (...) {
    return "";
  }
}

HeatmapDepiction depictHeatmapSvg(std::string_view smiles, const std::vector<double>& values, const DepictOptions& options) {
  HeatmapDepiction out;
  auto parsed = parseSmiles(smiles);
  if (!parsed.mol || values.size() != parsed.mol->getNumAtoms()) return out;
  try {
    RDKit::RWMol mol(*parsed.mol);
    RDDepict::compute2DCoords(mol);
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
    RDDepict::compute2DCoords(mol);
    mol.setProp("_Name", title);
    return RDKit::MolToMolBlock(mol);
  } catch (...) {
    return "";
  }
}

}  // namespace gs::chem
