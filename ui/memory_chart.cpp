#include "memory_chart.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QVBoxLayout>

#include "qcustomplot_include.h"

namespace gs::ui {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kWindowSeconds = 120.0;

QCPGraph* addGraph(QCustomPlot* plot, QCPAxis* y, const QString& name, const QColor& color,
                   Qt::PenStyle style = Qt::SolidLine) {
  auto* g = plot->addGraph(plot->xAxis, y);
  g->setName(name);
  QPen pen(color);
  pen.setWidthF(2.0);
  pen.setStyle(style);
  g->setPen(pen);
  return g;
}

}  // namespace

MemoryChart::MemoryChart(std::shared_ptr<tensor::TensorMemoryTracker> tracker, QWidget* parent)
    : QWidget(parent), tracker_(std::move(tracker)), probe_(std::make_unique<tensor::MemoryProbe>(tracker_)) {
  plot_ = new QCustomPlot(this);
  view_ = new QComboBox;
  view_->setObjectName(QStringLiteral("chartView"));
  view_->addItems({tr("Last run, whole"), tr("Last two minutes")});
  view_->setToolTip(tr("The last (or current) run from its start, or a scrolling window of the last two minutes"));
  connect(view_, &QComboBox::currentIndexChanged, this, [this](int i) { setWholeRun(i == 0); });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_, 1);
  controls_ = new QHBoxLayout;
  controls_->addWidget(view_);
  controls_->addStretch(1);
  layout->addLayout(controls_);
  plot_->xAxis->setLabel(tr("time (s)"));
  plot_->yAxis->setLabel(tr("memory (MiB)"));
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("molecules / s"));
  tensor_ = addGraph(plot_, plot_->yAxis, tr("tensors"), QColor(0x1f, 0x77, 0xb4));
  tensor_peak_ = addGraph(plot_, plot_->yAxis, tr("tensor peak (run)"), QColor(0x1f, 0x77, 0xb4), Qt::DashLine);
  rss_ = addGraph(plot_, plot_->yAxis, tr("app memory (RSS)"), QColor(0x2c, 0xa0, 0x2c));
  reserved_ = addGraph(plot_, plot_->yAxis, tr("CUDA reserved"), QColor(0xff, 0x7f, 0x0e), Qt::DotLine);
  device_ = addGraph(plot_, plot_->yAxis, tr("GPU used (NVML)"), QColor(0x94, 0x67, 0xbd));
  for (auto* g : {reserved_, device_}) {
    g->setVisible(false);
    g->removeFromLegend();
  }
  rate_ = addGraph(plot_, plot_->yAxis2, tr("molecules / s"), QColor(0xd6, 0x27, 0x28));
  legendAbove(plot_);
  plot_->legend->setFont(QFont(font().family(), 8));
  plot_->setMinimumHeight(100);
  plot_->yAxis->ticker()->setTickCount(4);  // readable in a short dock
  plot_->yAxis2->ticker()->setTickCount(4);
  connect(&timer_, &QTimer::timeout, this, &MemoryChart::sample);
  timer_.start(1000);
}

void MemoryChart::setRunning(bool running) {
  if (running && !running_) {  // a new run: its own trace from t = 0
    run_.clear();
    run_t0_ = QDateTime::currentMSecsSinceEpoch() / 1000.0;
    if (whole_run_) refill();
  }
  running_ = running;
  if (running) tracker_->resetPeak();
  if (!running) throughput_ = 0;
  timer_.setInterval(running ? 100 : 1000);
  sample();
}

void MemoryChart::setCudaDevice(int device) {
  probe_ = std::make_unique<tensor::MemoryProbe>(tracker_, device);
  nameLines(device >= 0);
}

void MemoryChart::nameLines(bool gpu) {
  for (auto* g : {reserved_, device_}) {
    g->setVisible(gpu);
    if (gpu)
      g->addToLegend();
    else
      g->removeFromLegend();
  }
  const bool peak = !remote_ || gpu;  // a server on the CPU reports no tensor peak
  tensor_peak_->setVisible(peak);
  if (peak)
    tensor_peak_->addToLegend();
  else
    tensor_peak_->removeFromLegend();
  const QString who = remote_ ? tr("server ") : QString();
  tensor_->setName(who + (gpu ? tr("CUDA allocated") : tr("tensors")));
  tensor_peak_->setName(who + (gpu ? tr("CUDA peak allocated") : tr("tensor peak (run)")));
  rss_->setName(who + tr("app memory (RSS)"));
  device_->setName(who + tr("GPU used (NVML)"));
}

void MemoryChart::setRemote(bool remote) {
  if (remote == remote_) return;
  remote_ = remote;
  live_.clear();
  run_.clear();
  refill();
  nameLines(false);
}

