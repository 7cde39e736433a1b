#include "model/row_kernels.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "model/bf16.h"
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

// LayerNorm of one fp32 row into bfloat16.
GS_CPU_CLONES void normalizeRow(const float* __restrict row, uint16_t* __restrict out, const float* __restrict gamma,
                                const float* __restrict beta, float eps, int64_t n) {
  float sum = 0.f;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < n; ++j) sum += row[j];
  const float mean = sum / static_cast<float>(n);
  float squares = 0.f;
#pragma omp simd reduction(+ : squares)
  for (int64_t j = 0; j < n; ++j) squares += (row[j] - mean) * (row[j] - mean);
  const float inv = 1.f / std::sqrt(squares / static_cast<float>(n) + eps);
  for (int64_t j = 0; j < n; ++j) out[j] = toBf16((row[j] - mean) * inv * gamma[j] + beta[j]);
}

GS_CPU_CLONES void addRow(float* __restrict out, const float* __restrict row, int64_t n) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) out[j] += row[j];
}

}  // namespace

void sumNodeEmbeddings(const int64_t* nodes, const int64_t* degree, const NodeTables& tables, float* out, int64_t B,
                       int64_t N, int64_t F, int64_t cols) {
  at::parallel_for(0, B * N, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float* dst = out + ((r / N) * (N + 1) + 1 + r % N) * cols;
      const int64_t d = degree[r];
      std::memcpy(dst, tables.in_degree + d * cols, sizeof(float) * static_cast<size_t>(cols));
      addRow(dst, tables.out_degree + d * cols, cols);
      for (int64_t f = 0; f < F; ++f) addRow(dst, tables.atoms + nodes[r * F + f] * cols, cols);
    }
  });
}

namespace {
// row = x (+ add): the sum is made in fp32 and rounded only after the norm.
template <typename T>
void layerNormRows(const T* x, const uint16_t* add, uint16_t* out, const float* gamma, const float* beta, float eps,
                   int64_t rows, int64_t cols) {
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    std::vector<float> row(static_cast<size_t>(cols));
    for (int64_t r = begin; r < end; ++r) {
      const T* src = x + r * cols;
      for (int64_t j = 0; j < cols; ++j) row[j] = toFloat(src[j]);
      if (add)
        for (int64_t j = 0; j < cols; ++j) row[j] += toFloat(add[r * cols + j]);
      normalizeRow(row.data(), out + r * cols, gamma, beta, eps, cols);
    }
  });
}
}  // namespace

void layerNormToBf16(const void* x, bool x_bf16, const uint16_t* add, uint16_t* out, const float* gamma,
                     const float* beta, float eps, int64_t rows, int64_t cols) {
  if (x_bf16) {
    layerNormRows(static_cast<const uint16_t*>(x), add, out, gamma, beta, eps, rows, cols);
  } else {
    layerNormRows(static_cast<const float*>(x), add, out, gamma, beta, eps, rows, cols);
  }
}

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
