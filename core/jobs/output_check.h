#pragma once
// What every file-writing command checks first: none of its outputs is one of the files it reads
// (its input files, and the model's weights, config.json and adapter as loading resolves them).
#include <optional>
#include <string>
#include <vector>

#include "bundle/model_source.h"
#include "common/status.h"

namespace gs::jobs {

// `model`: the model the command loads (nullopt = none). A model that cannot be resolved returns
// the error loading it would give.
Status checkOutputs(const std::vector<std::string>& outputs, std::vector<std::string> inputs,
                    const std::optional<bundle::ModelSource>& model = std::nullopt);

}  // namespace gs::jobs
