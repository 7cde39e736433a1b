#pragma once
// A restricted unpickler for what torch.save writes (pickle protocols 2-5). It never executes
// pickled code: only the opcodes state dicts use are accepted, and only these globals act:
//   collections.OrderedDict             -> a dict
//   torch._utils._rebuild_tensor(_v2)    -> a tensor view of a storage
//   torch._utils._rebuild_parameter      -> its tensor
//   torch.*Storage (persistent ids)      -> storage loaded through the caller's callback
// Every other global (argparse.Namespace, numpy scalars, ...) becomes an inert placeholder whose
// constructor arguments and BUILD state are kept as data.
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "model/format/pickle_value.h"

namespace gs::model {

// Loads storage `key` with `numel` elements of `dtype` (e.g. record "data/<key>" of a zip file).
using StorageLoader =
    std::function<Result<torch::Tensor>(const std::string& key, c10::ScalarType dtype, int64_t numel)>;

Result<PyRef> unpickle(std::string_view bytes, const StorageLoader& load_storage);

}  // namespace gs::model
