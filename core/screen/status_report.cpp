#include "screen/status_report.h"

#include <algorithm>
#include <iomanip>

#include "screen/plan.h"
#include "screen/shard_worker.h"

namespace gs::screen {

Result<ScreenStatus> screenStatus(const std::string& dir, int processes, int max_attempts) {
  std::string plan_id;
  auto plan = readPlan(dir, &plan_id);
  if (!plan.isOk()) return plan.status();
  ScreenStatus st;
  st.shards = static_cast<int>(plan->shards.size());
  int64_t known_rows = 0, pending_rows = 0;
  bool all_known = true;
  for (const auto& s : plan->shards) {
    if (s.rows >= 0)
      known_rows += s.rows;
    else
      all_known = false;
    auto r = completeReceipt(dir, plan_id, s.id);
    if (!r.isOk()) {
      ++st.pending;
      const int failed = failedAttempts(dir, s.id);
      if (failed > 0) ++st.with_failures;
      if (failed >= max_attempts) ++st.quarantined;
      int64_t committed = 0;
      for (const auto& p : partReceipts(dir, plan_id, s.id)) committed += p.rows_in;
      pending_rows += std::max<int64_t>(0, (s.rows >= 0 ? s.rows : 0) - committed);
      continue;
    }
    ++st.done;
    st.rows_done += r->rows_out;
    for (const auto& [k, v] : r->by_status) st.by_status[k] += v;
    const std::string device = r->host + " " + r->device + " " + r->precision;
    st.rows_by_device[device] += r->rows_out;
    st.seconds_by_device[device] += r->seconds.total;
    st.seconds += r->seconds;
    st.thread_seconds += r->seconds.total * std::max(1, r->threads);
    if (r->rows_out > 0) st.slowest.push_back({1000.0 * r->seconds.total / static_cast<double>(r->rows_out), s.id});
  }
  if (all_known) st.rows_total = known_rows;
  std::sort(st.slowest.rbegin(), st.slowest.rend());
  if (st.slowest.size() > 5) st.slowest.resize(5);
  if (st.seconds.total > 0) st.rate = static_cast<double>(st.rows_done) / st.seconds.total;
  if (st.thread_seconds > 0) st.rate_per_thread = static_cast<double>(st.rows_done) / st.thread_seconds;
  const double rate = st.rate > 0 ? st.rate : plan->measured_rate;
  if (rate > 0 && all_known) st.eta_seconds = static_cast<double>(pending_rows) / (rate * std::max(1, processes));
  return st;
}

void printStatus(std::ostream& out, const ScreenStatus& s) {
  out << std::fixed << std::setprecision(1);
  out << "shards: " << s.done << " done, " << s.pending << " pending of " << s.shards << " (" << s.with_failures
      << " with attempts that did not end: running now, or failed; " << s.quarantined
      << " at the limit, bisected next run)\n";
  out << "rows: " << s.rows_done << " done" << (s.rows_total >= 0 ? " of " + std::to_string(s.rows_total) : "") << "\n";
  for (const auto& [k, v] : s.by_status) out << "  " << k << ": " << v << "\n";
  out << "rate: " << s.rate << " molecules/s per process, " << s.rate_per_thread << " per thread\n";
  const double t = std::max(1e-9, s.seconds.read + s.seconds.featurize + s.seconds.infer + s.seconds.write);
  out << "time: read " << 100 * s.seconds.read / t << " %, featurize " << 100 * s.seconds.featurize / t << " %, infer "
      << 100 * s.seconds.infer / t << " %, write " << 100 * s.seconds.write / t << " %\n";
  for (const auto& [device, rows] : s.rows_by_device) {
    const double secs = s.seconds_by_device.at(device);
    out << "  " << device << ": " << rows << " rows, " << (secs > 0 ? static_cast<double>(rows) / secs : 0.0)
        << " molecules/s\n";
  }
  for (const auto& [per_k, shard] : s.slowest) out << "slow: shard " << shard << " " << per_k << " s per 1000 rows\n";
  if (s.eta_seconds >= 0) out << "eta: " << s.eta_seconds / 60 << " min at this rate\n";
}

}  // namespace gs::screen
