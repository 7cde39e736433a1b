#pragma once
// Named tensors in file order: what every checkpoint reader produces.
#include <torch/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gs::model {

using TensorList = std::vector<std::pair<std::string, torch::Tensor>>;
using StringMap = std::map<std::string, std::string>;

// "[4609, 32]"
std::string shapeString(c10::IntArrayRef shape);

}  // namespace gs::model
