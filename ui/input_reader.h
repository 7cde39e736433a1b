#pragma once
// The app's input as records: an opened file (its columns as the user chose them) or pasted text.
// Pasted text is "SMILES [name]" per line, or a block copied from a spreadsheet (tab- or
// semicolon-separated, with or without a header row): the SMILES column is found by content and a
// header row by its not parsing. The user's other columns are kept: `columns` names them and every
// record's `fields` hold their values in that order (what the table shows and the export writes).
#include <QStringList>

#include <string>
#include <vector>

#include "common/status.h"
#include "data/record.h"
#include "data/record_reader.h"

namespace gs::ui {

struct RunInput;

// How a CSV/TSV or SD file is read: the import dialog's choices, or guessImport's.
struct ImportChoice {
  QString smiles_column, id_column;  // "#N" (0-based index) or a header name; "" = automatic / row number
  QString delimiter;                 // "", ",", ";", "\t"
  bool header = true;
  QString sdf_id_property;  // "" = the title line
  QString smiles_label;     // the SMILES column as the user knows it ("Structure", "column 2")
};

// The first rows of a delimited file as read without a header (`delimiter` '\0' = detected).
// `error` (optional) gets why the file could not be opened.
std::vector<std::vector<std::string>> sampleRows(const QString& path, char delimiter, int rows,
                                                 std::vector<std::string>* sd_items = nullptr,
                                                 QString* error = nullptr);
// What the import dialog proposes and a file opened without it uses: header row and SMILES column
// by content, the name column by its name (or the other of two columns).
ImportChoice guessImport(const QString& path);
int guessNameColumn(const std::vector<std::string>& names, bool header, int smiles_column);

struct InputTable {
  std::vector<data::RawRecord> records;
  QStringList columns;
};

// `prediction_header`: the prediction columns, so a kept column with the same name is renamed.
Status readInputTable(const RunInput& input, const std::vector<std::string>& prediction_header, InputTable& out);

// How pasted text is read: delimited (tab, or semicolon/comma when every line of the sample has
// the same number of them) with the SMILES column and header found by content; else SMILES [name].
struct PastedFormat {
  data::FileFormat format = data::FileFormat::Smi;
  data::ReaderOptions options;
};
PastedFormat pastedFormat(const std::string& text);

// From the format table (data/file_format.h): file dialog filters for molecule files (every
// format) and for labelled molecules (formats with named fields), and the formats as a phrase
// (".smi, .smiles, ..., also compressed: .gz, .bz2, .zst") for tooltips and help.
QString moleculeFileFilter();
QString labelledFileFilter();
QString moleculeFileTypes();

}  // namespace gs::ui
