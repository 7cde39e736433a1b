#include "save_guard.h"

#include <QFileDialog>
#include <QMessageBox>

#include <string>
#include <vector>

#include "common/output_guard.h"

namespace gs::ui {

void SaveGuard::addInput(const QString& path) {
  if (!path.isEmpty() && !inputs_.contains(path)) inputs_ << path;
}

QString SaveGuard::problem(const QString& path, const QStringList& sidecars) const {
  std::vector<std::string> outputs{path.toStdString()}, inputs;
  for (const auto& s : sidecars) outputs.push_back((path + s).toStdString());
  for (const auto& f : inputs_ + model_files_) inputs.push_back(f.toStdString());
  const Status s = checkOutputsAreNotInputs(outputs, inputs);
  return s.isOk() ? QString() : QString::fromStdString(s.message());
}

QString SaveGuard::askSavePath(QWidget* parent, const QString& title, const QString& suggested, const QString& filter,
                               const QStringList& sidecars) const {
  QString path = suggested;
  for (;;) {
    path = QFileDialog::getSaveFileName(parent, title, path, filter);
    if (path.isEmpty()) return {};
    const QString why = problem(path, sidecars);
    if (why.isEmpty()) return path;
    QMessageBox::warning(parent, title, why);
  }
}

}  // namespace gs::ui
