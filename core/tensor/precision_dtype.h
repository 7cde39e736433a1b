#pragma once
// The LibTorch dtype of each NumberFormat of the precision table (tensor/precision.h).
#include <c10/core/ScalarType.h>

#include "tensor/precision.h"

namespace gs::tensor {

inline c10::ScalarType scalarType(NumberFormat f) {
  switch (f) {
    case NumberFormat::BFloat16: return c10::ScalarType::BFloat16;
    case NumberFormat::Float16: return c10::ScalarType::Half;
    case NumberFormat::Int8: return c10::ScalarType::QInt8;
    case NumberFormat::Float32: break;
  }
  return c10::ScalarType::Float;
}

// What the precision's matrix products run in: autocast's type for the 16-bit rows.
inline c10::ScalarType productType(Precision p) { return scalarType(traits(p).products); }
// What the session's own copy of the weights holds (fp32 for INT8: it quantises its own).
inline c10::ScalarType weightType(Precision p) {
  return traits(p).weights == NumberFormat::Int8 ? c10::ScalarType::Float : scalarType(traits(p).weights);
}

}  // namespace gs::tensor
