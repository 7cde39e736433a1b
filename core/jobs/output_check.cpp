#include "jobs/output_check.h"

#include "common/output_guard.h"
#include "model/lora.h"

namespace gs::jobs {

Status checkOutputs(const std::vector<std::string>& outputs, std::vector<std::string> inputs, const std::string& model,
                    const std::string& adapter) {
  if (!model.empty() || !adapter.empty()) {
    auto files = model::resolveModelFiles(model, adapter);
    if (!files.isOk()) return files.status();
    for (auto& f : files->all()) inputs.push_back(std::move(f));
  }
  return checkOutputsAreNotInputs(outputs, inputs);
}

}  // namespace gs::jobs
