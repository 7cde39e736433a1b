#include "chem/depict.h"

#include <GraphMol/Depictor/RDDepictor.h>
#include <GraphMol/MolDraw2D/MolDraw2DSVG.h>
#include <GraphMol/MolDraw2D/MolDraw2DUtils.h>
#include <GraphMol/RWMol.h>

#include "chem/molecule.h"

namespace gs::chem {

std::string depictSvg(std::string_view smiles, const DepictOptions& options) {
  auto parsed = parseSmiles(smiles);
  if (!parsed.mol) return "";
  try {
    RDKit::RWMol mol(*parsed.mol);
    RDDepict::compute2DCoords(mol);
    RDKit::MolDraw2DSVG drawer(options.width, options.height);
    if (options.transparent_background) drawer.drawOptions().clearBackground = false;
    drawer.drawOptions().addStereoAnnotation = true;
    if (options.max_bond_length > 0) drawer.drawOptions().fixedBondLength = options.max_bond_length;
    RDKit::MolDraw2DUtils::prepareAndDrawMolecule(drawer, mol);
    drawer.finishDrawing();
    return drawer.getDrawingText();
  } catch (...) {
    return "";
  }
}

}  // namespace gs::chem
