#pragma once
// The Train tab's settings: the labelled file (SMILES column, target columns with their usable
// counts, units, a preview), the model to start from and the fine-tune mode, the split, the
// optimisation settings, precision and checkpoint ratio (the training availability rules, with the
// reason for each unavailable precision) and the memory budget. request() turns them into a
// TrainRequest; the run directory is set by the tab.
#include <QWidget>

#include "train_worker.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace gs::ui {

class TrainForm final : public QWidget {
  Q_OBJECT
 public:
  explicit TrainForm(QWidget* parent = nullptr);

  TrainRequest request() const;
  // Sets every control from a request (the file and targets too, when the file is the one shown).
  void setRequest(const TrainRequest& request);
  void showPreview(const LabelledPreview& preview);
  // For tests and scripts: choose the file's targets and settings without dialogs.
  void setTargets(const QStringList& targets);
  void setOpenedModel(const QString& path);
  QString inputPath() const { return input_path_; }

 Q_SIGNALS:
  // The user opened a labelled file (or changed its SMILES column): the worker should inspect it.
  void inspectRequested(const QString& path, const QString& smiles_column);

 public Q_SLOTS:
  void openFile();
  // Opens a labelled file; `targets` are ticked when its preview arrives.
  void setInputFile(const QString& path, const QStringList& targets = {});

 private:
  QWidget* buildDataBox();
  QWidget* buildModelBox();
  QWidget* buildSplitBox();
  QWidget* buildOptimisationBox();
  QWidget* buildMemoryBox();
  void refreshModelControls();
  QString smilesColumn() const;  // "" = detected by the reader

  QString input_path_, model_path_;
  QStringList pending_targets_;
  QLabel *file_label_ = nullptr, *counts_ = nullptr, *model_label_ = nullptr;
  QComboBox* smiles_column_ = nullptr;
  QListWidget* targets_ = nullptr;
  QLineEdit* units_ = nullptr;
  QTableWidget* preview_ = nullptr;
  QComboBox *start_ = nullptr, *preset_ = nullptr, *mode_ = nullptr, *split_ = nullptr;
  QSpinBox *layers_ = nullptr, *dim_ = nullptr, *heads_ = nullptr, *ffn_ = nullptr, *freeze_ = nullptr,
           *rank_ = nullptr;
  QDoubleSpinBox *valid_ = nullptr, *test_ = nullptr, *calib_ = nullptr;
  QSpinBox *seed_ = nullptr, *epochs_ = nullptr, *batch_ = nullptr, *patience_ = nullptr, *snapshots_ = nullptr;
  QLineEdit* lr_ = nullptr;
  QComboBox *device_ = nullptr, *precision_ = nullptr;
  QDoubleSpinBox* ratio_ = nullptr;
  QCheckBox *fit_ = nullptr, *fit_precision_ = nullptr;
  QSpinBox* budget_ = nullptr;
  QPushButton* open_model_ = nullptr;
};

}  // namespace gs::ui
