#include "results_model.h"

#include <QColor>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

#include "depiction.h"

namespace gs::ui {
namespace {
// What a row's picture shows: the canonical SMILES when the molecule was read, else the SMILES as
// given (a molecule with a chemistry error is drawn as written, its offending atoms in red).
const std::string& drawingSmiles(const predict::PredictedRow& r) { return r.canonical.empty() ? r.input : r.canonical; }
}  // namespace

ResultsModel::ResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

int ResultsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ResultsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : inputColumn(static_cast<int>(input_columns_.size()));
}

int ResultsModel::decimalsFor(const predict::PredictedRow& r, int j) {
  if (!r.trust || j >= static_cast<int>(r.trust->sigma.size())) return 3;
  const double sigma = r.trust->sigma[static_cast<size_t>(j)];
  if (!(sigma > 0) || !std::isfinite(sigma)) return 3;
  return std::clamp(1 - static_cast<int>(std::floor(std::log10(sigma))), 0, 6);
}

namespace {

QColor bandColour(predict::DomainBand band) {
  switch (band) {
    case predict::DomainBand::In: return QColor(0x2E, 0x9E, 0x44);
    case predict::DomainBand::Borderline: return QColor(0xE8, 0xA2, 0x02);
    case predict::DomainBand::Out: return QColor(0xC6, 0x28, 0x28);
  }
  return {};
}

// The status in words for the table (the export keeps the code).
QString statusWords(StatusCode code) {
  switch (code) {
    case StatusCode::Ok: return QObject::tr("ok");
    case StatusCode::Empty: return QObject::tr("empty row");
    case StatusCode::SyntaxError: return QObject::tr("unreadable SMILES");
    case StatusCode::ChemistryError: return QObject::tr("impossible chemistry");
    case StatusCode::TooManyAtoms: return QObject::tr("too large for the model");
    case StatusCode::NoAtoms: return QObject::tr("no atoms");
    case StatusCode::MalformedRecord: return QObject::tr("broken row in the file");
    case StatusCode::InvalidArgument: return QObject::tr("invalid input");
    case StatusCode::IoError: return QObject::tr("read error");
    case StatusCode::Cancelled: return QObject::tr("cancelled");
    case StatusCode::OutOfMemory: return QObject::tr("out of memory");
    case StatusCode::Internal: return QObject::tr("internal error");
    case StatusCode::Crashed: return QObject::tr("crashed the worker");
  }
  return QString::fromUtf8(statusCodeName(code));
}

// Input columns sort as numbers when they read as numbers (decimal comma too), else as text;
// numbers before text.
QVariant inputSortKey(const QString& text) {
  bool ok = false;
  QString t = text.trimmed();
  double v = t.toDouble(&ok);
  if (!ok && t.count(QLatin1Char(',')) == 1 && !t.contains(QLatin1Char('.')))
    v = QString(t).replace(QLatin1Char(','), QLatin1Char('.')).toDouble(&ok);
  if (ok) return v;
  return t.isEmpty() ? QVariant(std::numeric_limits<double>::infinity()) : QVariant(t);
}

QPixmap bandMark(predict::DomainBand band) {
  QPixmap p(12, 12);
  p.fill(Qt::transparent);
  QPainter painter(&p);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(Qt::NoPen);
  painter.setBrush(bandColour(band));
  painter.drawEllipse(1, 1, 10, 10);
  return p;
}

}  // namespace

QString ResultsModel::trustText(const predict::PredictedRow& r, int column) const {
  if (!r.status.isOk() || !r.trust) return {};
  if (column == domainColumn()) return QString::fromUtf8(predict::domainBandName(r.trust->band));
  const int j = column - intervalColumn(0);
  if (j < 0 || j >= static_cast<int>(r.trust->lower.size()) || j >= static_cast<int>(r.values.size())) return {};
  const double half = (r.trust->upper[static_cast<size_t>(j)] - r.trust->lower[static_cast<size_t>(j)]) / 2;
  if (std::isinf(half)) return tr("unbounded");
  const int digits = decimalsFor(r, j);
  return QStringLiteral("%1 ± %2").arg(r.values[static_cast<size_t>(j)], 0, 'f', digits).arg(half, 0, 'f', digits);
}

