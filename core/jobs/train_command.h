#pragma once
// The `graphormer-cli train` command line that reproduces a training job: every option that
// changes the result is written out explicitly (defaults included), so the command does not depend
// on the defaults of the version that runs it. Memory settings chosen by fitting to a budget are
// written as the settings chosen (--micro-batch, --checkpoint-ratio, --precision), which reproduce
// the run exactly; the budget itself is not repeated.
#include <string>
#include <vector>

#include "jobs/train_job.h"

namespace gs::jobs {

// Arguments after the program name, starting with "train".
std::vector<std::string> trainCommandArguments(const TrainJobOptions& options);
// One line for a POSIX shell: arguments quoted where needed.
std::string shellCommand(const std::string& program, const std::vector<std::string>& arguments);

}  // namespace gs::jobs
