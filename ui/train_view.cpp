#include "train_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "depiction.h"
#include "qcustomplot_include.h"

namespace gs::ui {
namespace {

const QColor kColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                          QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd)};

QCustomPlot* plot(const QString& x, const QString& y) {
  auto* p = new QCustomPlot;
  p->xAxis->setLabel(x);
  p->yAxis->setLabel(y);
  p->setMinimumHeight(160);
  p->legend->setFont(QFont(p->font().family(), 8));
  return p;
}

QString duration(double seconds) {
  const int s = static_cast<int>(std::lround(seconds));
  return s >= 3600 ? QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60)
         : s >= 60 ? QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60)
                   : QStringLiteral("%1 s").arg(s);
}

QString number(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("–"); }

}  // namespace

TrainView::TrainView(QWidget* parent) : QWidget(parent) {
  pages_ = new QTabWidget;
  pages_->addTab(buildLive(), tr("Training"));
  pages_->addTab(buildResults(), tr("Results"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(pages_);
  replot_timer_.setInterval(100);
  connect(&replot_timer_, &QTimer::timeout, this, &TrainView::replot);
  replot_timer_.start();
}

QWidget* TrainView::buildLive() {
  auto* box = new QWidget;
  auto* layout = new QVBoxLayout(box);
  progress_label_ = new QLabel(tr("Not started"));
  bar_ = new QProgressBar;
  auto* plots = new QVBoxLayout;
  loss_plot_ = plot(tr("step"), tr("loss (normalised)"));
  loss_ = loss_plot_->addGraph();
  loss_->setPen(QPen(kColors[0]));
  mae_plot_ = plot(tr("epoch"), tr("validation MAE"));
  mae_plot_->legend->setVisible(true);
  best_ = mae_plot_->addGraph();
  best_->setName(tr("best epoch"));
  best_->setLineStyle(QCPGraph::lsNone);
  best_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, Qt::black, 14));
  mae_plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  plots->addWidget(loss_plot_);
  plots->addWidget(mae_plot_);
  log_ = new QPlainTextEdit;
  log_->setReadOnly(true);
  log_->setMaximumHeight(120);
  layout->addWidget(progress_label_);
  layout->addWidget(bar_);
  layout->addLayout(plots, 1);
  layout->addWidget(log_);
  return box;
}

QWidget* TrainView::buildResults() {
  auto* box = new QWidget;
  auto* layout = new QVBoxLayout(box);
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  table_ = new QTableWidget;
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->setMaximumHeight(140);
  auto* plots = new QHBoxLayout;
  parity_plot_ = plot(tr("true"), tr("predicted"));
  parity_plot_->setMouseTracking(true);
  connect(parity_plot_, &QCustomPlot::mouseMove, this, &TrainView::hoverParity);
  size_plot_ = plot(tr("heavy atoms (test molecules)"), tr("test MAE"));
  auto* hover = new QVBoxLayout;
  hover_picture_ = new QLabel;
  hover_picture_->setFixedSize(150, 110);
  hover_text_ = new QLabel(tr("Hover over a point to see the molecule"));
  hover_text_->setWordWrap(true);
  hover_text_->setMaximumWidth(150);
  hover->addWidget(hover_picture_);
  hover->addWidget(hover_text_);
  hover->addStretch(1);
  plots->addWidget(parity_plot_, 3);
  plots->addLayout(hover);
  plots->addWidget(size_plot_, 2);
  for (auto* axis : {parity_plot_->xAxis, parity_plot_->yAxis}) axis->ticker()->setTickCount(4);
  size_plot_->xAxis->setTickLabelRotation(60);
  trust_ = new QLabel;
  trust_->setWordWrap(true);
  command_ = new QPlainTextEdit;
  command_->setReadOnly(true);
  command_->setMaximumHeight(60);
  auto* copy = new QPushButton(tr("Copy command line"));
  connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(command_line_); });
  auto* command_row = new QHBoxLayout;
  command_row->addWidget(command_, 1);
  command_row->addWidget(copy);
  layout->addWidget(summary_);
  layout->addWidget(table_);
  layout->addLayout(plots, 1);
  layout->addWidget(trust_);
  layout->addLayout(command_row);
  return box;
}

