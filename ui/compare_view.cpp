#include "compare_view.h"

#include "jobs/bench_report.h"

#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "common/resources.h"
#include "qcustomplot_include.h"

namespace gs::ui {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
const char* kClassic = "fp32,bf16,fp32+ckpt=1,bf16+ckpt=1,int8";
const char* kBatchSweep = "fp32+bs=1,fp32+bs=8,fp32+bs=32,fp32+bs=128";

QColor modeColor(int i) {
  static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                  QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                  QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f)};
  return colors[i % 8];
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  modes_ = new QLineEdit(QString::fromLatin1(kClassic));
  modes_->setToolTip(
      tr("The modes to measure, comma-separated: a precision (fp32, bf16, fp16 or int8), optionally +ckpt=R "
         "(the share of layers recomputed instead of stored, 0 to 1) and +bs=N (molecules per batch). "
         "Example: bf16+ckpt=0.5+bs=64; bf16@fast runs the bundled fast model instead (a name or a path). "
         "The same syntax as graphormer-cli bench --modes."));
  auto* classic = new QPushButton(tr("Classic modes"));
  classic->setToolTip(tr("FP32, mixed precision (BF16), checkpointing, both, and INT8"));
  connect(classic, &QPushButton::clicked, this, [this] { modes_->setText(QString::fromLatin1(kClassic)); });
  auto* sweep = new QPushButton(tr("Batch-size sweep"));
  connect(sweep, &QPushButton::clicked, this, [this] { modes_->setText(QString::fromLatin1(kBatchSweep)); });
  auto* models = new QPushButton(tr("Models"));
  models->setObjectName(QStringLiteral("modelsPreset"));
  models->setToolTip(tr("Every bundled model (accurate, fast) in FP32 and BF16 on the current molecules: speed, "
                        "memory and how far each differs from the loaded model, in each property's unit"));
  connect(models, &QPushButton::clicked, this, [this] { modes_->setText(modelsPreset()); });
  workload_ = new QComboBox;
  workload_->addItem(tr("Inference (prediction)"), QStringLiteral("inference"));
  workload_->addItem(tr("Forward + backward (fine-tuning)"), QStringLiteral("train"));
  repeats_ = new QSpinBox;
  repeats_->setRange(1, 50);
  repeats_->setValue(3);
  max_molecules_ = new QSpinBox;
  max_molecules_->setRange(1, 1000000);
  max_molecules_->setValue(256);
  run_ = new QPushButton(tr("Compare"));
  run_->setStyleSheet(QStringLiteral("font-weight: bold"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setEnabled(false);
  auto* export_csv = new QPushButton(tr("Export CSV..."));
  auto* export_png = new QPushButton(tr("Save charts as PNG..."));
  status_ =
      new QLabel(tr("Measures each mode on the current molecules (the input on the left). "
                    "Checkpointing changes memory only in the fine-tuning workload."));
  status_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buildForm({classic, sweep, models}));
  layout->addWidget(buildCharts(), 1);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(status_, 1);
  buttons->addWidget(export_csv);
  buttons->addWidget(export_png);
  layout->addLayout(buttons);
  connectActions(export_csv, export_png);
  redraw();
}

QString CompareView::modelsPreset() {
  std::vector<std::string> names;
  for (const auto& m : bundledModels()) names.push_back(m.name);
  QStringList modes;
  for (const auto& mode : engine::modelModes(names, 0))
    modes << QString::fromLatin1(tensor::precisionName(mode.precision)) + QLatin1Char('@') +
                 QString::fromStdString(mode.model);  // the run settings' batch size
  return modes.join(QLatin1Char(','));
}

QLayout* CompareView::buildForm(const std::vector<QWidget*>& presets) {
  auto* form = new QFormLayout;
  auto* mode_row = new QHBoxLayout;
  mode_row->addWidget(modes_, 1);
  for (QWidget* preset : presets) mode_row->addWidget(preset);
  form->addRow(tr("Modes"), mode_row);
  auto* opts = new QHBoxLayout;
  opts->addWidget(workload_);
  opts->addWidget(new QLabel(tr("Repeats")));
  opts->addWidget(repeats_);
  opts->addWidget(new QLabel(tr("Molecules (first)")));
  opts->addWidget(max_molecules_);
  opts->addStretch(1);
  opts->addWidget(run_);
  opts->addWidget(cancel_);
  form->addRow(tr("Workload"), opts);
  return form;
}