QVariant ResultsModel::trustData(const predict::PredictedRow& r, int column, int role) const {
  if (!r.status.isOk()) return {};
  if (!r.trust)
    return role == Qt::ToolTipRole ? tr("No interval or domain: the model has no trust data, or trust is off")
                                   : QVariant();
  const auto& t = *r.trust;
  if (column == domainColumn()) {
    if (role == Qt::DecorationRole) return bandMark(t.band);
    if (role == SortRole) return static_cast<int>(t.band);
    if (role == Qt::ToolTipRole) {
      QStringList lines{tr("Nearest training molecule: similarity %1").arg(t.nn_similarity, 0, 'f', 2)};
      for (const auto& reason : t.reasons) lines << QString::fromStdString(reason);
      return lines.join(QLatin1Char('\n'));
    }
    return {};
  }
  const int j = column - intervalColumn(0);
  if (j < 0 || j >= static_cast<int>(t.lower.size())) return {};
  if (role == SortRole) return t.upper[static_cast<size_t>(j)] - t.lower[static_cast<size_t>(j)];
  if (role == Qt::DecorationRole) return bandMark(t.outputBand(j));
  if (role == Qt::ToolTipRole)
    return tr("%1 % interval [%2, %3]; σ %4 (ensemble spread %5, distance to training %6); this property's "
              "domain: %7")
        .arg(confidence_ * 100, 0, 'f', 0)
        .arg(t.lower[static_cast<size_t>(j)], 0, 'f', 3)
        .arg(t.upper[static_cast<size_t>(j)], 0, 'f', 3)
        .arg(t.sigma[static_cast<size_t>(j)], 0, 'f', 3)
        .arg(t.spread[static_cast<size_t>(j)], 0, 'f', 3)
        .arg(t.distance, 0, 'f', 2)
        .arg(QString::fromUtf8(predict::domainBandName(t.outputBand(j))));
  return {};
}

void ResultsModel::setConfidence(double confidence) {
  confidence_ = confidence;
  if (numOutputs() > 0) Q_EMIT headerDataChanged(Qt::Horizontal, intervalColumn(0), intervalColumn(numOutputs() - 1));
}

QString ResultsModel::text(int row, int column) const {
  if (row < 0 || row >= rowCount()) return {};
  const auto& r = rows_[static_cast<size_t>(row)];
  switch (column) {
    case RowColumn: return QString::number(r.row);
    case NameColumn: return QString::fromStdString(r.id);
    case StructureColumn: return {};
    case SmilesColumn: return QString::fromStdString(r.input);
    case CanonicalColumn: return QString::fromStdString(r.canonical);
    case StatusColumn: return done_[static_cast<size_t>(row)] ? statusWords(r.status.code()) : tr("pending");
    case AtomsColumn: return r.num_atoms > 0 ? QString::number(r.num_atoms) : QString();
    default: break;
  }
  if (column >= inputColumn(0)) {
    const size_t k = static_cast<size_t>(column - inputColumn(0));
    return k < r.fields.size() ? QString::fromStdString(r.fields[k]) : QString();
  }
  if (column >= intervalColumn(0)) return trustText(r, column);
  const int j = column - FixedColumnCount;
  if (j < 0 || j >= numOutputs() || !r.status.isOk() || j >= static_cast<int>(r.values.size())) return {};
  return QString::number(r.values[static_cast<size_t>(j)], 'f', decimalsFor(r, j));
}

