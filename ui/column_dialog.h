#pragma once
// Asks which columns of a CSV/TSV file hold the SMILES and the molecule names (when it has two or
// more columns); leaves the outputs unchanged for a column the user does not choose.
#include <QString>

class QWidget;

namespace gs::ui {

// Whether the file is a table with named columns (CSV/TSV, compressed or not).
bool hasColumns(const QString& path);

void askColumns(QWidget* parent, const QString& path, QString* smiles_column, QString* id_column);

}  // namespace gs::ui
