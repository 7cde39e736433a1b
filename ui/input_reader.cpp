#include "input_reader.h"

#include <sstream>

#include "chem/column_guess.h"
#include "data/csv_reader.h"
#include "predict/prediction_table.h"
#include "run_settings.h"

namespace gs::ui {
namespace {

constexpr int kSampleLines = 50;

std::vector<std::string> sampleLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (static_cast<int>(lines.size()) < kSampleLines && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
  }
  return lines;
}

// The delimiter every sample line has the same (non-zero) number of, tab first; '\0' when none.
char consistentDelimiter(const std::vector<std::string>& lines) {
  for (char d : {'\t', ';', ','}) {
    const auto count = [d](const std::string& l) { return std::count(l.begin(), l.end(), d); };
    const auto n = lines.empty() ? 0 : count(lines.front());
    if (n > 0 && std::all_of(lines.begin(), lines.end(), [&](const std::string& l) { return count(l) == n; })) return d;
  }
  return '\0';
}

}  // namespace

std::vector<std::vector<std::string>> sampleRows(const QString& path, char delimiter, int rows,
                                                 std::vector<std::string>* sd_items, QString* error) {
  std::vector<std::vector<std::string>> out;
  data::ReaderOptions ro;
  ro.csv_header = false;  // the header row is judged by the caller
  ro.csv_delimiter = delimiter;
  auto reader = data::openReader(path.toStdString(), ro);
  if (!reader.isOk()) {
    if (error) *error = QString::fromStdString(reader.status().message());
    return out;
  }
  data::RawRecord record;
  while (static_cast<int>(out.size()) < rows && reader.value()->next(record)) out.push_back(record.fields);
  if (sd_items) *sd_items = reader.value()->columns();
  return out;
}

int guessNameColumn(const std::vector<std::string>& names, bool header, int smiles_column) {
  if (header)
    for (size_t c = 0; c < names.size(); ++c) {
      const QString n = QString::fromStdString(names[c]).toLower();
      if (n == QLatin1String("name") || n == QLatin1String("id") || n == QLatin1String("title") ||
          n == QLatin1String("compound") || n.endsWith(QLatin1String("_id")) || n.endsWith(QLatin1String(" id")))
        return static_cast<int>(c);
    }
  if (names.size() == 2 && smiles_column >= 0) return smiles_column == 0 ? 1 : 0;
  return -1;
}

ImportChoice guessImport(const QString& path) {
  ImportChoice c;
  auto format = data::formatFromPath(path.toStdString());
  if (!format.isOk()) return c;
  if (const auto& info = data::formatInfo(format.value());
      !info.import_dialog || info.fields != data::FieldLayout::HeaderRow)
    return c;
  const auto rows = sampleRows(path, '\0', kSampleLines);
  const auto guess = chem::guessSmilesColumn(rows);
  if (guess.column < 0) return c;  // the run reports what it can read
  c.header = guess.first_row_is_header;
  c.smiles_column = QStringLiteral("#%1").arg(guess.column);
  const std::vector<std::string> names = rows.empty() ? std::vector<std::string>{} : rows.front();
  c.smiles_label = c.header && static_cast<size_t>(guess.column) < names.size()
                       ? QString::fromStdString(names[static_cast<size_t>(guess.column)])
                       : QStringLiteral("column %1").arg(guess.column + 1);
  const int name = guessNameColumn(names, c.header, guess.column);
  if (name >= 0) c.id_column = QStringLiteral("#%1").arg(name);
  return c;
}

QString moleculeFileFilter() {
  return QString::fromStdString(data::dialogFilter(QObject::tr("Molecules").toStdString(), false)) +
         QObject::tr(";;All files (*)");
}

QString labelledFileFilter() {
  return QString::fromStdString(data::dialogFilter(QObject::tr("Molecules with values").toStdString(), true)) +
         QObject::tr(";;All files (*)");
}

QString moleculeFileTypes() {
  return QObject::tr("%1, also compressed: %2")
      .arg(QString::fromStdString(data::extensionList()), QString::fromStdString(data::compressionList()));
}

PastedFormat pastedFormat(const std::string& text) {
  PastedFormat f;
  const auto lines = sampleLines(text);
  const char delimiter = consistentDelimiter(lines);
  if (!delimiter) return f;
  std::vector<std::vector<std::string>> rows;
  std::istringstream sample(text);
  data::ReaderOptions raw;
  raw.csv_header = false;
  data::CsvReader reader(sample, raw, delimiter);
  data::RawRecord record;
  while (static_cast<int>(rows.size()) < kSampleLines && reader.next(record)) rows.push_back(record.fields);
  const auto guess = chem::guessSmilesColumn(rows);
  if (guess.column < 0) return f;
  f.format = data::FileFormat::Csv;
  f.options.csv_delimiter = delimiter;
  f.options.csv_header = guess.first_row_is_header;
  f.options.smiles_column = "#" + std::to_string(guess.column);
  // Without a header the names come from the first other column, as "SMILES name" lines do.
  const size_t width = rows.empty() ? 0 : rows.front().size();
  if (!f.options.csv_header && width == 2) f.options.id_column = guess.column == 0 ? "#1" : "#0";
  return f;
}

Status readInputTable(const RunInput& input, const std::vector<std::string>& prediction_header, InputTable& out) {
  data::ReaderOptions ro;
  const ImportChoice& c = input.import;
  ro.smiles_column = c.smiles_column.toStdString();
  ro.id_column = c.id_column.toStdString();
  ro.sdf_id_property = c.sdf_id_property.toStdString();
  ro.csv_header = c.header;
  if (!c.delimiter.isEmpty()) ro.csv_delimiter = c.delimiter.at(0).toLatin1();
  const std::string text = input.text.toStdString();
  std::istringstream in(text);
  std::unique_ptr<data::RecordReader> reader;
  if (!input.path.isEmpty()) {
    auto r = data::openReader(input.path.toStdString(), ro);
    if (!r.isOk()) return r.status();
    reader = std::move(r.value());
  } else {
    const PastedFormat pasted = pastedFormat(text);
    reader = data::makeReader(pasted.format, in, pasted.options);
  }
  out.records.clear();
  data::RawRecord record;
  while (reader->next(record)) out.records.push_back(record);
  if (Status s = reader->inputError(); !s.isOk()) return s;
  // SD files name their items while being read: the columns are known at the end.
  const auto kept = predict::InputColumns::choose(reader->columns(), reader->otherColumns(), prediction_header);
  for (auto& r : out.records) r.fields = kept.values(r.fields);
  out.columns.clear();
  for (const auto& name : kept.names) out.columns << QString::fromStdString(name);
  return Status::ok();
}

}  // namespace gs::ui
