#include "bundle/lora_spec.h"

#include <sstream>

#include "bundle/safetensors_header.h"
#include "common/json_writer.h"

namespace gs::bundle {

std::string LoraSpec::toJson() const {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject()
      .field("rank", rank)
      .field("alpha", alpha)
      .field("base_sha256", base_sha256)
      .field("base_path", base_path)
      .field("base_config", base_config)
      .endObject();
  return out.str();
}

Result<LoraSpec> LoraSpec::fromJson(const JsonValue& json) {
  LoraSpec s;
  const auto* rank = json.find("rank");
  const auto* alpha = json.find("alpha");
  if (!rank || !rank->isInteger() || rank->asInteger() <= 0 || !alpha || !alpha->isNumber())
    return Status(StatusCode::InvalidArgument,
                  "adapter description needs a positive integer 'rank' and a number 'alpha'");
  s.rank = static_cast<int>(rank->asInteger());
  s.alpha = alpha->asNumber();
  if (const auto* sha = json.find("base_sha256"); sha && sha->isString()) s.base_sha256 = sha->asString();
  if (const auto* bp = json.find("base_path"); bp && bp->isString()) s.base_path = bp->asString();
  if (const auto* cfg = json.find("base_config"); cfg && cfg->isString()) s.base_config = cfg->asString();
  return s;
}

Result<LoraSpec> readAdapterSpec(const std::string& path) {
  auto header = readSafetensorsHeader(path);
  if (!header.isOk()) return header.status();
  return adapterSpecFromHeader(path, header->metadata);
}

Result<LoraSpec> adapterSpecFromHeader(const std::string& path, const std::map<std::string, std::string>& metadata) {
  auto it = metadata.find(kAdapterKey);
  if (it == metadata.end())
    return Status(StatusCode::InvalidArgument,
                  "'" + path + "' is not a LoRA adapter file (no " + kAdapterKey + " in its header)");
  auto json = JsonValue::parse(it->second);
  if (!json.isOk()) return Status(StatusCode::InvalidArgument, path + ": " + json.status().message());
  auto spec = LoraSpec::fromJson(json.value());
  if (!spec.isOk()) return Status(spec.status().code(), path + ": " + spec.status().message());
  return spec;
}

}  // namespace gs::bundle
