#pragma once
// The values a restricted unpickler can produce. Nothing here refers to Python code: a pickled
// class reference is data (module + name), and "calling" one that is not on the allow-list only
// records the call.
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gs::model {

struct PyValue;
using PyRef = std::shared_ptr<PyValue>;

struct PyValue {
  enum class Kind { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict, Global, Object, Storage, Tensor };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0.0;
  std::string text;                            // String, Bytes; Global: "module.name"
  std::vector<PyRef> items;                    // List, Tuple; Object: constructor arguments
  std::vector<std::pair<PyRef, PyRef>> pairs;  // Dict (insertion order); Object: attributes from BUILD
  PyRef type;                                  // Object: its class (a Global)
  torch::Tensor tensor;                        // Storage (1-D, its dtype) and Tensor

  static PyRef make(Kind kind) {
    auto v = std::make_shared<PyValue>();
    v->kind = kind;
    return v;
  }
  bool isString() const { return kind == Kind::String; }
  // Dict or Object-attribute lookup by string key; nullptr when absent.
  PyRef get(const std::string& key) const;
  const char* kindName() const;
};

}  // namespace gs::model
