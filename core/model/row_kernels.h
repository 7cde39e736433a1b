#pragma once
// Per-row (per-token) activation scaling for int8 products, in two fused passes.
//   scaleRows: out[r, :] = x[r, :] / s[r] with s[r] = max |x[r, :]| (1 for an all-zero row), so
//              every row lies in [-1, 1]; x, out: rows x cols float32 (row-major), s: rows.
//   unscaleRows: y[r, :] = y[r, :] * s[r] + bias (bias may be null); y: rows x cols float32 with
//              leading dimension ld.
#include <cstdint>

namespace gs::model::kernels {

void scaleRows(const float* x, float* out, float* s, int64_t rows, int64_t cols);
void unscaleRows(float* y, const float* s, const float* bias, int64_t rows, int64_t cols, int64_t ld);

}  // namespace gs::model::kernels
