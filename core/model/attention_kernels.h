#pragma once
// Graphormer's attention products in CPU inference as direct BLAS calls. LibTorch 1.13 built
// without MKL runs a batched matmul of many small matrices (B*H products of T x d by d x T, T ~ 30,
// d = 10..32) as one dispatched addmm per matrix, which costs more than the arithmetic; a plain
// sgemm per (batch, head) on the projections' own strided layout skips both the dispatch and the
// transposes. Available when the build found a BLAS (GS_HAVE_BLAS); callers fall back otherwise.
//   q, k, v: [B, T, H, d] contiguous, float32 or bfloat16 (16-bit weight copies), read in fp32
//   bias:    [B, H, T, T] contiguous float32 (may be -inf); out: [B, T, H, d] float32
// Work runs per (molecule, head) in scratch of T*T + 3*T*d floats per thread, so no [B, H, T, T]
// scores tensor is made. Softmax is in place over each score row with a vectorised exp (relative
// error < 2e-7; LibTorch 1.13's CPU softmax over short rows is several times slower than the
// products around it); fully masked rows give zeros.
#include <cstdint>

namespace gs::model::kernels {

bool available();

// out[b,i,h,:] = sum_j softmax_j(bias[b,h,i,j] + scale * q[b,i,h,:] . k[b,j,h,:]) v[b,j,h,:]
void attention(const void* q, const void* k, const void* v, bool bfloat16, float scale, const float* bias, float* out,
               int64_t B, int64_t T, int64_t H, int64_t d);

// Graphormer's multi-hop edge term, gathered in one pass instead of an embedding_bag over
// B*N*N*D bags: out[b,h,i,j] = sum_{d<D} sum_f table[d, edges[b,i,j,d,f], h] / divisor[b,i,j].
//   edges: [B, N, N, Dfull, F] int64 (only the first D hops are read), values < V
//   table: [D, V, H] float32 (the edge embeddings already multiplied by each hop's H x H matrix
//          and divided by F), divisor: [B, N, N] float32, out: [B, H, N, N] float32
void multiHopEdgeTerm(const int64_t* edges, const float* table, const float* divisor, float* out, int64_t B, int64_t N,
                      int64_t d_full, int64_t D, int64_t F, int64_t V, int64_t H);

}  // namespace gs::model::kernels