QWidget* CompareView::buildCharts() {
  bars_ = new QCustomPlot;
  bars_->setMinimumHeight(150);
  legendAbove(bars_);
  traces_ = new QCustomPlot;
  traces_->setMinimumHeight(170);  // room for a legend of up to three rows
  legendAbove(traces_);
  traces_->legend->setWrap(2);  // two modes a row: the modes are named in words and run long
  table_ = new QTableWidget;
  table_->setColumnCount(8);
  setOutputs({}, {});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);

  auto* charts = new QSplitter(Qt::Vertical);
  charts->addWidget(bars_);
  charts->addWidget(table_);
  charts->addWidget(traces_);
  charts->setSizes({190, 240, 130});
  return charts;
}

void CompareView::connectActions(QPushButton* export_csv, QPushButton* export_png) {
  connect(run_, &QPushButton::clicked, this, [this] {
    // Batch size 0: modes without +bs=N take the run settings' batch size.
    auto parsed = engine::parseModes(modes_->text().toStdString(), 0);
    auto workload = engine::parseWorkload(workload_->currentData().toString().toStdString());
    for (const Status& s : {parsed.status(), workload.status()})
      if (!s.isOk()) return status_->setText(QString::fromStdString(s.message()));
    CompareRequest r;
    r.modes = parsed.value();
    r.workload = workload.value();
    r.repeats = repeats_->value();
    r.max_molecules = max_molecules_->value();
    Q_EMIT runRequested(r);
  });
  connect(cancel_, &QPushButton::clicked, this, &CompareView::cancelRequested);
  connect(export_csv, &QPushButton::clicked, this, [this] {
    const QString path =
        guard_->askSavePath(this, tr("Export comparison"), QStringLiteral("comparison.csv"), tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportCsv(path, &error)) QMessageBox::warning(this, tr("Export"), error);
  });
  connect(export_png, &QPushButton::clicked, this, [this] {
    const QString path =
        guard_->askSavePath(this, tr("Save charts"), QStringLiteral("comparison.png"), tr("PNG (*.png)"));
    QString error;
    if (!path.isEmpty() && !savePng(path, &error)) QMessageBox::warning(this, tr("Save charts"), error);
  });
}

void CompareView::started(int modes) {
  results_.clear();
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  status_->setText(tr("Preparing %1 modes (FP32 reference first)...").arg(modes));
  redraw();
}

void CompareView::modeStarted(int index, int modes, const QString& label) {
  auto parsed = engine::parseModes(label.toStdString());
  const QString words =
      parsed.isOk() && parsed.value().size() == 1 ? QString::fromStdString(parsed.value()[0].description()) : label;
  status_->setText(tr("Measuring mode %1 of %2: %3").arg(index + 1).arg(modes).arg(words));
}

void CompareView::modeDone(const engine::ModeResult& result) {
  results_.push_back(result);
  redraw();
}

void CompareView::finished(const QString& message) {
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  status_->setText(message);
}

void CompareView::setOutputs(const QStringList& names, const QStringList& units) {
  output_names_ = names;
  output_units_ = units;
  const QString unit = units.value(0);
  QString u = unit.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(unit);
  if (names.size() > 1) u = QStringLiteral(", %1").arg(names.first()) + u;
  table_->setHorizontalHeaderLabels({tr("Mode"), tr("ms / molecule"), tr("molecules / s"), tr("Peak tensor MiB"),
                                     tr("Peak RSS MiB"), tr("max |Δ| vs FP32") + u, tr("mean |Δ| vs FP32") + u,
                                     tr("Note")});
  const QString tips[] = {
      tr("Precision (FP32; BF16/FP16 = half-size numbers; INT8 = 8-bit weights), the share of layers recomputed instead of "
         "stored (saves memory only when gradients are computed) and the molecules per batch. The tooltip of each row gives "
         "the mode as graphormer-cli bench --modes writes it."),
      tr("Milliseconds per molecule, median of the repeats (lower is faster)"),
      tr("Molecules per second (higher is faster)"),
      tr("Largest memory the model's numbers took at once (the part precision and checkpointing change)"),
      tr("Largest memory of the whole app while this mode ran (includes the libraries and the molecules)"),
      tr("Largest difference of a prediction from the loaded model's FP32 prediction of the same molecule (the first "
         "output; each cell's tooltip lists every output in its unit). For a row of another model (@fast) it is the "
         "difference between the two models"),
      tr("Average difference of the predictions from the loaded model's FP32 predictions (the first output; each "
         "cell's tooltip lists every output; for another model's row, the two models' difference)"),
      tr("Why a mode could not run, or what to keep in mind")};
  for (int c = 0; c < table_->columnCount(); ++c) table_->horizontalHeaderItem(c)->setToolTip(tips[c]);
}

