// The warning of an estimate whose footprint exceeds the device's memory.
#include <cstdio>

#include "dlsim/estimate/estimator.h"

namespace dlsim {
namespace {

std::string Gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

}  // namespace

std::string OutOfMemoryWarning(const Estimate& e, double memory_bytes) {
  const MemoryFootprint& m = e.memory;
  if (memory_bytes <= 0 || m.total_bytes() <= memory_bytes) return "";
  const bool training = e.mode == Mode::kTraining;
  std::string w = "footprint " + Gb(m.total_bytes()) + " exceeds " + e.machine + "'s memory " +
                  Gb(memory_bytes) + " (weights " + Gb(m.weights_bytes);
  if (training) {
    w += ", gradients " + Gb(m.gradients_bytes) + ", optimizer state " +
         Gb(m.optimizer_state_bytes);
  }
  w += ", activations " + Gb(m.activations_bytes);
  if (m.workspace_bytes > 0) w += ", workspace " + Gb(m.workspace_bytes);
  w += "; peak at " + m.peak_at + "): the time is for a GPU that would hold it. ";
  const int64_t fits = e.batch > 0 ? LargestBatchThatFits(m, e.batch, memory_bytes) : 0;
  w += fits > 0 ? "The largest batch that fits is " + std::to_string(fits)
                : std::string("No batch fits");
  w += training ? "; recomputing the attention cores (--recompute selective) or every layer "
                  "(--recompute full, activation checkpointing), bf16 autocast (--amp) or "
                  "sharding the optimizer state, gradients and weights across data-parallel GPUs "
                  "(--gpus N --zero 1|2|3: ZeRO/FSDP) would save memory"
                : "; fp16/bf16 weights (--dtype) or a GPU with more memory would make it fit";
  return w;
}

}  // namespace dlsim
