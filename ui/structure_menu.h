#pragma once
// What a chemist copies from a result row: its SMILES (as given or canonical), a molfile with 2D
// coordinates, and the picture (PNG and SVG together on the clipboard, so slide, word-processor
// and drawing programs each take the one they understand); also the picture saved under the
// molecule's name at a chosen size.
#include <QString>

class QMenu;
class QMimeData;
class QWidget;

namespace gs::ui {

class SaveGuard;

// The clipboard contents for a structure picture: image/png and image/svg+xml, plus the SMILES as text.
QMimeData* structureMimeData(const QString& smiles, int width, int height);
// A file name from a molecule's name ("aspirin (1).svg" -> "aspirin_1_.svg"); "molecule" when empty.
QString pictureFileName(const QString& name, const QString& suffix);
// Fills `menu` with the copy and save actions for one molecule.
void addStructureActions(QMenu* menu, QWidget* parent, const QString& name, const QString& smiles,
                         const QString& canonical, SaveGuard* guard);

}  // namespace gs::ui
