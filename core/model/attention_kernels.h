#pragma once
// Graphormer's attention products in CPU inference as direct BLAS calls. LibTorch 1.13 built
// without MKL runs a batched matmul of many small matrices (B*H products of T x d by d x T, T ~ 30,
// d = 10..32) as one dispatched addmm per matrix, which costs more than the arithmetic; a plain
// sgemm per (batch, head) on the projections' own strided layout skips both the dispatch and the
// transposes. Available when the build found a BLAS (GS_HAVE_BLAS); callers fall back otherwise.
//   q, k, v, out: [B, T, H, d] contiguous, all float32 or all bfloat16 (16-bit weight copies);
//   bias:    [B, H, T, T] contiguous float32, or bfloat16 where bias_bf16 (may be -inf)
// Products, softmax and sums are fp32 either way. Work runs per (molecule, head) in scratch of
// T*T + 4*T*d floats per thread, so no [B, H, T, T]
// scores tensor is made. Softmax is in place over each score row with a vectorised exp (relative
// error < 2e-7; LibTorch 1.13's CPU softmax over short rows is several times slower than the
// products around it); fully masked rows give zeros.
#include <cstdint>

namespace gs::model::kernels {

bool available();

// out[b,i,h,:] = sum_j softmax_j(bias[b,h,i,j] + scale * q[b,i,h,:] . k[b,j,h,:]) v[b,j,h,:]
void attention(const void* q, const void* k, const void* v, bool bfloat16, float scale, const void* bias,
               bool bias_bf16, void* out, int64_t B, int64_t T, int64_t H, int64_t d);

// Graphormer's attention bias built in one pass, for inference: no [B, N, N, H] lookup, no
// [B, H, N, N] edge term and no repeated copies. With T = N + 1 (graph token first):
//   out[b, h, i, j] = 2 * collated[b, i, j] + token[h]                        (i == 0 or j == 0)
//   out[b, h, 1+i, 1+j] = 2 * collated[b, 1+i, 1+j] + spatial_table[s, h]
//                         + sum_{d<D} sum_f table[d, edges[b,i,j,d,f], h] * feature_mean / divisor(s)
// with s = spatial_pos[b, i, j] (distance + 1, 0 for padding) and divisor(s) = min(max(s - 1, 1),
// max_dist), as the reference divides the summed hops; it adds the collated bias (0 or -inf) twice.
// Sums in fp32; out: [B, H, T, T] float32, or bfloat16 (one rounding). Indices must be in range
// (the caller checks).
struct BiasTerms {
  const float* collated = nullptr;       // [B, T, T]: 0, or -inf where masked
  const float* token = nullptr;          // [H]: the graph token's virtual distance
  const int64_t* edges = nullptr;        // [B, N, N, d_full, F] int64 (the first D hops are read), < V
  const float* table = nullptr;          // [>= D, V, H]: edge embeddings times each hop's H x H matrix
  const int64_t* spatial_pos = nullptr;  // [B, N, N] int64, < rows of spatial_table
  const float* spatial_table = nullptr;  // [S, H]
  int64_t B = 0, N = 0, d_full = 0, D = 0, F = 0, V = 0, H = 0, max_dist = 1;
  float feature_mean = 1.f;  // 1 / F: the reference averages the F edge features
};
void attentionBias(const BiasTerms& terms, void* out, bool bfloat16);

}  // namespace gs::model::kernels