void MemoryChart::addRemoteSample(const tensor::MemorySample& s, double molecules_per_second) {
  if (!remote_) return;
  if ((s.cuda_allocated_bytes >= 0) != reserved_->visible()) nameLines(s.cuda_allocated_bytes >= 0);
  plot(s, molecules_per_second);
}

void MemoryChart::sample() {
  if (remote_) return;  // the server's samples arrive through addRemoteSample
  plot(probe_->sample(), running_ ? throughput_ : 0.0);
}

void MemoryChart::plot(const tensor::MemorySample& s, double rate) {
  const double now = QDateTime::currentMSecsSinceEpoch() / 1000.0;
  if (t0_ < 0) t0_ = now;
  const Point live{now - t0_, s, rate};
  live_.push_back(live);
  while (!live_.empty() && live_.front().t < live.t - kWindowSeconds) live_.pop_front();
  if (running_) run_.push_back({now - run_t0_, s, rate});
  if (!whole_run_) {
    addPoint(live);
    for (auto* g : {tensor_, tensor_peak_, rss_, reserved_, device_, rate_})
      g->data()->removeBefore(live.t - kWindowSeconds);
    rescale(live.t);
  } else if (running_) {
    addPoint(run_.back());
    rescale(run_.back().t);
  }
  ++samples_;
}

void MemoryChart::addPoint(const Point& p) {
  const auto& s = p.sample;
  const bool gpu = s.cuda_allocated_bytes >= 0;
  const int64_t current = gpu ? s.cuda_allocated_bytes : s.tensor_bytes;
  const int64_t peak = gpu ? s.cuda_peak_allocated_bytes : s.tensor_peak_bytes;
  if (current >= 0) tensor_->addData(p.t, current / kMiB);
  if (peak >= 0) tensor_peak_->addData(p.t, peak / kMiB);
  if (s.rss_bytes >= 0) rss_->addData(p.t, s.rss_bytes / kMiB);
  if (s.cuda_reserved_bytes >= 0) reserved_->addData(p.t, s.cuda_reserved_bytes / kMiB);
  if (s.device_used_bytes >= 0) device_->addData(p.t, s.device_used_bytes / kMiB);
  rate_->addData(p.t, p.rate);
}

void MemoryChart::refill() {
  for (auto* g : {tensor_, tensor_peak_, rss_, reserved_, device_, rate_}) g->data()->clear();
  double last = 0;
  if (whole_run_) {
    for (const auto& p : run_) addPoint(p), last = p.t;
  } else {
    for (const auto& p : live_) addPoint(p), last = p.t;
  }
  rescale(last);
}

void MemoryChart::rescale(double t) {
  plot_->xAxis->setLabel(whole_run_ ? tr("time since the run started (s)") : tr("time (s)"));
  if (whole_run_)
    plot_->xAxis->setRange(0, std::max(1.0, t * 1.02));
  else
    plot_->xAxis->setRange(std::max(0.0, t - kWindowSeconds), std::max(10.0, t));
  plot_->yAxis->rescale(true);
  plot_->yAxis->setRangeLower(0);
  plot_->yAxis->setRangeUpper(std::max(16.0, plot_->yAxis->range().upper * 1.1));
  plot_->yAxis2->rescale(true);
  plot_->yAxis2->setRangeLower(0);
  plot_->yAxis2->setRangeUpper(std::max(10.0, plot_->yAxis2->range().upper * 1.1));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryChart::setWholeRun(bool whole) {
  whole_run_ = whole;
  if (view_->currentIndex() != (whole ? 0 : 1)) view_->setCurrentIndex(whole ? 0 : 1);
  refill();
}

void MemoryChart::addControl(QWidget* widget) { controls_->addWidget(widget); }

double MemoryChart::shownSeconds() const { return plot_->xAxis->range().size(); }

bool MemoryChart::savePng(const QString& path) {
  const double length = run_.empty() ? 0.0 : run_.back().t;
  const QString what = whole_run_ ? tr("last run (%1 s)").arg(length, 0, 'f', 1) : tr("last two minutes");
  plot_->plotLayout()->insertRow(0);
  auto* title = new QCPTextElement(plot_, tr("Graphormer Studio: memory and throughput, %1, %2")
                                              .arg(what, QDateTime::currentDateTime().toString(Qt::ISODate)));
  plot_->plotLayout()->addElement(0, 0, title);
  const bool ok = plot_->savePng(path, 0, 0, 2.0);
  plot_->plotLayout()->remove(title);
  plot_->plotLayout()->simplify();
  plot_->replot();
  return ok;
}

}  // namespace gs::ui
