#pragma once
// The Molecules panel: pasted text or an opened file (with the import dialog's choices), the
// examples, Clear, and the offer to predict a file handed over from outside. Replacing or
// clearing the input is announced first (aboutToReplace) so the window can keep an undo step and
// the results table always belongs to the input it shows.
#include <QGroupBox>

#include <memory>

#include "import_dialog.h"
#include "run_settings.h"

class QLabel;
class QPlainTextEdit;

namespace gs::ui {

class PredictOffer;
class SaveGuard;

class InputPanel final : public QGroupBox {
  Q_OBJECT
 public:
  struct Snapshot {
    QString text, path;
    ImportChoice choice;
  };

  explicit InputPanel(std::shared_ptr<SaveGuard> guard, QWidget* parent = nullptr);
  RunInput currentInput() const;
  Snapshot snapshot() const;
  // Puts back an earlier input (Undo) without announcing a replacement.
  void restore(const Snapshot& s);
  // Opens a molecule file; CSV/TSV/SD files go through the import dialog when the window is shown
  // (`ask` false: automatic choices). False when the user cancelled the import.
  bool setFile(const QString& path, bool ask = true);
  // Replaces the input by text (examples, a paste that replaces an open file).
  void setText(const QString& text);
  void clearInput();
  bool isEmpty() const;
  QString filePath() const { return path_; }
  QPlainTextEdit* editor() const { return text_; }
  PredictOffer* offer() const { return offer_; }

 Q_SIGNALS:
  void aboutToReplace(const QString& what);  // "clear", "open file", "example"
  void replaced();
  void openRequested();

 private:
  void showFile();
  void setEditorText(const QString& text);  // without treating it as typing

  std::shared_ptr<SaveGuard> guard_;
  QPlainTextEdit* text_ = nullptr;
  QLabel* file_label_ = nullptr;
  PredictOffer* offer_ = nullptr;
  QString path_;
  ImportChoice choice_;
};

}  // namespace gs::ui