void CompareView::redraw() {
  drawBars();
  fillTable();
  drawTraces();
}

void CompareView::drawBars() {
  // Grouped bars: peak tensor memory (left axis) and ms per molecule (right axis) per mode.
  bars_->clearPlottables();
  bars_->legend->setVisible(true);
  QVector<double> ticks, memory, time;
  QVector<QString> labels;
  for (size_t i = 0; i < results_.size(); ++i) {
    const auto& r = results_[i];
    ticks << double(i + 1);
    labels << QString::fromStdString(r.mode.description("\n")) + (r.status.isOk() ? QString() : tr("\n(unavailable)"));
    memory << (r.status.isOk() ? r.peak_tensor_bytes / kMiB : 0.0);
    time << (r.status.isOk() ? r.ms_per_molecule : 0.0);
  }
  auto* mem = new QCPBars(bars_->xAxis, bars_->yAxis);
  mem->setName(tr("peak tensor memory (MiB)"));
  mem->setBrush(QColor(0x1f, 0x77, 0xb4, 200));
  mem->setPen(Qt::NoPen);
  auto* ms = new QCPBars(bars_->xAxis, bars_->yAxis2);
  ms->setName(tr("ms per molecule"));
  ms->setBrush(QColor(0xff, 0x7f, 0x0e, 200));
  ms->setPen(Qt::NoPen);
  auto* group = new QCPBarsGroup(bars_);
  for (auto* b : {mem, ms}) {
    b->setWidth(0.35);
    b->setBarsGroup(group);
  }
  mem->setData(ticks, memory);
  ms->setData(ticks, time);
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  ticker->addTicks(ticks, labels);
  bars_->xAxis->setTicker(ticker);
  bars_->xAxis->setRange(0.4, std::max<double>(1, results_.size()) + 0.6);
  bars_->yAxis->setLabel(tr("peak tensor memory (MiB)"));
  bars_->yAxis2->setVisible(true);
  bars_->yAxis2->setLabel(tr("ms per molecule"));
  double max_mem = 1, max_ms = 0.01;
  for (double v : memory) max_mem = std::max(max_mem, v);
  for (double v : time) max_ms = std::max(max_ms, v);
  bars_->yAxis->setRange(0, max_mem * 1.15);
  bars_->yAxis2->setRange(0, max_ms * 1.15);
  bars_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  bars_->replot(QCustomPlot::rpQueuedReplot);
}

QString CompareView::outputDeltas(const std::vector<double>& deltas) const {
  QStringList lines;
  for (size_t j = 0; j < deltas.size(); ++j) {
    const int k = static_cast<int>(j);
    const QString name = output_names_.value(k, QStringLiteral("output %1").arg(k));
    lines << QStringLiteral("%1: %2 %3").arg(name, QString::number(deltas[j], 'g', 3), output_units_.value(k));
  }
  return lines.join(QLatin1Char('\n')).trimmed();
}

void CompareView::fillTable() {
  table_->setRowCount(static_cast<int>(results_.size()));
  for (size_t i = 0; i < results_.size(); ++i) {
    const auto& r = results_[i];
    const int row = static_cast<int>(i);
    auto set = [&](int c, const QString& text) {
      auto* item = new QTableWidgetItem(text);
      if (c > 0 && c < 7) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(row, c, item);
    };
    set(0, QString::fromStdString(r.mode.description()));
    table_->item(row, 0)->setToolTip(
        tr("As a mode for graphormer-cli bench --modes: %1").arg(QString::fromStdString(r.mode.label())));
    if (!r.status.isOk()) {
      for (int c = 1; c < 7; ++c) set(c, QStringLiteral("—"));
      set(7, QString::fromStdString(r.status.message()));
      continue;
    }
    set(1, QString::number(r.ms_per_molecule, 'f', 3));
    set(2, QString::number(r.molecules_per_s, 'f', 1));
    set(3, QString::number(r.peak_tensor_bytes / kMiB, 'f', 1));
    set(4, QString::number(r.peak_rss_bytes / kMiB, 'f', 1));
    set(5, QString::number(r.output_max_abs_delta.empty() ? 0.0 : r.output_max_abs_delta[0], 'g', 3));
    set(6, QString::number(r.output_mean_abs_delta.empty() ? 0.0 : r.output_mean_abs_delta[0], 'g', 3));
    table_->item(row, 5)->setToolTip(outputDeltas(r.output_max_abs_delta));
    table_->item(row, 6)->setToolTip(outputDeltas(r.output_mean_abs_delta));
    const bool inference_ckpt = r.workload == engine::Workload::Inference && r.mode.checkpoint_ratio > 0;
    set(7, inference_ckpt ? tr("checkpointing has no effect without gradients") : QString());
  }
  table_->resizeColumnsToContents();
  fitTableToRows();
}