void TrainView::start(const QStringList& targets, const QString& command_line, bool resumed) {
  pages_->setCurrentIndex(0);
  if (!resumed) {
    steps_seen_ = 0;
    loss_->data()->clear();
    best_->data()->clear();
    for (auto* g : mae_) mae_plot_->removeGraph(g);
    mae_.clear();
    for (int j = 0; j < targets.size(); ++j) {
      auto* g = mae_plot_->addGraph();
      g->setName(targets[j]);
      g->setPen(QPen(kColors[j % 5], 2));
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
      mae_.push_back(g);
    }
    log_->clear();
  }
  command_line_ = command_line;
  command_->setPlainText(command_line);
  addNote(resumed ? tr("resumed") : tr("started: %1").arg(command_line));
  dirty_ = true;
}

void TrainView::addStep(const StepPoint& p) {
  loss_->addData(double(++steps_seen_), p.loss);
  bar_->setRange(0, static_cast<int>(p.total));
  bar_->setValue(static_cast<int>(p.step));
  progress_label_->setText(tr("step %1 of %2 · %3 molecules/s · ETA %4 · passes of %5, checkpoint ratio %6")
                               .arg(p.step)
                               .arg(p.total)
                               .arg(p.molecules_per_second, 0, 'f', 0)
                               .arg(duration(p.eta_seconds))
                               .arg(p.micro_batch)
                               .arg(p.checkpoint_ratio, 0, 'f', 2));
  dirty_ = true;
}

void TrainView::addEpoch(const EpochPoint& p) {
  if (p.snapshot > 0) {
    addNote(tr("snapshot %1, epoch %2: training loss %3").arg(p.snapshot).arg(p.epoch).arg(number(p.train_loss)));
    return;
  }
  for (size_t j = 0; j < mae_.size() && j < p.valid_mae_per_target.size(); ++j)
    mae_[j]->addData(p.epoch, p.valid_mae_per_target[j]);
  if (p.improved) {
    best_->data()->clear();
    best_->addData(p.epoch, p.valid_mae);
  }
  addNote(tr("epoch %1: training loss %2, validation MAE %3 (%4 s)%5")
              .arg(p.epoch)
              .arg(number(p.train_loss))
              .arg(number(p.valid_mae))
              .arg(p.seconds, 0, 'f', 1)
              .arg(p.improved ? QStringLiteral(" *") : QString()));
  dirty_ = true;
}

void TrainView::addNote(const QString& text) { log_->appendPlainText(text); }

