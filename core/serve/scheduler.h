#pragma once
// Admission, dynamic batching and the inference workers. A request becomes a Job: its distinct
// molecules are queued one by one with an atom cost (heavy atoms counted from the SMILES), workers
// take batches across jobs up to a molecule and atom budget, waiting at most `max_queue_delay`
// for a batch to fill, and the job completes when its last molecule is answered. The queue is
// bounded in molecules and bytes (a job is admitted whole or refused: 429); a job past its
// deadline or whose client left is dropped before compute. Out-of-memory is handled by the
// engine (a batch is split and retried; a molecule that alone does not fit gets its status).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/api.h"
#include "serve/metrics.h"
#include "serve/model_host.h"
#include "tensor/memory_probe.h"

namespace gs::serve {

using Clock = std::chrono::steady_clock;

struct SchedulerOptions {
  int max_batch_molecules = 64;
  int max_batch_atoms = 2048;
  // How long a worker waits for a batch to fill; 0 = run what is there. It waits only while
  // molecules arrive fast enough that one is expected within the delay (else waiting only adds
  // latency: a single client pays it on every request).
  std::chrono::microseconds max_queue_delay{2000};
  int64_t max_queue_molecules = 20000;
  int64_t max_queue_bytes = 32 << 20;
  int max_smiles_bytes = 4096;  // longer: the molecule's status is invalid_argument, not computed
};

// One request in the scheduler. The worker that answers its last molecule calls on_done once
// (from a worker thread); expired/cancelled say why it ended early.
struct Job {
  std::string request_id;
  std::vector<MoleculeIn> molecules;        // distinct molecules only (see unique_of)
  std::vector<predict::PredictedRow> rows;  // one per molecule, filled by the workers
  Clock::time_point admitted, deadline;
  std::atomic<bool> cancelled{false};  // the client disconnected
  std::atomic<bool> expired{false};    // the deadline passed before a molecule was computed
  std::atomic<int64_t> remaining{0};
  int64_t bytes = 0;                       // of SMILES text, set by submit
  std::mutex mutex;                        // guards generation
  std::shared_ptr<Generation> generation;  // the model that answered (the last batch's)
  std::function<void()> on_done;
};

enum class Admission { Admitted, QueueFull, TooLarge, Stopped };

class Scheduler {
 public:
  Scheduler(SchedulerOptions options, ModelHost& host, Metrics& metrics);
  ~Scheduler();
  void start();
  // Answers what is still queued as cancelled ("the server stopped") and joins the workers; the
  // batches being computed finish. Draining before this is the service's job (server.h).
  void stop();

  // All of the job's molecules are queued, or none.
  Admission submit(const std::shared_ptr<Job>& job);
  int64_t queuedMolecules() const;
  int64_t queuedBytes() const;
  int64_t jobsInFlight() const { return in_flight_.load(); }
  // Seconds until the queue likely has room for `molecules`, from the recent throughput.
  int retryAfterSeconds(int64_t molecules) const;
  // CPU tensor memory of the inference threads (the live chart's tensor line).
  std::shared_ptr<tensor::TensorMemoryTracker> tensorMemory() const { return tensor_memory_; }
  const SchedulerOptions& options() const { return options_; }

 private:
  struct Item {
    std::shared_ptr<Job> job;
    int index = 0;
    int atoms = 0;
  };
  void workerLoop(int worker);
  // Waits for work; false when stopping with an empty queue.
  bool takeBatch(std::vector<Item>* batch);
  void run(int worker, std::vector<Item>& batch);
  void finish(const Item& item);
  bool dropIfDone(const Item& item);

  SchedulerOptions options_;
  ModelHost& host_;
  Metrics& metrics_;
  mutable std::mutex mutex_;
  std::condition_variable work_;
  std::deque<Item> queue_;
  int64_t queued_bytes_ = 0;
  bool stopping_ = false;
  std::atomic<int64_t> in_flight_{0};
  std::atomic<double> molecules_per_second_{0};
  double arrivals_per_second_ = 0;  // under mutex_: molecules submitted, smoothed
  Clock::time_point last_arrival_{};
  std::shared_ptr<tensor::TensorMemoryTracker> tensor_memory_;
  std::vector<std::thread> workers_;
};

// Heavy atoms in a SMILES string, counted from its atom tokens (brackets count as one, explicit
// [H] too): a cost estimate for batching, not a parse.
int estimateAtoms(std::string_view smiles);

}  // namespace gs::serve
