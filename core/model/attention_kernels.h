#pragma once
// Graphormer's attention products in CPU inference as direct BLAS calls. LibTorch 1.13 built
// without MKL runs a batched matmul of many small matrices (B*H products of T x d by d x T, T ~ 30,
// d = 10..32) as one dispatched addmm per matrix, which costs more than the arithmetic; a plain
// sgemm per (batch, head) on the projections' own strided layout skips both the dispatch and the
// transposes. Available when the build found a BLAS (GS_HAVE_BLAS); callers fall back otherwise.
//   q, k, v, out: [B, T, H, d] contiguous float32 (q already scaled by 1/sqrt(d))
//   scores:       [B, H, T, T] contiguous float32, holding the bias on entry (may be -inf)
#include <cstdint>

namespace gs::model::kernels {

bool available();

// scores[b,h,i,j] += sum_c q[b,i,h,c] * k[b,j,h,c]
void attentionScores(const float* q, const float* k, float* scores, int64_t B, int64_t T, int64_t H, int64_t d);

// out[b,i,h,:] = sum_j probs[b,h,i,j] * v[b,j,h,:]
void attentionValues(const float* probs, const float* v, float* out, int64_t B, int64_t T, int64_t H, int64_t d);

// In-place softmax over the last dimension of rows x n float32 values (-inf -> exactly 0), with a
// vectorised exp (relative error < 2e-7). LibTorch 1.13's CPU softmax over short rows is several
// times slower than the products around it.
void softmaxRows(float* data, int64_t rows, int64_t n);

// Graphormer's multi-hop edge term, gathered in one pass instead of an embedding_bag over
// B*N*N*D bags: out[b,h,i,j] = sum_{d<D} sum_f table[d, edges[b,i,j,d,f], h] / divisor[b,i,j].
//   edges: [B, N, N, Dfull, F] int64 (only the first D hops are read), values < V
//   table: [D, V, H] float32 (the edge embeddings already multiplied by each hop's H x H matrix
//          and divided by F), divisor: [B, N, N] float32, out: [B, H, N, N] float32
void multiHopEdgeTerm(const int64_t* edges, const float* table, const float* divisor, float* out, int64_t B, int64_t N,
                      int64_t d_full, int64_t D, int64_t F, int64_t V, int64_t H);

}  // namespace gs::model::kernels