void CompareView::drawTraces() {
  // Memory traces: each batch's peak tensor memory over the mode's last timed pass.
  traces_->clearGraphs();
  traces_->legend->setVisible(true);
  traces_->legend->setFont(QFont(font().family(), 8));
  double max_t = 0.01, max_y = 1;
  for (size_t i = 0; i < results_.size(); ++i) {
    const auto& r = results_[i];
    if (!r.status.isOk() || r.trace_seconds.empty()) continue;
    auto* g = traces_->addGraph();
    g->setName(QString::fromStdString(r.mode.description()));
    g->setPen(QPen(modeColor(static_cast<int>(i)), 2));
    g->setLineStyle(QCPGraph::lsStepLeft);
    for (size_t k = 0; k < r.trace_seconds.size(); ++k) {
      g->addData(r.trace_seconds[k], r.trace_tensor_bytes[k] / kMiB);
      max_y = std::max(max_y, r.trace_tensor_bytes[k] / kMiB);
    }
    max_t = std::max(max_t, r.trace_seconds.back());
  }
  traces_->xAxis->setLabel(tr("time in the timed pass (s)"));
  traces_->yAxis->setLabel(tr("batch peak (MiB)"));
  traces_->xAxis->setRange(0, max_t * 1.05);
  traces_->yAxis->setRange(0, max_y * 1.15);
  traces_->replot(QCustomPlot::rpQueuedReplot);
}

void CompareView::fitTableToRows() {
  // Every mode's row visible without scrolling (up to 8 modes); the charts give way.
  const int rows = std::clamp(table_->rowCount(), 3, 8);
  const int row_height = table_->verticalHeader()->defaultSectionSize();
  const int wanted =
      table_->horizontalHeader()->height() + rows * row_height + table_->horizontalScrollBar()->sizeHint().height() + 4;
  table_->setMinimumHeight(wanted);
}

bool CompareView::exportCsv(const QString& path, QString* error) const {
  if (const QString why = guard_->problem(path); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  const Status s = jobs::writeComparisonCsv(path.toStdString(), results_);
  if (!s.isOk() && error) *error = QString::fromStdString(s.toString());
  return s.isOk();
}

bool CompareView::savePng(const QString& path, QString* error) const {
  if (const QString why = guard_->problem(path); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  // Both charts stacked in one image under a title that says what was measured, on what, when.
  const QPixmap top = bars_->toPixmap(bars_->width(), bars_->height(), 2.0);
  const QPixmap bottom = traces_->toPixmap(traces_->width(), traces_->height(), 2.0);
  const int title_height = 90;
  QPixmap out(std::max(top.width(), bottom.width()), title_height + top.height() + bottom.height());
  out.fill(Qt::white);
  QPainter p(&out);
  QFont font = p.font();
  font.setPixelSize(28);
  p.setFont(font);
  p.drawText(QRect(20, 0, out.width() - 40, title_height), Qt::AlignVCenter | Qt::TextWordWrap,
             tr("Graphormer Studio: mode comparison, %1\n%2")
                 .arg(QDateTime::currentDateTime().toString(Qt::ISODate), status_->text()));
  p.drawPixmap(0, title_height, top);
  p.drawPixmap(0, title_height + top.height(), bottom);
  p.end();
  if (out.save(path, "PNG")) return true;
  if (error) *error = tr("Could not write %1").arg(path);
  return false;
}

}  // namespace gs::ui
