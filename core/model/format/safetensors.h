#pragma once
// safetensors (https://github.com/huggingface/safetensors) reader and writer of our own.
// Reading validates everything before trusting it: the header length, the JSON, each dtype and
// shape, that offsets lie inside the file, match the tensor's size, and neither overlap nor leave
// holes. Errors name the file and the tensor.
#include <string>

#include "common/status.h"
#include "model/tensor_map.h"

namespace gs::model {

struct SafetensorsFile {
  TensorList tensors;  // file order (by data offset)
  StringMap metadata;  // the "__metadata__" string map
};

Result<SafetensorsFile> readSafetensors(const std::string& path);

// Writes CPU copies of the tensors (contiguous, little-endian), header padded to 8 bytes, atomically.
Status writeSafetensors(const std::string& path, const TensorList& tensors, const StringMap& metadata = {});

}  // namespace gs::model