void TrainView::showOutcome(const TrainOutcome& o) {
  summary_->setText((o.cancelled ? tr("Cancelled: Resume continues from the last step. ") : QString()) + o.summary +
                    (o.memory_note.isEmpty() ? QString() : tr("\nMemory: %1").arg(o.memory_note)));
  command_line_ = o.command_line;
  command_->setPlainText(o.command_line);
  table_->clear();
  table_->setRowCount(static_cast<int>(o.methods.size()));
  QStringList header{tr("method")};
  for (const auto& t : o.targets) header << tr("%1 valid MAE").arg(t) << tr("%1 test MAE").arg(t);
  table_->setColumnCount(header.size());
  table_->setHorizontalHeaderLabels(header);
  for (int r = 0; r < static_cast<int>(o.methods.size()); ++r) {
    const auto& m = o.methods[r];
    table_->setItem(r, 0, new QTableWidgetItem(m.method == QLatin1String("model") ? tr("this model") : m.method));
    for (int j = 0; j < o.targets.size() && j < static_cast<int>(m.valid.size()); ++j) {
      for (int k = 0; k < 2; ++k) {
        const double v = (k == 0 ? m.valid : m.test)[j];
        auto* item = new QTableWidgetItem(number(v));
        item->setData(Qt::UserRole, v);  // the value unrounded
        table_->setItem(r, 1 + 2 * j + k, item);
      }
    }
  }
  table_->resizeColumnsToContents();
  parity_ = o.parity;
  parity_plot_->clearGraphs();
  auto* points = parity_plot_->addGraph();
  points->setLineStyle(QCPGraph::lsNone);
  points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kColors[0], 5));
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : parity_) {
    points->addData(p.truth, p.predicted);
    lo = std::min({lo, p.truth, p.predicted});
    hi = std::max({hi, p.truth, p.predicted});
  }
  if (lo < hi) {
    auto* diagonal = parity_plot_->addGraph();
    diagonal->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    diagonal->addData(lo, lo);
    diagonal->addData(hi, hi);
    parity_plot_->xAxis->setRange(lo, hi);
    parity_plot_->yAxis->setRange(lo, hi);
  }
  parity_plot_->xAxis->setLabel(o.targets.isEmpty() ? tr("true")
                                                    : tr("true %1 (test molecules)").arg(o.targets.front()));
  parity_plot_->replot();
  size_plot_->clearPlottables();
  auto* bars = new QCPBars(size_plot_->xAxis, size_plot_->yAxis);
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < static_cast<int>(o.error_by_size.size()); ++i) {
    bars->addData(i + 1, o.error_by_size[i].second);
    ticker->addTick(i + 1, o.error_by_size[i].first);
  }
  size_plot_->xAxis->setTicker(ticker);
  size_plot_->rescaleAxes();
  size_plot_->xAxis->setRange(0.4, o.error_by_size.size() + 0.6);
  size_plot_->yAxis->setRangeLower(0);
  size_plot_->replot();
  trust_->setText(o.trust);
  if (!o.cancelled) pages_->setCurrentIndex(1);
}

void TrainView::hoverParity(QMouseEvent* event) {
  if (parity_.empty()) return;
  const double x = parity_plot_->xAxis->pixelToCoord(event->pos().x()),
               y = parity_plot_->yAxis->pixelToCoord(event->pos().y());
  const double sx = parity_plot_->xAxis->range().size(), sy = parity_plot_->yAxis->range().size();
  size_t best = 0;
  double best_d = INFINITY;
  for (size_t i = 0; i < parity_.size(); ++i) {
    const double d = std::hypot((parity_[i].truth - x) / sx, (parity_[i].predicted - y) / sy);
    if (d < best_d) best_d = d, best = i;
  }
  if (best_d > 0.05) return;
  const auto& p = parity_[best];
  hover_picture_->setPixmap(depictionPixmap(p.smiles.toStdString(), hover_picture_->size(), 25.0));
  hover_text_->setText(tr("%1\n%2\ntrue %3, predicted %4, %5 heavy atoms")
                           .arg(p.id, p.smiles, number(p.truth), number(p.predicted))
                           .arg(p.heavy_atoms));
}

void TrainView::replot() {
  if (!dirty_) return;
  dirty_ = false;
  loss_plot_->rescaleAxes();
  mae_plot_->rescaleAxes();
  mae_plot_->xAxis->setRange(mae_plot_->xAxis->range().lower - 0.5, mae_plot_->xAxis->range().upper + 0.5);
  mae_plot_->yAxis->setRange(0, mae_plot_->yAxis->range().upper * 1.08);
  loss_plot_->replot(QCustomPlot::rpQueuedReplot);
  mae_plot_->replot(QCustomPlot::rpQueuedReplot);
}

int TrainView::lossPoints() const { return loss_->dataCount(); }

int TrainView::maePoints() const {
  int n = 0;
  for (auto* g : mae_) n += g->dataCount();
  return n;
}

}  // namespace gs::ui
