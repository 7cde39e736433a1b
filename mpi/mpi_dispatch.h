#pragma once
// Screening under MPI (`mpirun -np N graphormer-screen-mpi DIR`): rank 0 hands out shard ids one at
// a time as ranks ask for work (a dynamic queue: fast ranks take more), and once the queue is empty
// it re-issues shards still running elsewhere to idle ranks (the tail); the first valid receipt
// wins (screen/receipt.h). Every other rank runs its shards through the same supervisor as
// `screen run` (child processes, retries, quarantine). Open MPI 4 aborts the job when a rank dies;
// re-running mpirun resumes from the receipts. The only code that includes <mpi.h>.
#include <functional>
#include <string>

namespace gs::mpi {

struct MpiOptions {
  std::string dir;
  std::string worker;  // graphormer-cli
  int local = 1;       // worker processes per rank
  std::function<bool()> stop;
};

// Runs the dispatcher or a worker depending on this process's rank; returns the exit status.
int runScreen(const MpiOptions& options);

}  // namespace gs::mpi
