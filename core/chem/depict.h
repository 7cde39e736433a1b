#pragma once
// 2D depictions as SVG (RDKit's MolDraw2DSVG with coordinates from RDDepict), for the desktop
// app's table thumbnails and molecule view. SVG scales sharply to any size.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gs::chem {

struct DepictOptions {
  int width = 300;
  int height = 200;
  bool transparent_background = true;
  // Caps the drawing scale (pixels per bond) so that small molecules are not blown up to fill
  // the box; 0 = fit every molecule to the box.
  double max_bond_length = 0;
  // Atoms (in the SMILES' order) drawn with an amber highlight, e.g. those in an environment the
  // model never saw in training.
  std::vector<int> highlight_atoms;
  // Each atom labelled with its number, 1-based (the app's atom tables count from 1).
  bool atom_numbers = false;
};

// "" when the SMILES cannot be read or drawn. A molecule that fails with a chemistry error (e.g. a
// valence or kekulization problem) is drawn as written with the offending atoms in red. Never
// throws. Thread-safe.
std::string depictSvg(std::string_view smiles, const DepictOptions& options = {});

struct HeatmapDepiction {
  std::string svg;                                 // "" on failure
  std::vector<std::pair<double, double>> atom_xy;  // each atom's drawing position (pixels)
  double scale = 0;                                // |value| drawn at full colour
};

// The molecule with each atom highlighted on a diverging scale: blue for negative, red for
// positive values, white at zero, full colour at max |value| (atoms in the SMILES' order).
HeatmapDepiction depictHeatmapSvg(std::string_view smiles, const std::vector<double>& atom_values,
                                  const DepictOptions& options = {});

// An MDL molblock (V2000) with 2D coordinates and `title` as its name line; "" when the SMILES
// cannot be read. For SD files of results (screening hit lists). Never throws.
std::string molBlock2D(std::string_view smiles, const std::string& title);

}  // namespace gs::chem
