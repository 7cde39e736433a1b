#include "screen/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>

#include "screen/devices.h"
#include "screen/layout.h"
#include "screen/receipt.h"
#include "screen/shard_worker.h"

namespace gs::screen {
namespace {

struct Child {
  int shard = 0;
  int slot = 0;
  std::string token;
};

// Starts `worker screen work ...` with output to a log file; -1 on failure.
pid_t spawnWorker(const SuperviseOptions& o, const std::vector<std::string>& extra, int slot, const std::string& log) {
  std::vector<std::string> args{o.worker, "screen", "work", o.dir};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), o.worker_args.begin(), o.worker_args.end());
  if (slot < static_cast<int>(o.slot_devices.size()) && !o.slot_devices[static_cast<size_t>(slot)].empty()) {
    args.push_back("--device");
    args.push_back(o.slot_devices[static_cast<size_t>(slot)]);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Stop requests stay pending until the worker has installed its handlers (it unblocks them).
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  sigaddset(&blocked, SIGTERM);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // Child, before exec: async-signal-safe calls only. A worker outlives no supervisor: when the
  // supervisor dies (an MPI rank killed, a job cancelled) the worker gets SIGTERM, commits what is
  // complete and exits.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(127);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  ::sigprocmask(SIG_BLOCK, &blocked, nullptr);
  ::execv(o.worker.c_str(), argv.data());
  ::_exit(127);
}

std::string logPath(const SuperviseOptions& o, int shard, const std::string& token) {
  const std::string group = groupDir(o.dir, "logs", shard);
  makeDirs(group);
  return group + "/" + std::to_string(shard) + "." + token + ".log";
}

// Waits for one child; -1 when none is left. Retries after signals (stop requests arrive so).
pid_t waitChild(int* status, const std::function<void()>& on_interrupt) {
  for (;;) {
    const pid_t pid = ::waitpid(-1, status, 0);
    if (pid >= 0 || errno != EINTR) return pid;
    on_interrupt();
  }
}

// Runs one worker to its end (used by bisection); the exit status as waitpid gives it.
int runWorker(const SuperviseOptions& o, int shard, const std::vector<std::string>& extra) {
  const std::string token = attemptToken();
  markAttempt(o.dir, shard, token, false);
  const pid_t pid = spawnWorker(o, extra, 0, logPath(o, shard, token));
  if (pid < 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    if (o.stop && o.stop()) ::kill(pid, SIGUSR1);
  }
  if (WIFEXITED(status) && (WEXITSTATUS(status) == kWorkComplete || WEXITSTATUS(status) == kWorkStopped))
    markAttempt(o.dir, shard, token, true);
  return status;
}

// The worker's last message (its error), from its log.
std::string lastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

bool workerOk(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == kWorkComplete; }

std::string describe(int status) {
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
           ")";
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  return "ended abnormally";
}

std::vector<std::string> rangeArgs(int shard, int64_t from, int64_t to) {
  return {"--shard", std::to_string(shard), "--from-row", std::to_string(from), "--to-row", std::to_string(to)};
}

// Rows [from, to) of a quarantined shard: halves until a range runs, or one row crashes alone.
bool bisect(const SuperviseOptions& o, int shard, int64_t from, int64_t to, const std::string& why) {
  if (o.stop && o.stop()) return false;
  const int status = runWorker(o, shard, rangeArgs(shard, from, to));
  if (workerOk(status)) return true;
  if (!WIFSIGNALED(status)) {  // an error, not a crash: halving the range cannot help
    if (o.note)
      o.note("shard " + std::to_string(shard) + ": rows " + std::to_string(from) + "-" + std::to_string(to - 1) +
             " failed with " + describe(status) + " (see the shard's log)");
    return false;
  }
  if (to - from <= 1) {
    auto args = rangeArgs(shard, from, to);
    args.insert(args.end(), {"--mark-crashed", "the worker crashed on this molecule in every attempt (" + why +
                                                   "); quarantined after bisection"});
    if (o.note)
      o.note("shard " + std::to_string(shard) + ": row " + std::to_string(from) +
             " crashes the worker: marked crashed");
    return workerOk(runWorker(o, shard, args));
  }
  const int64_t mid = from + (to - from) / 2;
  return bisect(o, shard, from, mid, why) && bisect(o, shard, mid, to, why);
}

}  // namespace

bool quarantineShard(const SuperviseOptions& o, int shard, const std::string& why);

namespace {

// One supervision: the queue of shards, the running children and their slots.
class Supervision {
 public:
  Supervision(const SuperviseOptions& o, std::deque<int> queue)
      : o_(o), queue_(std::move(queue)), busy_(static_cast<size_t>(std::max(1, o.parallel)), false) {}

  Status run(SuperviseResult& result) {
    for (;;) {
      forwardStop();
      if (Status s = launch(result); !s.isOk()) return s;
      if (running_.empty()) break;
      int status = 0;
      const pid_t pid = waitChild(&status, [this] { forwardStop(); });
      if (pid < 0) break;
      reap(pid, status, result);
    }
    result.stopped = result.stopped || stop_sent_;
    return Status::ok();
  }

