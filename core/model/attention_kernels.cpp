#include "model/attention_kernels.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "model/bf16.h"
#include "model/cpu_clones.h"

#ifdef GS_HAVE_BLAS
extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc);
#endif

namespace gs::model::kernels {
namespace {

// exp(x) for x <= 0 (softmax after subtracting the row max): 2^n * p(r), r in [-ln2/2, ln2/2],
// Cody-Waite reduction and a degree-6 polynomial; inputs below -87 give exactly 0.
inline float expNonPositive(float x) {
  const float t = x > -87.f ? x : -87.f;
  // round to nearest by the 1.5 * 2^23 trick: vectorises where floorf would be a call
  const float n = (t * 1.44269504f + 12582912.f) - 12582912.f;
  const float r = (t - n * 0.693145752f) - n * 1.42860677e-6f;
  float p = 1.38888889e-3f;
  p = p * r + 8.33333333e-3f;
  p = p * r + 4.16666667e-2f;
  p = p * r + 1.66666667e-1f;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return x < -87.f ? 0.f : p * scale;
}

GS_CPU_CLONES void softmaxRow(float* __restrict row, int64_t n) {
  float mx = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : mx)
  for (int64_t j = 0; j < n; ++j) mx = row[j] > mx ? row[j] : mx;
  if (mx == -std::numeric_limits<float>::infinity()) mx = 0.f;  // fully masked row: all zeros
  float sum = 0.f;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < n; ++j) {
    row[j] = expNonPositive(row[j] - mx);
    sum += row[j];
  }
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  for (int64_t j = 0; j < n; ++j) row[j] *= inv;
}

GS_CPU_CLONES void edgePair(const int64_t* __restrict e, const float* __restrict table, float* __restrict acc,
                            int64_t D, int64_t F, int64_t V, int64_t H) {
  for (int64_t h = 0; h < H; ++h) acc[h] = 0.f;
  for (int64_t d = 0; d < D; ++d) {
    for (int64_t f = 0; f < F; ++f) {
      const float* __restrict row = table + (d * V + e[d * F + f]) * H;
      for (int64_t h = 0; h < H; ++h) acc[h] += row[h];
    }
  }
}

}  // namespace

namespace {
// One row (b, i) of the bias, every head: acc[j * H + h].
void biasRow(const BiasTerms& p, int64_t b, int64_t i, float* acc) {
  const int64_t N = p.N, H = p.H, T = N + 1;
  const float* collated = p.collated + (b * T + i) * T;
  for (int64_t j = 0; j < T; ++j) {
    float* a = acc + j * H;
    if (i == 0 || j == 0) {
      for (int64_t h = 0; h < H; ++h) a[h] = p.token[h];
    } else {
      const int64_t pair = (b * N + i - 1) * N + j - 1;
      edgePair(p.edges + pair * p.d_full * p.F, p.table, a, p.D, p.F, p.V, H);
      const int64_t s = p.spatial_pos[pair];
      const float inv = p.feature_mean / static_cast<float>(std::min(std::max<int64_t>(s - 1, 1), p.max_dist));
      const float* spatial = p.spatial_table + s * H;
      for (int64_t h = 0; h < H; ++h) a[h] = spatial[h] + a[h] * inv;
    }
    const float c = collated[j] + collated[j];  // the reference adds the collated bias twice (0 or -inf)
    for (int64_t h = 0; h < H; ++h) a[h] += c;
  }
}

template <typename Out>
void attentionBiasTyped(const BiasTerms& p, Out* out) {
  const int64_t H = p.H, T = p.N + 1;
  at::parallel_for(0, p.B * T, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> acc(static_cast<size_t>(T * H));
    for (int64_t bi = begin; bi < end; ++bi) {
      const int64_t b = bi / T, i = bi % T;
      biasRow(p, b, i, acc.data());
      for (int64_t h = 0; h < H; ++h) {
        Out* row = out + ((b * H + h) * T + i) * T;
        for (int64_t j = 0; j < T; ++j) store(row + j, acc[j * H + h]);
      }
    }
  });
}
}  // namespace

void attentionBias(const BiasTerms& terms, void* out, bool bfloat16) {
  if (bfloat16)
    attentionBiasTyped(terms, static_cast<uint16_t*>(out));
  else
    attentionBiasTyped(terms, static_cast<float*>(out));
}

