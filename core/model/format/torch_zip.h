#pragma once
// Reads a torch.save zip archive (PyTorch >= 1.6 format: <name>/data.pkl + <name>/data/<key>)
// through LibTorch's zip reader and the restricted unpickler: no pickled code ever runs.
#include <string>

#include "common/status.h"
#include "model/format/pickle_value.h"

namespace gs::model {

Result<PyRef> readTorchZip(const std::string& path);

}  // namespace gs::model
