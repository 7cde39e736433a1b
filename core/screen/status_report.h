#pragma once
// `screen status`: derived from receipts only (nothing records "running"): shards done, pending,
// quarantined (failed attempts at the limit), rows by status, molecules/s in total and per process
// thread, the time split over read / featurize / infer / write, rows per host and device, the
// slowest shards and an ETA from the measured rate.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "screen/receipt.h"

namespace gs::screen {

struct ScreenStatus {
  int shards = 0, done = 0, pending = 0, with_failures = 0, quarantined = 0;
  int64_t rows_done = 0, rows_total = -1;  // -1: unknown (compressed inputs)
  std::map<std::string, int64_t> by_status;
  std::map<std::string, int64_t> rows_by_device;  // "host device"
  std::map<std::string, double> seconds_by_device;
  StageSeconds seconds;
  double thread_seconds = 0;                    // sum of shard time x threads
  std::vector<std::pair<double, int>> slowest;  // seconds per 1000 rows, shard
  double rate = 0, rate_per_thread = 0;         // rows/s (one process per shard), per thread
  double eta_seconds = -1;                      // pending rows / rate of `processes` processes
};

Result<ScreenStatus> screenStatus(const std::string& dir, int processes = 1, int max_attempts = 3);
void printStatus(std::ostream& out, const ScreenStatus& s);

}  // namespace gs::screen
