#pragma once
// What every file-writing command checks first: none of its outputs is one of the files it reads
// (its input files, and the model's weights, config.json and adapter as loading resolves them).
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::jobs {

// `model` and `adapter` may be empty (no model). A model that cannot be resolved returns the error
// loading it would give.
Status checkOutputs(const std::vector<std::string>& outputs, std::vector<std::string> inputs, const std::string& model = "",
                    const std::string& adapter = "");

}  // namespace gs::jobs