namespace {
// One head's [T, d] slice of a [B, T, H, d] tensor as contiguous fp32, times `scale`.
template <typename T>
void loadSlice(const T* src, float* dst, int64_t t, int64_t d, int64_t ld, float scale) {
  for (int64_t i = 0; i < t; ++i)
    for (int64_t c = 0; c < d; ++c) dst[i * d + c] = toFloat(src[i * ld + c]) * scale;
}
}  // namespace

#ifdef GS_HAVE_BLAS
bool available() { return true; }

// One head's [T, d] result from contiguous fp32 into its slice of a [B, T, H, d] tensor.
template <typename T>
void storeSlice(const float* src, T* dst, int64_t t, int64_t d, int64_t ld) {
  for (int64_t i = 0; i < t; ++i)
    for (int64_t c = 0; c < d; ++c) store(dst + i * ld + c, src[i * d + c]);
}

// Per (molecule, head), in scratch of T*T + 4*T*d floats: the slices of q, k, v in fp32, the
// scores on an fp32 copy of the bias, softmax, and the product with v, stored into out's slice.
// Row-major X (r x c) is column-major X^T: the products are written for Fortran BLAS in those terms.

template <typename T, typename Bias>
void attentionTyped(const T* q, const T* k, const T* v, float scale, const Bias* bias, T* out, int64_t B, int64_t T_,
                    int64_t H, int64_t d) {
  at::parallel_for(0, B * H, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch(static_cast<size_t>(T_ * T_ + 4 * T_ * d));
    float *scores = scratch.data(), *qs = scores + T_ * T_, *ks = qs + T_ * d, *vs = ks + T_ * d, *os = vs + T_ * d;
    const int t = static_cast<int>(T_), dd = static_cast<int>(d);
    const float one = 1.f, zero = 0.f;
    for (int64_t bh = begin; bh < end; ++bh) {
      const int64_t offset = (bh / H) * T_ * H * d + (bh % H) * d;
      loadSlice(q + offset, qs, T_, d, H * d, scale);
      loadSlice(k + offset, ks, T_, d, H * d, 1.f);
      loadSlice(v + offset, vs, T_, d, H * d, 1.f);
      loadSlice(bias + bh * T_ * T_, scores, 1, T_ * T_, 0, 1.f);
      // column-major S^T = K Q^T, i.e. row-major S = Q K^T, accumulated onto the bias
      sgemm_("T", "N", &t, &t, &dd, &one, ks, &dd, qs, &dd, &one, scores, &t);
      for (int64_t i = 0; i < T_; ++i) softmaxRow(scores + i * T_, T_);
      // column-major O^T = V^T P^T, i.e. row-major O = P V, then into out's [T, d] slice
      sgemm_("N", "N", &dd, &t, &t, &one, vs, &dd, scores, &t, &zero, os, &dd);
      storeSlice(os, out + offset, T_, d, H * d);
    }
  });
}

namespace {
template <typename Bias>
void attentionWithBias(const void* q, const void* k, const void* v, bool bfloat16, float scale, const Bias* bias,
                       void* out, int64_t B, int64_t T, int64_t H, int64_t d) {
  if (bfloat16) {
    attentionTyped(static_cast<const uint16_t*>(q), static_cast<const uint16_t*>(k), static_cast<const uint16_t*>(v),
                   scale, bias, static_cast<uint16_t*>(out), B, T, H, d);
  } else {
    attentionTyped(static_cast<const float*>(q), static_cast<const float*>(k), static_cast<const float*>(v), scale,
                   bias, static_cast<float*>(out), B, T, H, d);
  }
}
}  // namespace

void attention(const void* q, const void* k, const void* v, bool bfloat16, float scale, const void* bias,
               bool bias_bf16, void* out, int64_t B, int64_t T, int64_t H, int64_t d) {
  if (bias_bf16)
    attentionWithBias(q, k, v, bfloat16, scale, static_cast<const uint16_t*>(bias), out, B, T, H, d);
  else
    attentionWithBias(q, k, v, bfloat16, scale, static_cast<const float*>(bias), out, B, T, H, d);
}
#else
bool available() { return false; }
void attention(const void*, const void*, const void*, bool, float, const void*, bool, void*, int64_t, int64_t, int64_t,
               int64_t) {}
#endif

}  // namespace gs::model::kernels
