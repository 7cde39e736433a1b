#include "bundle/safetensors_header.h"

#include <fstream>

namespace gs::bundle {
namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // the reference implementation's limit

Status readMetadata(const std::string& path, const JsonValue& v, StringMap& out) {
  if (!v.isObject()) return safetensorsError(path, "__metadata__ is not an object");
  for (const auto& [k, value] : v.members()) {
    if (!value.isString()) return safetensorsError(path, "__metadata__ value for '" + k + "' is not a string");
    out[k] = value.asString();
  }
  return Status::ok();
}

}  // namespace

Status safetensorsError(const std::string& path, const std::string& what) {
  return {StatusCode::MalformedRecord, "safetensors file '" + path + "': " + what};
}

Result<SafetensorsHeader> readSafetensorsHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Status(StatusCode::IoError, "cannot open '" + path + "'");
  SafetensorsHeader h;
  h.file_size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  unsigned char len_bytes[8] = {};
  if (h.file_size < 8 || !in.read(reinterpret_cast<char*>(len_bytes), 8))
    return safetensorsError(path, "shorter than the 8-byte header length");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  if (header_len > kMaxHeader)
    return safetensorsError(path, "header length " + std::to_string(header_len) + " exceeds 100 MB");
  if (header_len > h.file_size - 8)
    return safetensorsError(path, "header length " + std::to_string(header_len) + " points past the end of the file (" +
                                      std::to_string(h.file_size) + " bytes; truncated file?)");
  std::string text(header_len, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(header_len)))
    return safetensorsError(path, "cannot read the header");
  auto json = JsonValue::parse(text);
  if (!json.isOk()) return safetensorsError(path, "header is not valid JSON (" + json.status().message() + ")");
  if (!json->isObject()) return safetensorsError(path, "header is not a JSON object");
  h.json = std::move(json.value());
  if (const JsonValue* md = h.json.find("__metadata__"))
    if (Status s = readMetadata(path, *md, h.metadata); !s.isOk()) return s;
  h.data_start = 8 + header_len;
  return h;
}

}  // namespace gs::bundle