 private:
  void forwardStop() {
    if (stop_sent_ || !o_.stop || !o_.stop()) return;
    stop_sent_ = true;
    for (const auto& [pid, child] : running_) ::kill(pid, SIGUSR1);
  }

  Status launch(SuperviseResult& result) {
    while (!stop_sent_ && !queue_.empty() && static_cast<int>(running_.size()) < o_.parallel) {
      const int shard = queue_.front();
      queue_.pop_front();
      if (failedAttempts(o_.dir, shard) >= o_.max_attempts) {
        ++result.quarantined;
        if (quarantineShard(o_, shard, last_failure_[shard]))
          ++result.done;
        else
          ++result.failed;
        continue;
      }
      size_t slot = 0;
      while (busy_[slot]) ++slot;
      Child c{shard, static_cast<int>(slot), attemptToken()};
      markAttempt(o_.dir, shard, c.token, false);
      const pid_t pid = spawnWorker(o_, {"--shard", std::to_string(shard)}, c.slot, logPath(o_, shard, c.token));
      if (pid < 0) return {StatusCode::IoError, "cannot start " + o_.worker + ": " + std::strerror(errno)};
      busy_[slot] = true;
      running_[pid] = c;
    }
    return Status::ok();
  }

  void reap(pid_t pid, int status, SuperviseResult& result) {
    auto it = running_.find(pid);
    if (it == running_.end()) return;
    const Child c = it->second;
    running_.erase(it);
    busy_[static_cast<size_t>(c.slot)] = false;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == kWorkComplete || code == kWorkStopped) markAttempt(o_.dir, c.shard, c.token, true);
    if (code == kWorkComplete) {
      ++result.done;
    } else if (code == kWorkStopped) {
      result.stopped = true;
    } else if (code == kWorkFatal) {
      ++result.failed;
      result.errors.push_back("shard " + std::to_string(c.shard) + ": " + lastLine(logPath(o_, c.shard, c.token)));
    } else if (!WIFSIGNALED(status) && ++errors_[c.shard] >= o_.max_attempts) {
      ++result.failed;  // the same error every time: retrying or bisecting cannot help
      result.errors.push_back("shard " + std::to_string(c.shard) + ": " + describe(status) + " in " +
                              std::to_string(o_.max_attempts) + " attempts (see its log in " + o_.dir + "/logs)");
    } else {
      last_failure_[c.shard] = describe(status);
      if (o_.note) o_.note("shard " + std::to_string(c.shard) + " failed: " + describe(status));
      queue_.push_back(c.shard);
    }
  }

  const SuperviseOptions& o_;
  std::deque<int> queue_;
  std::vector<bool> busy_;
  std::map<pid_t, Child> running_;
  std::map<int, std::string> last_failure_;
  std::map<int, int> errors_;  // attempts per shard that ended with an error exit (not a crash)
  bool stop_sent_ = false;
};

}  // namespace

Result<SuperviseResult> supervise(const SuperviseOptions& options) {
  std::string plan_id;
  auto plan = readPlan(options.dir, &plan_id);
  if (!plan.isOk()) return plan.status();
  SuperviseOptions o = options;
  if (o.slot_devices.empty())  // one GPU per worker slot on GPU nodes (screen/devices.h)
    o.slot_devices = slotDevices(plan->predictor.session.device, o.parallel, localRank(), visibleGpus());
  SuperviseResult result;
  std::deque<int> queue;
  std::vector<int> all = o.shards;
  if (all.empty())
    for (const auto& s : plan->shards) all.push_back(s.id);
  for (int id : all) {
    if (completeReceipt(o.dir, plan_id, id).isOk())
      ++result.done;
    else
      queue.push_back(id);
  }
  Supervision supervision(o, std::move(queue));
  if (Status s = supervision.run(result); !s.isOk()) return s;
  return result;
}

bool quarantineShard(const SuperviseOptions& o, int shard, const std::string& why) {
  std::string plan_id;
  auto plan = readPlan(o.dir, &plan_id);
  if (!plan.isOk()) return false;
  const Shard& s = plan->shards[static_cast<size_t>(shard)];
  int64_t from = s.first_row;
  for (const auto& p : partReceipts(o.dir, plan_id, shard))
    if (p.first_row == from) from += p.rows_in;
  int64_t to = s.rows >= 0 ? s.first_row + s.rows : -1;
  if (to < 0) {  // a compressed input: count its records
    auto reader = data::openReader(plan->inputs[static_cast<size_t>(s.input)].path, plan->reader);
    if (!reader.isOk()) return false;
    data::RawRecord r;
    to = 1;
    while (reader.value()->next(r)) ++to;
  }
  if (o.note)
    o.note("shard " + std::to_string(shard) + " quarantined after " + std::to_string(o.max_attempts) +
           " failed attempts (" + why + "): bisecting rows " + std::to_string(from) + "-" + std::to_string(to - 1));
  if (from < to && !bisect(o, shard, from, to, why.empty() ? "earlier attempts failed" : why)) return false;
  auto complete = completeIfCovered(o.dir, plan_id, plan.value(), shard);
  return complete.isOk() && complete.value();
}

}  // namespace gs::screen
