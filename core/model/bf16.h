#pragma once
// bfloat16 <-> float32 for the CPU kernels: bfloat16 is the upper half of a float32. Rounding is
// to nearest, ties to even (as c10::BFloat16 and oneDNN round); NaN stays NaN.
#include <cstdint>
#include <cstring>

namespace gs::model::kernels {

inline float toFloat(float x) { return x; }
inline float toFloat(uint16_t x) {
  const uint32_t bits = static_cast<uint32_t>(x) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t toBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline void store(float* dst, float x) { *dst = x; }
inline void store(uint16_t* dst, float x) { *dst = toBf16(x); }

}  // namespace gs::model::kernels
