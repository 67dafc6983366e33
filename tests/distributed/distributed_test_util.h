// Shared fixtures of the distributed tests: a GPT-3-shaped model and a
// machine whose network is simple enough to check by hand.
#ifndef DLSIM_TESTS_DISTRIBUTED_TEST_UTIL_H_
#define DLSIM_TESTS_DISTRIBUTED_TEST_UTIL_H_

#include "dlsim/machine/machine.h"
#include "dlsim/machine/training_job.h"

namespace dlsim::testing {

// GPT-3 175B (Brown et al. 2020).
inline TransformerSpec Gpt3() {
  TransformerSpec m;
  m.name = "gpt3";
  m.layers = 96, m.hidden = 12288, m.heads = 96, m.kv_heads = 96, m.ffn_hidden = 4 * 12288;
  m.vocab = 51200, m.seq_len = 2048;
  m.attention = AttentionImpl::kUnfused;
  return m;
}

// A small GPT (8 layers, hidden 1024) for quick estimates.
inline TransformerSpec SmallGpt() {
  TransformerSpec m;
  m.name = "small";
  m.layers = 8, m.hidden = 1024, m.heads = 16, m.kv_heads = 16, m.ffn_hidden = 4096;
  m.vocab = 32768, m.seq_len = 1024;
  return m;
}

// Eight GPUs a node, 100 GB/s achievable inside, 25 GB/s of NIC per GPU.
inline Machine EightGpuNodes() {
  Machine m;
  m.name = "test";
  m.device.name = "test gpu";
  m.device.sm_count = 100;
  m.device.boost_clock_mhz = 1500;
  m.device.peak_flops.bf16_matrix = 400e12;
  m.device.peak_flops.fp16_matrix = 400e12;
  m.device.peak_flops.fp32_vector = 20e12;
  m.device.memory_bw_bytes_per_s = 2e12;
  m.device.memory_bytes = 80.0 * 1073741824.0;
  m.device.l2_bytes = 40e6;
  m.node.gpus_per_node = 8;
  m.node.scale_up = LinkSpec{"nvlink", 100e9, 1.0, 0};
  m.node.nics_per_node = 8;
  m.node.nic = LinkSpec{"ib", 25e9, 1.0, 0};
  m.system.nodes = 64;
  return m;
}

}  // namespace dlsim::testing

#endif  // DLSIM_TESTS_DISTRIBUTED_TEST_UTIL_H_
