#include "model/row_kernels.h"

#include <ATen/Parallel.h>

#include <cmath>

#include "model/cpu_clones.h"

namespace gs::model::kernels {
namespace {

GS_CPU_CLONES void scaleRow(const float* __restrict x, float* __restrict out, float* s, int64_t n) {
  float mx = 0.f;
#pragma omp simd reduction(max : mx)
  for (int64_t j = 0; j < n; ++j) mx = std::fabs(x[j]) > mx ? std::fabs(x[j]) : mx;
  const float scale = mx > 0.f && std::isfinite(mx) ? mx : 1.f;
  // Division, not multiplication by 1/scale: correctly rounded, |x| <= scale gives |out| <= 1
  // exactly, so no row can widen the [-1, 1] range the int8 kernel's scale is fixed by.
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) out[j] = x[j] / scale;
  *s = scale;
}

GS_CPU_CLONES void unscaleRow(float* __restrict y, float s, const float* __restrict bias, int64_t n) {
  if (bias) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) y[j] = y[j] * s + bias[j];
  } else {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) y[j] *= s;
  }
}

}  // namespace

void scaleRows(const float* x, float* out, float* s, int64_t rows, int64_t cols) {
  at::parallel_for(0, rows, 64, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) scaleRow(x + r * cols, out + r * cols, s + r, cols);
  });
}

void unscaleRows(float* y, const float* s, const float* bias, int64_t rows, int64_t cols, int64_t ld) {
  at::parallel_for(0, rows, 64, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) unscaleRow(y + r * ld, s[r], bias, cols);
  });
}

}  // namespace gs::model::kernels
