#include "serve/scheduler.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace gs::serve {
namespace {

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

predict::PredictedRow rowWithStatus(const Job& job, int index, Status status) {
  predict::PredictedRow row;
  row.row = index + 1;
  row.id = job.molecules[index].id;
  row.input = job.molecules[index].smiles;
  row.status = std::move(status);
  return row;
}

}  // namespace

int estimateAtoms(std::string_view s) {
  int atoms = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '[') {  // a bracket atom is one atom (hydrogens inside are implicit)
      const size_t close = s.find(']', i);
      if (close == std::string_view::npos) break;
      ++atoms;
      i = close;
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      if (c != 'H') ++atoms;
      if (i + 1 < s.size() && std::islower(static_cast<unsigned char>(s[i + 1])) &&
          std::string_view("lr").find(s[i + 1]) != std::string_view::npos)
        ++i;  // Cl, Br
    } else if (std::string_view("bcnops").find(c) != std::string_view::npos) {
      ++atoms;  // aromatic
    } else if (c == ' ' || c == '\t') {
      break;  // CXSMILES extensions or a name follow
    }
  }
  return std::max(atoms, 1);
}

Scheduler::Scheduler(SchedulerOptions options, ModelHost& host, Metrics& metrics)
    : options_(options),
      host_(host),
      metrics_(metrics),
      tensor_memory_(std::make_shared<tensor::TensorMemoryTracker>()) {}

Scheduler::~Scheduler() { stop(); }

void Scheduler::start() {
  for (int w = 0; w < host_.workers(); ++w) workers_.emplace_back([this, w] { workerLoop(w); });
}

void Scheduler::stop() {
  std::deque<Item> left;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    left.swap(queue_);
    queued_bytes_ = 0;
  }
  work_.notify_all();
  for (const Item& item : left) {
    item.job->rows[item.index] =
        rowWithStatus(*item.job, item.index, Status(StatusCode::Cancelled, "the server stopped"));
    finish(item);
  }
  for (auto& t : workers_)
    if (t.joinable()) t.join();
  workers_.clear();
}

Admission Scheduler::submit(const std::shared_ptr<Job>& job) {
  const auto n = static_cast<int64_t>(job->molecules.size());
  job->bytes = 0;
  for (const MoleculeIn& m : job->molecules) job->bytes += static_cast<int64_t>(m.smiles.size());
  if (n > options_.max_queue_molecules || job->bytes > options_.max_queue_bytes) return Admission::TooLarge;
  job->rows.resize(job->molecules.size());
  job->remaining = n;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return Admission::Stopped;
    if (static_cast<int64_t>(queue_.size()) + n > options_.max_queue_molecules ||
        queued_bytes_ + job->bytes > options_.max_queue_bytes)
      return Admission::QueueFull;
    in_flight_.fetch_add(1);
    const auto now = Clock::now();
    const double gap = std::max(1e-6, std::chrono::duration<double>(now - last_arrival_).count());
    arrivals_per_second_ = 0.8 * arrivals_per_second_ + 0.2 * std::min(1e6, static_cast<double>(n) / gap);
    last_arrival_ = now;
    for (int i = 0; i < static_cast<int>(n); ++i) queue_.push_back({job, i, estimateAtoms(job->molecules[i].smiles)});
    queued_bytes_ += job->bytes;
  }
  work_.notify_all();
  return Admission::Admitted;
}

int64_t Scheduler::queuedMolecules() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(queue_.size());
}

int64_t Scheduler::queuedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queued_bytes_;
}

int Scheduler::retryAfterSeconds(int64_t molecules) const {
  const double rate = molecules_per_second_.load();
  const double wait = rate > 0 ? static_cast<double>(queuedMolecules() + molecules) / rate : 1.0;
  return static_cast<int>(std::clamp(std::ceil(wait), 1.0, 60.0));
}

