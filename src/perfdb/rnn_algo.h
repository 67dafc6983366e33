// The cuDNN RNN algorithm PyTorch picks for a recurrent layer, and the serial
// terms of the fitted RNN model that follow from it (docs/perfdb.md, "RNN
// terms"). A recurrent layer runs its time steps one after another, so its
// time is not its FLOPs over a rate: each algorithm has its own cost per step.
//   standard        one cuBLAS GEMM for every step's input projection, then a
//                   recurrent GEMM and a pointwise kernel per step and layer
//   persist small-h one persistent kernel per layer that holds the recurrent
//                   weights on chip (small hidden sizes)
//   persist static  one persistent kernel per layer for fp16 LSTMs and plain
//                   RNNs whose batch is a multiple of 8
#ifndef DLSIM_SRC_PERFDB_RNN_ALGO_H_
#define DLSIM_SRC_PERFDB_RNN_ALGO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/kernel/key.h"
#include "dlsim/util/status.h"
#include "kernel/work.h"

namespace dlsim {

enum class RnnAlgo { kStandard, kPersistSmallH, kPersistStatic };

const char* RnnAlgoName(RnnAlgo algo);

// PyTorch's choice (ATen's cuDNN RNN get_algo, described, not copied):
// persist small-h when the hidden size is at most 192 for LSTM/GRU or 384
// for plain RNNs (forward; 128 and 256 backward); else, for fp16 on a GPU of
// compute capability 8+ with at least 98 SMs, persist static for a
// one-layer, one-direction LSTM or plain RNN with hidden and input sizes
// multiples of 128, hidden <= 1024 and a batch that is a multiple of 8 and at
// most 128 (plain RNNs: not batch >= 96 with hidden >= 896); else standard.
// `sm_count` stands in for the device check (GPUs of fewer SMs get standard).
// Errors: a key that is not an RNN kind, or lacks a parameter.
Result<RnnAlgo> RnnAlgoOfKey(const ParsedKey& key, int64_t sm_count);

// Number of serial terms: per algorithm, the count each cost scales with.
inline constexpr int kRnnSerialTerms = 9;

// The serial terms of an RNN key, all zero but its algorithm's, in order:
//   standard:        wavefront, wavefront * hidden, steps * hidden
//   persist small-h: runs, runs * gates * hidden^2, steps * dirs,
//                    steps * dirs * gates * hidden^2
//   persist static:  steps, steps * batch * hidden
// where steps = seq * layers and wavefront = seq + layers - 1, the critical
// path when layer l+1 runs a step behind layer l (steps when bidirectional:
// the next layer waits for the backward direction; the two directions of a
// layer run side by side). Persistent small-h kernels run one after another,
// one per layer and direction (runs = layers * dirs), and each step reads the
// recurrent weights again.
Result<std::vector<double>> RnnSerialTerms(const ParsedKey& key, int64_t sm_count);

}  // namespace dlsim

#endif  // DLSIM_SRC_PERFDB_RNN_ALGO_H_
