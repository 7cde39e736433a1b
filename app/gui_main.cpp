// graphormer-studio: the desktop application. Parses its arguments and opens the main window.
#include <QApplication>
#include <QCommandLineParser>

#include "main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Graphormer Studio"));
  QApplication::setApplicationName(QStringLiteral("Graphormer Studio"));
  QApplication::setApplicationVersion(QStringLiteral(GS_VERSION));
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Molecular property prediction with Graphormer"));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption model({QStringLiteral("m"), QStringLiteral("model")},
                           QStringLiteral("Model file or directory (default: the bundled model)."), QStringLiteral("path"));
  QCommandLineOption input({QStringLiteral("i"), QStringLiteral("input")}, QStringLiteral("Molecule file to open."), QStringLiteral("file"));
  QCommandLineOption train(QStringLiteral("train"), QStringLiteral("Labelled file (CSV or SDF) to open in the Train tab."),
                           QStringLiteral("file"));
  QCommandLineOption targets(QStringLiteral("targets"), QStringLiteral("Target columns to tick in the Train tab (comma-separated)."),
                             QStringLiteral("columns"));
  for (const auto& option : {model, input, train, targets}) parser.addOption(option);
  parser.process(app);
  gs::ui::MainWindow window(parser.value(model));
  if (parser.isSet(input)) window.setInputFile(parser.value(input));
  if (parser.isSet(train))
    window.openTraining(parser.value(train), parser.value(targets).split(QLatin1Char(','), Qt::SkipEmptyParts));
  window.resize(1400, 900);
  window.show();
  return QApplication::exec();
}
