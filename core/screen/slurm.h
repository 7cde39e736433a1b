#pragma once
// `screen submit DIR --slurm`: submits the shards that have no valid receipt as Slurm job arrays —
// each array task runs a block of shards (`screen run DIR --slurm-array --blocks FILE`), arrays
// split at the cluster's MaxArraySize, an optional throttle (%K) — and the merge as a job that
// depends on them. Running it again is the resume: only shards still without a receipt go out.
// Slurm is driven through sbatch/scontrol; no library is linked.
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::screen {

struct SubmitOptions {
  std::string dir;
  std::string cli;                       // graphormer-cli, as the compute nodes see it
  std::vector<std::string> sbatch_args;  // passed to every sbatch (partition, time, --gres=gpu:N, ...)
  int shards_per_task = 0;               // 0: enough shards for ~30 min per task, from the plan
  int throttle = 0;                      // > 0: at most this many tasks of an array at once
  int local = 1;                         // worker processes per array task (one per GPU, say)
  bool merge = true;                     // submit `screen merge` after the arrays
  std::vector<std::string> merge_args;   // e.g. --top 1000 --by gap_ev
  bool dry_run = false;                  // write the scripts, submit nothing
};

struct SubmitResult {
  int pending_shards = 0, tasks = 0;
  std::vector<std::string> array_jobs;
  std::string merge_job;
  std::vector<std::string> scripts;
};

Result<SubmitResult> submitSlurm(const SubmitOptions& options);

// Runs a program and returns its standard output (exit status in *exit_code).
Result<std::string> runCapture(const std::vector<std::string>& argv, int* exit_code);
// "MaxArraySize" from `scontrol show config` (1001 when it cannot be read).
int maxArraySize();

}  // namespace gs::screen
