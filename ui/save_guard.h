#pragma once
// The files the app reads (molecule files opened this session; the model's weights, config.json and
// adapter), so that no export, picture or chart is ever saved over one of them. Owned by the main
// window and shared with the views that save files. UI thread only.
#include <QString>
#include <QStringList>

class QWidget;

namespace gs::ui {

class SaveGuard final {
 public:
  void addInput(const QString& path);
  void setModelFiles(const QStringList& files) { model_files_ = files; }
  // "" when `path`, and `path` + each of `sidecars` (e.g. ".json"), may be written; else why not.
  QString problem(const QString& path, const QStringList& sidecars = {}) const;
  // QFileDialog::getSaveFileName that says why and asks again when the chosen file is one the app
  // reads; "" when the user cancels.
  QString askSavePath(QWidget* parent, const QString& title, const QString& suggested, const QString& filter,
                      const QStringList& sidecars = {}) const;

 private:
  QStringList inputs_, model_files_;
};

}  // namespace gs::ui
