#pragma once
// The app's model thread and the jobs that run on it, one class per job with a typed request:
//   ModelWorker   load a model                       (model_session.h)
//   PredictWorker predict the input here             (predict_worker.h,  PredictRequest)
//   RemoteWorker  predict the input on a server      (remote_worker.h,   RemoteRequest)
//   CompareWorker compare optimisation modes         (compare_worker.h,  CompareRequest)
//   ExplainWorker atom attributions for some rows    (explain_worker.h,  ExplainRequest)
// They share one ModelSession (the loaded model, the predictor cache, cancel and memory), live on
// one QThread (training's TrainWorker joins it, so jobs never compete for the cores) and run one
// at a time in the order queued. start(request) queues a job there; the jobs' signals come back on
// the receivers' threads.
#include <QMetaObject>
#include <QThread>

#include <memory>

#include "compare_worker.h"
#include "explain_worker.h"
#include "model_session.h"
#include "predict_worker.h"
#include "remote_worker.h"

namespace gs::ui {

class WorkerSet {
 public:
  WorkerSet();   // starts the thread
  ~WorkerSet();  // cancels the running job, stops the thread and deletes the workers on it

  QThread* thread() const { return thread_.get(); }
  ModelWorker* model() const { return model_; }
  PredictWorker* predict() const { return predict_; }
  RemoteWorker* remote() const { return remote_; }
  CompareWorker* compare() const { return compare_; }
  ExplainWorker* explain() const { return explain_; }
  std::shared_ptr<tensor::TensorMemoryTracker> memoryTracker() const { return session_->tracker(); }
  void cancel() { session_->cancel(); }

  // Queues worker->start(request) on the model thread; arms the cancel flag first, so a cancel
  // that comes after this call stops the job even before it starts.
  template <class Worker, class Request>
  void start(Worker* worker, Request request) {
    session_->arm();
    QMetaObject::invokeMethod(
        worker, [worker, r = std::move(request)] { worker->start(r); }, Qt::QueuedConnection);
  }
  void load(const QString& path);

 private:
  std::shared_ptr<ModelSession> session_;
  std::unique_ptr<QThread> thread_;
  ModelWorker* model_;
  PredictWorker* predict_;
  RemoteWorker* remote_;
  CompareWorker* compare_;
  ExplainWorker* explain_;
};

// Registers the requests' and results' types for queued connections (once, before any job).
void registerWorkerTypes();

}  // namespace gs::ui
