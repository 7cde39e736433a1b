#include "workers.h"

namespace gs::ui {
namespace {

template <class Worker>
Worker* onThread(const std::shared_ptr<ModelSession>& session, QThread* thread) {
  auto* worker = new Worker(session);
  worker->moveToThread(thread);
  QObject::connect(thread, &QThread::finished, worker, &QObject::deleteLater);
  return worker;
}

}  // namespace

void registerWorkerTypes() {
  qRegisterMetaType<ModelCard>();
  qRegisterMetaType<RunSettings>();
  qRegisterMetaType<RunInput>();
  qRegisterMetaType<predict::RunRecord>();
  qRegisterMetaType<std::vector<predict::PredictedRow>>();
  qRegisterMetaType<PredictRequest>();
  qRegisterMetaType<RemoteRequest>();
  qRegisterMetaType<CompareRequest>();
  qRegisterMetaType<engine::ModeResult>();
  qRegisterMetaType<ExplainRequest>();
  qRegisterMetaType<std::vector<data::RawRecord>>();
  qRegisterMetaType<std::vector<jobs::ExplainedMolecule>>();
}

WorkerSet::WorkerSet() : session_(std::make_shared<ModelSession>()), thread_(std::make_unique<QThread>()) {
  registerWorkerTypes();
  model_ = onThread<ModelWorker>(session_, thread_.get());
  predict_ = onThread<PredictWorker>(session_, thread_.get());
  remote_ = onThread<RemoteWorker>(session_, thread_.get());
  compare_ = onThread<CompareWorker>(session_, thread_.get());
  explain_ = onThread<ExplainWorker>(session_, thread_.get());
  thread_->start();
}

WorkerSet::~WorkerSet() {
  session_->cancel();
  thread_->quit();
  thread_->wait();  // the workers are deleted on their thread as it finishes
}

void WorkerSet::load(const QString& path) {
  QMetaObject::invokeMethod(
      model_, [w = model_, path] { w->load(path); }, Qt::QueuedConnection);
}

}  // namespace gs::ui
