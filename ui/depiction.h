#pragma once
// An RDKit depiction (chem/depict.h) rendered into a transparent pixmap: table thumbnails, the
// Trust panel's molecule and neighbours.
#include <QPixmap>
#include <QSize>

#include <string>
#include <vector>

namespace gs::ui {

// `max_bond_length` caps the scale (pixels per bond); `highlight` atoms (in the SMILES' order) are
// drawn with an amber highlight. A blank pixmap when the SMILES cannot be drawn.
QPixmap depictionPixmap(const std::string& smiles, QSize size, double max_bond_length,
                        const std::vector<int>& highlight = {});

}  // namespace gs::ui
