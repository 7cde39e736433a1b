#pragma once
// Live memory chart (QCustomPlot): tensor memory (current and peak of the run) and process RSS on
// the CPU; the CUDA allocator's allocated/reserved bytes and the device's used memory (NVML) on a
// GPU; molecules/s on the right axis. Samples 10 times a second while a run is active and once a
// second when idle. Two views: the last (or current) run whole, on time since it started — the
// default, so a ten-molecule run is as visible as a long one and a chart saved later still shows
// it — or the last two minutes on a scrolling axis. With a prediction server as the device it
// plots the server's memory and throughput instead (from its /v1/status).
#include <QTimer>
#include <QWidget>

#include <deque>
#include <memory>
#include <vector>

#include "tensor/memory_probe.h"

class QComboBox;
class QHBoxLayout;
class QCustomPlot;
class QCPGraph;

namespace gs::ui {

class MemoryChart final : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryChart(std::shared_ptr<tensor::TensorMemoryTracker> tracker, QWidget* parent = nullptr);

  void setRunning(bool running);
  void setThroughput(double molecules_per_second) { throughput_ = molecules_per_second; }
  void setCudaDevice(int device);  // -1 = CPU run
  // Remote: the chart plots the prediction server's samples (addRemoteSample) instead of this
  // process's, with the lines named for the server.
  void setRemote(bool remote);
  bool remote() const { return remote_; }
  void addRemoteSample(const tensor::MemorySample& sample, double molecules_per_second);
  // Saves the chart under a title (the view, the run's length, the date).
  bool savePng(const QString& path);
  int sampleCount() const { return samples_; }
  // True: the last run whole (time since it started); false: the last two minutes.
  void setWholeRun(bool whole);
  bool wholeRun() const { return whole_run_; }
  // A control of the window's (Save chart...) in the row under the chart, beside the view selector.
  void addControl(QWidget* widget);
  // Seconds the plotted x axis spans (tests).
  double shownSeconds() const;

 public Q_SLOTS:
  void sample();

 private:
  struct Point {
    double t;
    tensor::MemorySample sample;
    double rate;
  };
  void plot(const tensor::MemorySample& s, double rate);
  void addPoint(const Point& p);
  void refill();  // the graphs from the points of the current view
  void rescale(double t);
  void nameLines(bool gpu);
  std::shared_ptr<tensor::TensorMemoryTracker> tracker_;
  std::unique_ptr<tensor::MemoryProbe> probe_;
  QCustomPlot* plot_ = nullptr;
  QCPGraph *tensor_ = nullptr, *tensor_peak_ = nullptr, *rss_ = nullptr, *reserved_ = nullptr, *device_ = nullptr,
           *rate_ = nullptr;
  QTimer timer_;
  double t0_ = -1, run_t0_ = -1;
  std::deque<Point> live_;  // the last two minutes
  std::vector<Point> run_;  // the last (or current) run, t since it started
  bool whole_run_ = true;
  QComboBox* view_ = nullptr;
  QHBoxLayout* controls_ = nullptr;
  double throughput_ = 0;
  bool running_ = false;
  bool remote_ = false;
  int samples_ = 0;
};

}  // namespace gs::ui
