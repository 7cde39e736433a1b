#include "column_dialog.h"

#include <QInputDialog>
#include <QStringList>

#include "data/record_reader.h"

namespace gs::ui {

bool hasColumns(const QString& path) {
  const auto format = data::formatFromPath(path.toStdString());
  return format.isOk() && (format.value() == data::FileFormat::Csv || format.value() == data::FileFormat::Tsv);
}

void askColumns(QWidget* parent, const QString& path, QString* smiles_column, QString* id_column) {
  data::ReaderOptions ro;
  auto reader = data::openReader(path.toStdString(), ro);
  if (!reader.isOk()) return;  // the run reports the problem
  QStringList columns;
  for (const auto& c : reader.value()->columns()) columns << QString::fromStdString(c);
  if (columns.size() < 2) return;
  bool ok = false;
  int guess = 0;
  for (int i = 0; i < columns.size(); ++i)
    if (columns[i].contains(QLatin1String("smi"), Qt::CaseInsensitive)) guess = i;
  const QString smiles = QInputDialog::getItem(parent, QObject::tr("SMILES column"), QObject::tr("Column with the SMILES:"), columns,
                                               guess, false, &ok);
  if (ok) *smiles_column = smiles;
  QStringList ids = columns;
  ids.prepend(QObject::tr("(row number)"));
  const QString id = QInputDialog::getItem(parent, QObject::tr("Name column"), QObject::tr("Column with the molecule names:"), ids, 0,
                                           false, &ok);
  if (ok && id != ids.front()) *id_column = id;
}

}  // namespace gs::ui