QString ResultsModel::toTsv(const std::vector<int>& rows) const {
  QStringList lines, fields;
  for (int c = 0; c < columnCount(); ++c)
    if (c != StructureColumn) fields << headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
  lines << fields.join(QLatin1Char('\t'));
  for (int r : rows) {
    fields.clear();
    for (int c = 0; c < columnCount(); ++c)
      if (c != StructureColumn) fields << text(r, c);
    lines << fields.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const int row = index.row(), column = index.column();
  const auto& r = rows_[static_cast<size_t>(row)];
  const bool done = done_[static_cast<size_t>(row)];
  switch (role) {
    case Qt::DisplayRole: return text(row, column);
    case Qt::DecorationRole:
      if (column == StructureColumn && !drawingSmiles(r).empty()) return thumbnail(row);
      if (column >= intervalColumn(0) && column <= domainColumn()) return trustData(r, column, role);
      return {};
    case Qt::ToolTipRole:
      if (column >= inputColumn(0)) return text(row, column);
      if (column >= intervalColumn(0)) return trustData(r, column, role);
      if (column >= FixedColumnCount && r.status.isOk() &&
          column - FixedColumnCount < static_cast<int>(r.values.size()))
        return tr("%1 (full value; shown to the digits its uncertainty supports)")
            .arg(static_cast<double>(r.values[static_cast<size_t>(column - FixedColumnCount)]), 0, 'g', 9);
      if (column == StatusColumn)
        return done ? (r.status.isOk() ? tr("predicted")
                                       : tr("%1\n(code in the export: %2)")
                                             .arg(QString::fromStdString(r.status.message()),
                                                  QString::fromUtf8(statusCodeName(r.status.code()))))
                    : tr("waiting for its batch");
      if (column == SmilesColumn || column == CanonicalColumn) return text(row, column);
      return {};
    case Qt::ForegroundRole:
      if (column == StatusColumn && done && !r.status.isOk()) return QColor(0xB0, 0x20, 0x20);
      if (column == StatusColumn && !done) return QColor(0x80, 0x80, 0x80);
      return {};
    case Qt::TextAlignmentRole:
      if (column >= inputColumn(0)) return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
      if (column == RowColumn || column == AtomsColumn || (column >= FixedColumnCount && column != domainColumn()))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    case SortRole:
      if (column == RowColumn) return QVariant::fromValue<qlonglong>(r.row);
      if (column >= inputColumn(0)) return inputSortKey(text(row, column));
      if (column == AtomsColumn) return r.num_atoms;
      if (column >= intervalColumn(0)) {
        const QVariant v = trustData(r, column, role);
        return v.isValid() ? v : QVariant(std::numeric_limits<double>::infinity());
      }
      if (column >= FixedColumnCount) {
        const int j = column - FixedColumnCount;
        // Rows without a value sort after every number.
        if (!r.status.isOk() || j >= static_cast<int>(r.values.size())) return std::numeric_limits<double>::infinity();
        return static_cast<double>(r.values[static_cast<size_t>(j)]);
      }
      return text(row, column);
    default: return {};
  }
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section >= FixedColumnCount &&
      section < domainColumn())
    return run_description_.isEmpty() ? tr("Not predicted yet") : run_description_;
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case RowColumn: return tr("Row");
    case NameColumn: return tr("Name");
    case StructureColumn: return tr("Structure");
    case SmilesColumn: return tr("SMILES");
    case CanonicalColumn: return tr("Canonical SMILES");
    case StatusColumn: return tr("Status");
    case AtomsColumn: return tr("Atoms");
    default: break;
  }
  if (section >= inputColumn(0)) {
    const int k = section - inputColumn(0);
    return k < input_columns_.size() ? input_columns_[k] : QVariant();
  }
  if (section == domainColumn()) return tr("Domain");
  const bool interval = section >= intervalColumn(0);
  const int j = section - (interval ? intervalColumn(0) : FixedColumnCount);
  if (j < 0 || j >= numOutputs()) return {};
  const QString unit = j < output_units_.size() ? output_units_[j] : QString();
  const QString name =
      interval ? tr("%1 %2 % interval").arg(output_names_[j]).arg(confidence_ * 100, 0, 'f', 0) : output_names_[j];
  return unit.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, unit);
}

void ResultsModel::setOutputs(const QStringList& names, const QStringList& units) {
  beginResetModel();
  output_names_ = names;
  output_units_ = units;
  endResetModel();
}

void ResultsModel::setInput(std::vector<predict::PredictedRow> rows, const QStringList& columns) {
  beginResetModel();
  rows_ = std::move(rows);
  input_columns_ = columns;
  done_.assign(rows_.size(), false);
  thumbnails_.clear();
  endResetModel();
}

void ResultsModel::setResults(int first, const std::vector<predict::PredictedRow>& rows) {
  if (rows.empty() || first < 0 || first + static_cast<int>(rows.size()) > rowCount()) return;
  for (size_t i = 0; i < rows.size(); ++i) {
    const size_t at = static_cast<size_t>(first) + i;
    const std::string drawn_before = drawingSmiles(rows_[at]);
    std::vector<std::string> fields = std::move(rows_[at].fields);
    rows_[at] = rows[i];
    if (rows_[at].fields.empty()) rows_[at].fields = std::move(fields);  // a server's rows carry no input columns
    done_[at] = true;
    if (drawingSmiles(rows_[at]) != drawn_before) thumbnails_.remove(static_cast<int>(at));
  }
  Q_EMIT dataChanged(index(first, 0), index(first + static_cast<int>(rows.size()) - 1, columnCount() - 1));
}

void ResultsModel::clear() { setInput({}); }

void ResultsModel::restore(std::vector<predict::PredictedRow> rows, std::vector<bool> done,
                           const QStringList& columns) {
  beginResetModel();
  rows_ = std::move(rows);
  done_ = std::move(done);
  done_.resize(rows_.size(), false);
  input_columns_ = columns;
  thumbnails_.clear();
  endResetModel();
}

QPixmap ResultsModel::thumbnail(int row) const {
  auto it = thumbnails_.find(row);
  if (it != thumbnails_.end()) return *it;
  const QPixmap pixmap = depictionPixmap(drawingSmiles(rows_[static_cast<size_t>(row)]), kThumbnail, 16);
  thumbnails_.insert(row, pixmap);
  return pixmap;
}

}  // namespace gs::ui
