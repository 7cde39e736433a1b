#pragma once
// Runs one shard (or a row range of it) in this process: the shard's byte range (or compressed
// file) -> Predictor::predict in the plan's chunks -> a compressed piece -> its receipt; then the
// shard's complete receipt once its pieces cover it. Resumes after the pieces already committed.
// A stop request (SIGUSR1/SIGTERM in the CLI) finishes the current chunk, commits what is complete
// and returns. This is `graphormer-cli screen work`; supervisors run it as a child process so a
// crash costs one attempt, not the run.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"
#include "screen/plan.h"
#include "screen/receipt.h"

namespace gs::screen {

struct WorkOptions {
  std::string dir;
  int shard = 0;
  // Row range (absolute row numbers within the input, end exclusive); 0 = from where the committed
  // pieces end / to the shard's end. Used by quarantine bisection.
  int64_t from_row = 0, to_row = 0;
  // Write the rows of the range with status `crashed` instead of predicting them (a quarantined
  // range that crashed the worker on its own).
  bool mark_crashed = false;
  std::string crash_message;
  std::string device;          // "" = the plan's (a GPU node passes its own, see screen/devices.h)
  std::function<bool()> stop;  // checked between chunks
  std::function<void(const std::string&)> note;
};

struct WorkResult {
  bool complete = false;   // the shard has its complete receipt now
  bool stopped = false;    // stopped on request before the end of the range
  bool duplicate = false;  // another attempt committed the same piece first; ours was discarded
  int64_t rows = 0;        // rows this call committed
};

Result<WorkResult> runShard(const WorkOptions& options);

// Records that an attempt at `shard` began / ended (attempts/…): quarantine counts attempts that
// began and never ended.
void markAttempt(const std::string& dir, int shard, const std::string& token, bool ended);
int failedAttempts(const std::string& dir, int shard);

}  // namespace gs::screen
