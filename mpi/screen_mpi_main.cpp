// graphormer-screen-mpi DIR [--local N] [--worker PATH]: argument parsing only (mpi_dispatch.h).
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "mpi_dispatch.h"

namespace {

const char* kUsage =
    "usage: mpirun -np N graphormer-screen-mpi DIR [--local N] [--worker PATH]\n"
    "Runs the shards of a screening plan (graphormer-cli screen plan --out DIR) under MPI. Rank 0\n"
    "hands out shard ids as ranks ask for work and re-issues the last shards to idle ranks (the first\n"
    "valid result wins); each rank runs its shards as graphormer-cli worker processes. Running the same\n"
    "mpirun again resumes: a shard with a valid receipt is never run twice. SIGUSR1 or SIGTERM (a\n"
    "scheduler's walltime warning) commits the finished batches and exits 0. See docs/SCREENING.md.\n"
    "\n"
    "options:\n"
    "  --local N       worker processes per rank (1)\n"
    "  --worker PATH   the graphormer-cli the ranks run (default: the one next to this program)\n"
    "  --help          this text\n";

volatile sig_atomic_t g_stop = 0;
void onStop(int) { g_stop = 1; }

std::string besideSelf(const char* name) {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string self = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  return self.substr(0, self.find_last_of('/') + 1) + name;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::cout << kUsage;  // before MPI_Init: no MPI runtime needed to read it
      return 0;
    }
  MPI_Init(&argc, &argv);
  gs::mpi::MpiOptions o;
  o.worker = besideSelf("graphormer-cli");
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--local" && i + 1 < argc)
      o.local = std::max(1, std::atoi(argv[++i]));
    else if (a == "--worker" && i + 1 < argc)
      o.worker = argv[++i];
    else if (a.rfind("--", 0) != 0 && o.dir.empty())
      o.dir = a;
    else {
      std::cerr << kUsage;
      MPI_Finalize();
      return 2;
    }
  }
  if (o.dir.empty() || ::access(o.worker.c_str(), X_OK) != 0) {
    std::cerr << "graphormer-screen-mpi: needs a plan directory and graphormer-cli (" << o.worker
              << " is not executable; pass --worker PATH)\n";
    MPI_Finalize();
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = onStop;
  for (int sig : {SIGUSR1, SIGTERM}) sigaction(sig, &sa, nullptr);
  o.stop = [] { return g_stop != 0; };
  const int rc = gs::mpi::runScreen(o);
  MPI_Finalize();
  return rc;
}
