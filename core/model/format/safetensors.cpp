#include "model/format/safetensors.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "bundle/safetensors_header.h"
#include "common/atomic_file.h"
#include "common/json_value.h"
#include "common/json_writer.h"

namespace gs::model {
namespace {

struct DtypeName {
  const char* name;
  c10::ScalarType type;
};
constexpr DtypeName kDtypes[] = {{"F64", c10::ScalarType::Double}, {"F32", c10::ScalarType::Float},
                                 {"F16", c10::ScalarType::Half},   {"BF16", c10::ScalarType::BFloat16},
                                 {"I64", c10::ScalarType::Long},   {"I32", c10::ScalarType::Int},
                                 {"I16", c10::ScalarType::Short},  {"I8", c10::ScalarType::Char},
                                 {"U8", c10::ScalarType::Byte},    {"BOOL", c10::ScalarType::Bool}};

struct Entry {
  std::string name;
  c10::ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

Status fail(const std::string& path, const std::string& what) { return bundle::safetensorsError(path, what); }

Result<Entry> parseEntry(const std::string& path, const std::string& name, const JsonValue& v) {
  if (!v.isObject()) return fail(path, "entry '" + name + "' is not an object");
  const JsonValue* dtype = v.find("dtype");
  const JsonValue* shape = v.find("shape");
  const JsonValue* offsets = v.find("data_offsets");
  if (!dtype || !dtype->isString() || !shape || !shape->isArray() || !offsets || !offsets->isArray())
    return fail(path, "tensor '" + name + "' needs dtype, shape and data_offsets");
  Entry e{name, c10::ScalarType::Undefined, {}, 0, 0};
  for (const auto& d : kDtypes)
    if (dtype->asString() == d.name) e.dtype = d.type;
  if (e.dtype == c10::ScalarType::Undefined)
    return fail(path, "tensor '" + name + "' has unsupported dtype '" + dtype->asString() + "'");
  uint64_t numel = 1;
  for (const JsonValue& dim : shape->items()) {
    if (!dim.isInteger() || dim.asInteger() < 0 || dim.asInteger() > (int64_t{1} << 40))
      return fail(path, "tensor '" + name + "' has an invalid shape");
    e.shape.push_back(dim.asInteger());
    numel *= static_cast<uint64_t>(dim.asInteger());
    if (numel > (uint64_t{1} << 40)) return fail(path, "tensor '" + name + "' is impossibly large");
  }
  if (offsets->items().size() != 2 || !offsets->items()[0].isInteger() || !offsets->items()[1].isInteger() ||
      offsets->items()[0].asInteger() < 0 || offsets->items()[1].asInteger() < offsets->items()[0].asInteger())
    return fail(path, "tensor '" + name + "' has invalid data_offsets");
  e.begin = static_cast<uint64_t>(offsets->items()[0].asInteger());
  e.end = static_cast<uint64_t>(offsets->items()[1].asInteger());
  const uint64_t bytes = numel * c10::elementSize(e.dtype);
  if (e.end - e.begin != bytes)
    return fail(path, "tensor '" + name + "' " + dtype->asString() + shapeString(e.shape) + " needs " +
                          std::to_string(bytes) + " bytes but its offsets span " + std::to_string(e.end - e.begin));
  return e;
}

Status checkLayout(const std::string& path, std::vector<Entry>& entries, uint64_t data_size) {
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  uint64_t cursor = 0;
  for (const Entry& e : entries) {
    if (e.end > data_size)
      return fail(path, "tensor '" + e.name + "' ends at byte " + std::to_string(e.end) + " but the data section has " +
                            std::to_string(data_size) + " bytes (truncated file?)");
    if (e.begin < cursor) return fail(path, "tensor '" + e.name + "' overlaps the tensor before it");
    if (e.begin > cursor) return fail(path, "unused bytes before tensor '" + e.name + "'");
    cursor = e.end;
  }
  if (cursor != data_size)
    return fail(path, std::to_string(data_size - cursor) + " unused bytes after the last tensor");
  return Status::ok();
}

}  // namespace

std::string shapeString(c10::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Result<SafetensorsFile> readSafetensors(const std::string& path) {
  auto header = bundle::readSafetensorsHeader(path);
  if (!header.isOk()) return header.status();
  SafetensorsFile file;
  file.metadata = header->metadata;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header->json.members()) {
    if (name == "__metadata__") continue;
    auto entry = parseEntry(path, name, value);
    if (!entry.isOk()) return entry.status();
    entries.push_back(std::move(entry.value()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::IoError, "cannot open '" + path + "'");
  const uint64_t data_start = header->data_start;
  if (Status s = checkLayout(path, entries, header->file_size - data_start); !s.isOk()) return s;
  for (const Entry& e : entries) {
    auto t = torch::empty(e.shape, torch::TensorOptions().dtype(e.dtype));
    in.seekg(static_cast<std::streamoff>(data_start + e.begin));
    if (e.end > e.begin && !in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(e.end - e.begin)))
      return fail(path, "cannot read the data of tensor '" + e.name + "'");
    file.tensors.emplace_back(e.name, std::move(t));
  }
  return file;
}

Status writeSafetensors(const std::string& path, const TensorList& tensors, const StringMap& metadata) {
  std::vector<torch::Tensor> data;
  std::ostringstream header;
  JsonWriter w(header);
  w.beginObject();
  if (!metadata.empty()) {
    w.key("__metadata__").beginObject();
    for (const auto& [k, v] : metadata) w.field(k, std::string_view(v));
    w.endObject();
  }
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    auto t = tensor.detach().to(torch::kCPU).contiguous();
    const char* dtype = nullptr;
    for (const auto& d : kDtypes)
      if (d.type == t.scalar_type()) dtype = d.name;
    if (!dtype) return {StatusCode::InvalidArgument, "cannot store tensor '" + name + "' of this dtype in safetensors"};
    const uint64_t bytes = t.numel() * t.element_size();
    w.key(name).beginObject().field("dtype", dtype).key("shape").beginArray();
    for (int64_t d : t.sizes()) w.value(d);
    w.endArray()
        .key("data_offsets")
        .beginArray()
        .value(static_cast<int64_t>(offset))
        .value(static_cast<int64_t>(offset + bytes))
        .endArray()
        .endObject();
    offset += bytes;
    data.push_back(std::move(t));
  }
  w.endObject();
  std::string h = header.str();
  h.append((8 - h.size() % 8) % 8, ' ');
  AtomicFile file(path, /*binary=*/true);
  if (!file.isOpen()) return file.openStatus();
  unsigned char len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<unsigned char>(static_cast<uint64_t>(h.size()) >> (8 * i));
  file.stream().write(reinterpret_cast<const char*>(len_bytes), 8);
  file.stream().write(h.data(), static_cast<std::streamsize>(h.size()));
  for (const auto& t : data)
    file.stream().write(static_cast<const char*>(t.data_ptr()),
                        static_cast<std::streamsize>(t.numel() * t.element_size()));
  return file.commit();
}

}  // namespace gs::model
