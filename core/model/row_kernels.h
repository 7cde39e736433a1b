#pragma once
// Row kernels of CPU inference.
// Per-row (per-token) activation scaling for int8 products, in two fused passes.
//   scaleRows: out[r, :] = x[r, :] / s[r] with s[r] = max |x[r, :]| (1 for an all-zero row), so
//              every row lies in [-1, 1]; x, out: rows x cols float32 (row-major), s: rows.
//   unscaleRows: y[r, :] = y[r, :] * s[r] + bias (bias may be null); y: rows x cols float32 with
//              leading dimension ld.
#include <cstdint>

namespace gs::model::kernels {

void scaleRows(const float* x, float* out, float* s, int64_t rows, int64_t cols);
void unscaleRows(float* y, const float* s, const float* bias, int64_t rows, int64_t cols, int64_t ld);

// Graphormer's node features for inference, written straight into the encoder input:
//   out[b, 1+i, :] = sum_f atoms[nodes[b,i,f], :] + in_table[degree[b,i], :] + out_table[degree[b,i], :]
// nodes: [B, N, F] int64; degree: [B, N] int64; tables: row-major with `cols` columns (indices
// in range: the caller checks); out: [B, 1+N, cols] float32 (row 0 of each molecule untouched).
struct NodeTables {
  const float* atoms = nullptr;
  const float* in_degree = nullptr;
  const float* out_degree = nullptr;
};
void sumNodeEmbeddings(const int64_t* nodes, const int64_t* degree, const NodeTables& tables, float* out, int64_t B,
                       int64_t N, int64_t F, int64_t cols);

// Layer norm of x (+ add) into bfloat16 rows (the bfloat16 residual stream): the residual sum,
// mean, variance (biased, as torch's), normalisation and the fp32 affine in fp32, one rounding to
// bfloat16 at the end.
//   x: rows x cols float32, or bfloat16 bits where x_bf16 (row-major); add: null, or rows x cols
//   bfloat16 bits; out: rows x cols bfloat16 bits; gamma, beta: cols float32
void layerNormToBf16(const void* x, bool x_bf16, const uint16_t* add, uint16_t* out, const float* gamma,
                     const float* beta, float eps, int64_t rows, int64_t cols);

}  // namespace gs::model::kernels
