#include "help.h"

#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "input_reader.h"
#include "model_session.h"
#include "predict/library_versions.h"

namespace gs::ui {

QString guideMarkdown() {
  return QObject::
      tr("# Graphormer Studio in five minutes\n\n"
         "**1. Molecules.** Paste SMILES (one per line, a name after a space), paste a block copied from a "
         "spreadsheet (a header row and a SMILES column are recognised), or open a file (%1; a table may be "
         "comma, semicolon or tab separated). "
         "Every other column of your file is kept: shown in the table and written to the export.\n\n"
         "**2. Predict** (Ctrl+Return). Each row gets a value, an interval and a domain mark:\n\n"
         "- *Interval*: the range that holds the true value for about the chosen share (90 %) of similar molecules.\n"
         "- *Domain*: green = like the training molecules, amber = borderline, red = unlike them "
         "(the tooltip says why). Treat red values as guesses.\n"
         "- Values are shown to the digits their uncertainty supports; the export has them in full.\n\n"
         "**3. Status.** `ok`, or why a row was not predicted: the SMILES could not be read (syntax), "
         "the chemistry is impossible (e.g. a pentavalent carbon), the molecule is larger than the model "
         "allows, or the run was cancelled. One bad row never stops the others.\n\n"
         "**4. Model.** Two models come with the app (the Model panel): *accurate*, the default, and *fast*, "
         "a smaller student trained on accurate's predictions: several times faster for large files, a little "
         "less accurate (the panel gives both figures). The Compare tab's *Models* preset measures both on your molecules.\n\n"
         "**5. Settings.** Leave them as they are unless you need to:\n\n"
         "- *Device*: a GPU (cuda) when you have one; *server* sends the molecules to a lab prediction server.\n"
         "- *Precision*: FP32 is the reference. BF16/FP16 use less memory and may be faster on suitable hardware; "
         "INT8 shrinks the model; each changes the last digits. The Compare tab measures what each costs on your molecules.\n"
         "- *Batch size*: molecules run together. Larger is usually faster until memory runs out.\n"
         "- *Threads*: CPU cores used (0 = all).\n\n"
         "**6. Explain** (Ctrl+E) colours each atom by how much it moves the prediction. "
         "**Export** (Ctrl+S) writes a CSV and a `.json` record of the model and settings.\n\n"
         "**7. Train** fine-tunes a model on your own measured values (the Train tab).\n\n"
         "Mirror images: for a property that cannot tell enantiomers apart (the bundled models' eight properties), "
         "both enantiomers get the same value.\n")
          .arg(moleculeFileTypes());
}

QString modelCardMarkdown(const ModelCard& card) {
  const QFileInfo weights(card.path);
  const QDir dir = weights.isDir() ? QDir(card.path) : weights.dir();
  QFile md(dir.filePath(QStringLiteral("MODEL.md")));
  if (md.open(QIODevice::ReadOnly)) return QString::fromUtf8(md.readAll());
  QString text = QObject::tr("# %1\n\nThis model has no MODEL.md beside its weights.\n\n").arg(weights.fileName());
  if (!card.description.isEmpty()) text += card.description + QStringLiteral("\n\n");
  text += QObject::tr("- Outputs: %1\n- Layers %2, width %3, %4 heads, %5 parameters\n- SHA-256 `%6`\n")
              .arg(card.target_names.join(QStringLiteral(", ")))
              .arg(card.layers)
              .arg(card.embedding_dim)
              .arg(card.heads)
              .arg(card.parameters)
              .arg(card.sha256);
  return text;
}

QString aboutText(const ModelCard& card) {
  const auto libs = predict::libraryVersions();
  return QObject::tr(
             "<h3>Graphormer Studio %1</h3>"
             "<p>Molecular property prediction with Graphormer, a graph transformer.</p>"
             "<p><b>Model:</b> %2<br><b>Outputs:</b> %3</p>"
             "<p><b>Libraries:</b> LibTorch %4, RDKit %5, Qt %6, QCustomPlot 2.1</p>"
             "<p>MIT licence; the desktop program as distributed is GPL-3.0-or-later (QCustomPlot).</p>")
      .arg(QApplication::applicationVersion().toHtmlEscaped(),
           card.path.isEmpty() ? QObject::tr("none loaded") : card.path.toHtmlEscaped(),
           card.target_names.join(QStringLiteral(", ")).toHtmlEscaped(), QString::fromStdString(libs.libtorch),
           QString::fromStdString(libs.rdkit), QString::fromUtf8(qVersion()));
}

QWidget* showMarkdown(QWidget* parent, const QString& title, const QString& markdown, const QString& object_name) {
  auto* dialog = parent->findChild<QDialog*>(object_name);
  if (!dialog) {
    dialog = new QDialog(parent);
    dialog->setObjectName(object_name);
    dialog->resize(720, 640);
    auto* layout = new QVBoxLayout(dialog);
    auto* browser = new QTextBrowser;
    browser->setOpenExternalLinks(true);
    layout->addWidget(browser);
  }
  dialog->setWindowTitle(title);
  dialog->findChild<QTextBrowser*>()->setMarkdown(markdown);
  dialog->show();
  dialog->raise();
  return dialog;
}

void addHelpMenu(QMainWindow* window, std::function<ModelCard()> card) {
  auto* help = window->menuBar()->addMenu(QObject::tr("&Help"));
  help->addAction(QObject::tr("&Guide"), QKeySequence::HelpContents, window, [window] {
    showMarkdown(window, QObject::tr("Graphormer Studio guide"), guideMarkdown(), QStringLiteral("guideWindow"));
  });
  help->addAction(QObject::tr("&Model card"), window, [window, card] {
    showMarkdown(window, QObject::tr("Model card"), modelCardMarkdown(card()), QStringLiteral("modelCardWindow"));
  });
  help->addSeparator();
  help->addAction(QObject::tr("&About Graphormer Studio"), window, [window, card] {
    QMessageBox::about(window, QObject::tr("About Graphormer Studio"), aboutText(card()));
  });
}

}  // namespace gs::ui
