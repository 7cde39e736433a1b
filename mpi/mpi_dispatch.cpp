#include "mpi_dispatch.h"

#include <mpi.h>

#include <deque>
#include <iostream>
#include <map>
#include <set>

#include "screen/plan.h"
#include "screen/receipt.h"
#include "screen/supervisor.h"

namespace gs::mpi {
namespace {

constexpr int kRequest = 1, kAssign = 2, kDone = -1;

bool complete(const std::string& dir, const std::string& plan_id, int shard) {
  return screen::completeReceipt(dir, plan_id, shard).isOk();
}

// Rank 0: answers work requests until every rank was told to finish.
int dispatch(const MpiOptions& o, int ranks) {
  std::string plan_id;
  auto plan = screen::readPlan(o.dir, &plan_id);
  if (!plan.isOk()) {
    std::cerr << "graphormer-screen-mpi: " << plan.status().toString() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
  }
  std::deque<int> pending;
  for (const auto& s : plan->shards)
    if (!complete(o.dir, plan_id, s.id)) pending.push_back(s.id);
  std::cerr << "graphormer-screen-mpi: " << pending.size() << " shard(s) to run on " << ranks - 1 << " rank(s)\n";
  std::map<int, std::set<int>> running;  // shard -> ranks
  int alive = ranks - 1, failed = 0;
  while (alive > 0) {
    int msg[2];
    MPI_Status status;
    MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, kRequest, MPI_COMM_WORLD, &status);
    const int src = status.MPI_SOURCE;
    if (msg[0] >= 0) {
      running[msg[0]].erase(src);
      const bool done = complete(o.dir, plan_id, msg[0]);
      if (done || running[msg[0]].empty()) running.erase(msg[0]);
      if (!done && !running.count(msg[0])) ++failed;
    }
    int next = kDone;
    if (!(o.stop && o.stop())) {
      if (!pending.empty()) {
        next = pending.front();
        pending.pop_front();
      } else {  // the tail: a second rank on a shard still running elsewhere
        for (const auto& [shard, holders] : running)
          if (holders.size() == 1 && !complete(o.dir, plan_id, shard)) {
            next = shard;
            break;
          }
      }
    }
    if (next >= 0)
      running[next].insert(src);
    else
      --alive;
    MPI_Send(&next, 1, MPI_INT, src, kAssign, MPI_COMM_WORLD);
  }
  std::cerr << "graphormer-screen-mpi: done" << (failed ? ", " + std::to_string(failed) + " shard(s) failed" : "")
            << "\n";
  return failed ? 1 : 0;
}

int work(const MpiOptions& o) {
  int msg[2] = {-1, 0};
  for (;;) {
    MPI_Send(msg, 2, MPI_INT, 0, kRequest, MPI_COMM_WORLD);
    int shard = kDone;
    MPI_Recv(&shard, 1, MPI_INT, 0, kAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (shard < 0) return 0;
    screen::SuperviseOptions s;
    s.dir = o.dir;
    s.worker = o.worker;
    s.parallel = o.local;
    s.shards = {shard};
    s.stop = o.stop;
    auto result = screen::supervise(s);
    msg[0] = shard;
    msg[1] = result.isOk() && result->done > 0 ? 1 : 0;
  }
}

}  // namespace

int runScreen(const MpiOptions& o) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) {  // nobody to hand work to: run everything here
    screen::SuperviseOptions s;
    s.dir = o.dir;
    s.worker = o.worker;
    s.parallel = o.local;
    s.stop = o.stop;
    auto result = screen::supervise(s);
    return result.isOk() && result->failed == 0 ? 0 : 1;
  }
  return rank == 0 ? dispatch(o, size) : work(o);
}

}  // namespace gs::mpi
