#include "jobs/output_check.h"

#include "common/output_guard.h"

namespace gs::jobs {

Status checkOutputs(const std::vector<std::string>& outputs, std::vector<std::string> inputs,
                    const std::optional<bundle::ModelSource>& model) {
  if (model) {
    auto resolved = bundle::resolveModel(*model);
    if (!resolved.isOk()) return resolved.status();
    for (auto& f : resolved->files()) inputs.push_back(std::move(f));
  }
  return checkOutputsAreNotInputs(outputs, inputs);
}

}  // namespace gs::jobs
