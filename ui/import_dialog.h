#pragma once
// The import dialog for a molecule file with columns (CSV/TSV, SD files with data items): a live
// preview of the first rows, the delimiter (detected: comma, semicolon, tab) and header row, the
// SMILES column found by content with a warning when the chosen column does not read as SMILES,
// the name column (or row numbers; SD files: the title line or a data item). Every other column
// is kept beside the predictions whatever is chosen here.
#include <QDialog>
#include <QString>

#include <string>
#include <vector>

#include "input_reader.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QTableWidget;

namespace gs::ui {

// Whether the file is one the dialog applies to (CSV/TSV or SD, compressed or not).
bool needsImportDialog(const QString& path);

class ImportDialog final : public QDialog {
  Q_OBJECT
 public:
  explicit ImportDialog(const QString& path, QWidget* parent = nullptr);
  ImportChoice choice() const;
  // What the user sees, for tests: the preview's header and rows, and the column warning.
  QTableWidget* preview() const { return preview_; }
  QString warning() const;
  QComboBox* smilesBox() const { return smiles_; }
  QComboBox* nameBox() const { return name_; }
  QComboBox* delimiterBox() const { return delimiter_; }
  QCheckBox* headerBox() const { return header_; }
  bool isSdf() const { return sdf_; }

 private:
  void reload();  // reads the sample with the current delimiter and header choice
  void fillColumns(bool detect);
  void checkSmilesColumn();
  char currentDelimiter() const;

  QString path_;
  bool sdf_ = false;
  std::vector<std::vector<std::string>> sample_;  // CSV: raw rows (header included); SD: items
  std::vector<std::string> names_;                // column names as the preview shows them
  QComboBox *delimiter_ = nullptr, *smiles_ = nullptr, *name_ = nullptr;
  QCheckBox* header_ = nullptr;
  QLabel* warning_ = nullptr;
  QTableWidget* preview_ = nullptr;
};

// Shows the dialog; false when the user cancels (the file is then not opened).
bool askImport(QWidget* parent, const QString& path, ImportChoice* choice);

}  // namespace gs::ui
