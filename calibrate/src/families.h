// One measuring function per family of kernel kinds. Each appends one
// AlgoResult per algorithm measured; a non-ok return with nothing appended
// means the whole key is unsupported or failed (one record, algo "-").
#ifndef DLSIM_CALIBRATE_FAMILIES_H_
#define DLSIM_CALIBRATE_FAMILIES_H_

#include <vector>

#include "context.h"
#include "key.h"
#include "status.h"

namespace dlcal {

// conv_fwd, conv_bias_act, conv_bwd_data, conv_bwd_filter (conv.cc)
Status MeasureConv(const Key& key, Context& ctx, std::vector<AlgoResult>* out);
// conv_fwd, conv_bwd_data, conv_bwd_filter through cuDNN's graph API: the
// engine configurations of heuristics mode A and the fallback list
// (conv_engines.cc)
Status MeasureConvEngines(const Key& key, Context& ctx, std::vector<AlgoResult>* out);
// gemm, batched_gemm (gemm.cc)
Status MeasureGemm(const Key& key, Context& ctx, std::vector<AlgoResult>* out);
// batchnorm_*, pool_*, softmax_*, lrn_fwd (norm_pool.cc)
Status MeasureNormPool(const Key& key, Context& ctx, std::vector<AlgoResult>* out);
// rnn_fwd, rnn_bwd_data, rnn_bwd_weights (rnn.cc)
Status MeasureRnn(const Key& key, Context& ctx, std::vector<AlgoResult>* out);
// elementwise, reduction, copy, optimizer, layernorm_* and the launch /
// transfer probes (memory_ops.cc)
Status MeasureMemory(const Key& key, Context& ctx, std::vector<AlgoResult>* out);

// FLOPs of a gemm/batched_gemm key: 2 m n k per batch entry.
double GemmFlops(const Key& key);

// Dispatches on key.family (family.h).
Status MeasureKey(const Key& key, Context& ctx, std::vector<AlgoResult>* out);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_FAMILIES_H_
