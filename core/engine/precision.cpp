#include "engine/precision.h"

namespace gs::engine {

const char* precisionName(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::BF16: return "bf16";
    case Precision::FP16: return "fp16";
    case Precision::INT8: return "int8";
  }
  return "fp32";
}

bool parsePrecision(const std::string& name, Precision* out) {
  for (Precision p : {Precision::FP32, Precision::BF16, Precision::FP16, Precision::INT8}) {
    if (name == precisionName(p)) {
      *out = p;
      return true;
    }
  }
  return false;
}

}  // namespace gs::engine