bool Scheduler::takeBatch(std::vector<Item>* batch) {
  std::unique_lock<std::mutex> lock(mutex_);
  work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  int atoms = 0;
  const auto fill = [&] {  // true when the batch is full
    while (!queue_.empty()) {
      const Item& next = queue_.front();
      const bool fits = static_cast<int>(batch->size()) < options_.max_batch_molecules &&
                        (batch->empty() || atoms + next.atoms <= options_.max_batch_atoms);
      if (!fits) return true;
      atoms += next.atoms;
      queued_bytes_ -= static_cast<int64_t>(next.job->molecules[next.index].smiles.size());
      batch->push_back(next);
      queue_.pop_front();
    }
    return static_cast<int>(batch->size()) >= options_.max_batch_molecules;
  };
  if (queue_.empty()) return false;  // stopping, nothing left
  const auto until = Clock::now() + options_.max_queue_delay;
  const double delay_seconds = std::chrono::duration<double>(options_.max_queue_delay).count();
  const bool worth_waiting = arrivals_per_second_ * delay_seconds >= 1.0;
  while (!fill() && !stopping_ && worth_waiting) {
    if (work_.wait_until(lock, until) == std::cv_status::timeout) {
      fill();
      break;
    }
  }
  return true;
}

void Scheduler::workerLoop(int worker) {
  std::vector<Item> batch;
  for (;;) {
    batch.clear();
    if (!takeBatch(&batch)) return;
    run(worker, batch);
  }
}

bool Scheduler::dropIfDone(const Item& item) {
  Job& job = *item.job;
  if (!job.cancelled && Clock::now() < job.deadline) return false;
  const bool deadline = !job.cancelled;
  if (deadline && !job.expired.exchange(true)) metrics_.countRejection("deadline");
  job.rows[item.index] =
      rowWithStatus(job, item.index,
                    Status(StatusCode::Cancelled, deadline ? "deadline passed before compute" : "client disconnected"));
  finish(item);
  return true;
}

void Scheduler::run(int worker, std::vector<Item>& batch) {
  std::vector<Item> live;
  std::vector<data::RawRecord> records;
  int64_t atoms = 0;
  for (const Item& item : batch) {
    metrics_.queue_seconds.observe(secondsSince(item.job->admitted));
    if (dropIfDone(item)) continue;
    const MoleculeIn& m = item.job->molecules[item.index];
    if (static_cast<int>(m.smiles.size()) > options_.max_smiles_bytes) {
      item.job->rows[item.index] =
          rowWithStatus(*item.job, item.index,
                        Status(StatusCode::InvalidArgument,
                               "SMILES longer than " + std::to_string(options_.max_smiles_bytes) + " bytes"));
      finish(item);
      continue;
    }
    data::RawRecord r;
    r.row = item.index + 1;
    r.id = m.id;
    r.text = m.smiles;
    records.push_back(std::move(r));
    live.push_back(item);
    atoms += item.atoms;
  }
  if (live.empty()) return;
  std::shared_ptr<Generation> generation = host_.current();
  engine::RunCallbacks callbacks;
  callbacks.memory = tensor_memory_;
  callbacks.progress = [this](int64_t, int64_t) { metrics_.countForwardPasses(1); };
  const auto start = Clock::now();
  std::vector<predict::PredictedRow> rows;
  try {
    rows = generation->predictors[worker]->predict(records, callbacks);
  } catch (const std::exception& e) {  // e.g. std::bad_alloc outside the engine's retry
    rows.clear();
    for (const Item& item : live)
      rows.push_back(
          rowWithStatus(*item.job, item.index, Status(StatusCode::Internal, std::string("batch failed: ") + e.what())));
  }
  const double seconds = secondsSince(start);
  metrics_.observeBatch(static_cast<int64_t>(live.size()), atoms, seconds);
  const double rate = static_cast<double>(live.size()) / std::max(seconds, 1e-6) * host_.workers();
  const double old = molecules_per_second_.load();
  molecules_per_second_.store(old > 0 ? 0.8 * old + 0.2 * rate : rate);
  for (size_t k = 0; k < live.size(); ++k) {
    Job& job = *live[k].job;
    job.rows[live[k].index] = std::move(rows[k]);
    {
      std::lock_guard<std::mutex> lock(job.mutex);
      job.generation = generation;
    }
    finish(live[k]);
  }
}

void Scheduler::finish(const Item& item) {
  if (item.job->remaining.fetch_sub(1) != 1) return;
  in_flight_.fetch_sub(1);
  if (item.job->on_done) item.job->on_done();
}

}  // namespace gs::serve
