#include "model/format/torch_zip.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include <cstring>
#include <fstream>

#include "model/format/unpickler.h"

namespace gs::model {
namespace {

Status fail(const std::string& path, const std::string& what) {
  return {StatusCode::MalformedRecord, "PyTorch checkpoint '" + path + "': " + what};
}

// The pre-1.6 format starts with a pickled magic number instead of a zip header.
bool looksLikeLegacyPickle(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[2] = {};
  in.read(head, 2);
  return in.gcount() == 2 && static_cast<unsigned char>(head[0]) == 0x80;
}

}  // namespace

Result<PyRef> readTorchZip(const std::string& path) {
  {
    std::ifstream probe(path, std::ios::binary);
    if (!probe) return Status(StatusCode::IoError, "cannot open '" + path + "'");
  }
  if (looksLikeLegacyPickle(path))
    return fail(path,
                "legacy (pre-1.6) torch.save format; re-save it with a current PyTorch or convert to safetensors");
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    if (!reader.hasRecord("data.pkl")) return fail(path, "no data.pkl record (not a torch.save file?)");
    auto [pickle_ptr, pickle_size] = reader.getRecord("data.pkl");
    std::string_view pickle(static_cast<const char*>(pickle_ptr.get()), pickle_size);
    StorageLoader load = [&](const std::string& key, c10::ScalarType dtype, int64_t numel) -> Result<torch::Tensor> {
      const std::string record = "data/" + key;
      if (!reader.hasRecord(record)) return fail(path, "storage record '" + record + "' is missing");
      auto [ptr, size] = reader.getRecord(record);
      const uint64_t bytes = static_cast<uint64_t>(numel) * c10::elementSize(dtype);
      if (size < bytes)
        return fail(path, "storage '" + record + "' holds " + std::to_string(size) + " bytes, " +
                              std::to_string(bytes) + " expected");
      auto t = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
      if (bytes) std::memcpy(t.data_ptr(), ptr.get(), bytes);
      return t;
    };
    auto result = unpickle(pickle, load);
    if (!result.isOk()) return Status(result.status().code(), "'" + path + "': " + result.status().message());
    return result;
  } catch (const c10::Error& e) {
    return fail(path, std::string("not a readable zip archive (truncated or corrupt?): ") + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return fail(path, e.what());
  }
}

}  // namespace gs::model
