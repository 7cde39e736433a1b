// graphormer-studio: the desktop application. Parses its arguments and opens the main window.
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTextStream>
#include <cstring>

#include "data/file_format.h"
#include "main_window.h"
#include "version.h"

namespace {

struct Options {
  QCommandLineOption model{{QStringLiteral("m"), QStringLiteral("model")},
                           QStringLiteral("Model file or directory (default: the bundled model)."),
                           QStringLiteral("path")};
  QCommandLineOption input{
      {QStringLiteral("i"), QStringLiteral("input")}, QStringLiteral("Molecule file to open."), QStringLiteral("file")};
  QCommandLineOption train{QStringLiteral("train"),
                           QStringLiteral("Labelled file (CSV or SDF) to open in the Train tab."),
                           QStringLiteral("file")};
  QCommandLineOption targets{QStringLiteral("targets"),
                             QStringLiteral("Target columns to tick in the Train tab (comma-separated)."),
                             QStringLiteral("columns")};
  QCommandLineOption version{
      {QStringLiteral("v"), QStringLiteral("version")},
      QStringLiteral("Print the version, the git revision and the LibTorch, RDKit and Qt versions.")};
};

void configure(QCoreApplication& app, QCommandLineParser& parser, const Options& o) {
  QCoreApplication::setOrganizationName(QStringLiteral("Graphormer Studio"));
  QCoreApplication::setApplicationName(QStringLiteral("Graphormer Studio"));
  QCoreApplication::setApplicationVersion(QStringLiteral(GS_VERSION));
  parser.setApplicationDescription(
      QStringLiteral(
          "Molecular property prediction with Graphormer: paste SMILES or open molecule files (%1; also compressed: %2), "
          "predict with the bundled model or your own, compare precisions and memory, explain, "
          "and fine-tune on your own data.")
          .arg(QString::fromStdString(gs::data::extensionList()), QString::fromStdString(gs::data::compressionList())));
  parser.addHelpOption();
  for (const auto& option : {o.model, o.input, o.train, o.targets, o.version}) parser.addOption(option);
  parser.addPositionalArgument(
      QStringLiteral("file"),
      QStringLiteral("Molecule file to open, as from a file manager: the app offers to predict it."),
      QStringLiteral("[file]"));
  parser.process(app);
}

// --help and --version print text and exit: they need no display, so they run before any window
// system is touched (package builds generate the manual page from --help on machines without one).
bool printsOnly(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"-h", "--help", "--help-all", "-v", "--version"})
      if (!std::strcmp(argv[i], flag)) return true;
  return false;
}

int printText(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser parser;
  Options o;
  configure(app, parser, o);  // --help prints and exits here
  const std::string qt = std::string("Qt ") + qVersion() + " (built with " + QT_VERSION_STR + ")";
  QTextStream(stdout) << QString::fromStdString(gs::app::versionText("graphormer-studio", qt));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (printsOnly(argc, argv)) return printText(argc, argv);
  QApplication app(argc, argv);
  // The installed desktop entry and icon (packaging/desktop): window managers match the window to
  // its menu entry by this name, and the theme icon is there once the package is installed.
  QGuiApplication::setDesktopFileName(QStringLiteral("org.graphormerstudio.GraphormerStudio"));
  QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("org.graphormerstudio.GraphormerStudio")));
  QCommandLineParser parser;
  Options o;
  configure(app, parser, o);
  gs::ui::MainWindow window(parser.value(o.model));
  const QStringList files = parser.positionalArguments();
  if (!files.isEmpty()) {
    if (files.size() > 1)
      QTextStream(stderr) << "graphormer-studio: opens one file at a time; opening " << files.front() << "\n";
    window.offerToPredict(files.front());
  } else if (parser.isSet(o.input)) {
    window.setInputFile(parser.value(o.input));
  }
  if (parser.isSet(o.train))
    window.openTraining(parser.value(o.train), parser.value(o.targets).split(QLatin1Char(','), Qt::SkipEmptyParts));
  window.show();
  return QApplication::exec();
}
