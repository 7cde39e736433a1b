#include "common/output_guard.h"

#include <filesystem>

namespace gs {

bool sameFile(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return !ec && same;
}

Status checkOutputsAreNotInputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
  for (const auto& out : outputs)
    for (const auto& in : inputs)
      if (sameFile(out, in)) {
        const std::string how = out == in ? "" : " under another name or link";
        return {StatusCode::InvalidArgument, "refusing to write '" + out + "': it is the input file '" + in + "'" +
                                                 how + "; choose another output name so the input is kept"};
      }
  return Status::ok();
}

}  // namespace gs
