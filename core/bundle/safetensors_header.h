#pragma once
// The header of a safetensors file, read without LibTorch: its length is checked against the file
// size, its JSON parsed, and its "__metadata__" string map extracted. model/format/safetensors.cpp reads
// the tensors on top of it; the model bundle reads only this (adapter descriptions, model cards).
#include <cstdint>
#include <map>
#include <string>

#include "common/json_value.h"
#include "common/status.h"

namespace gs::bundle {

using StringMap = std::map<std::string, std::string>;

struct SafetensorsHeader {
  JsonValue json;      // the whole header object (tensor entries and __metadata__)
  StringMap metadata;  // the "__metadata__" string map
  uint64_t file_size = 0;
  uint64_t data_start = 0;  // offset of the first tensor byte
};

Result<SafetensorsHeader> readSafetensorsHeader(const std::string& path);

// "safetensors file '<path>': <what>" as a MalformedRecord status.
Status safetensorsError(const std::string& path, const std::string& what);

}  // namespace gs::bundle
