#pragma once
// `screen run`: executes shards as child processes (`graphormer-cli screen work DIR --shard I`), up
// to `parallel` at a time, so a crash costs one attempt and never the run. A shard whose attempts
// failed `max_attempts` times (crashed or errored; attempts that stopped on request do not count) is
// quarantined and bisected in row ranges down to the rows that crash the worker alone; those rows
// get status `crashed`, the rest are predicted. A stop request (SIGUSR1/SIGTERM) is passed to the
// children, which commit what is complete; the supervisor then returns. Re-running resumes.
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::screen {

struct SuperviseOptions {
  std::string dir;
  std::string worker;                     // the graphormer-cli executable
  std::vector<std::string> worker_args;   // passed to every `screen work` (e.g. --threads 1)
  std::vector<std::string> slot_devices;  // per parallel slot: --device for its children ("" = plan's);
                                          // empty: one GPU per slot on GPU nodes (screen/devices.h)
  int parallel = 1;
  std::vector<int> shards;  // shards to run (empty: every shard of the plan)
  int max_attempts = 3;
  std::function<bool()> stop;
  std::function<void(const std::string&)> note;
};

struct SuperviseResult {
  int done = 0;         // shards complete (including those complete before)
  int quarantined = 0;  // shards that needed bisection
  int failed = 0;       // shards left incomplete by errors
  bool stopped = false;
  std::vector<std::string> errors;
};

Result<SuperviseResult> supervise(const SuperviseOptions& options);

// Worker exit codes.
constexpr int kWorkComplete = 0;
constexpr int kWorkStopped = 10;
constexpr int kWorkFatal = 2;  // the plan, model or input is wrong: retrying cannot help

}  // namespace gs::screen
