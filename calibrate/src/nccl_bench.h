// `dlsim-calibrate nccl`: NCCL collective timings (all-reduce, reduce-scatter,
// all-gather) over message sizes on the GPUs of one host, written as the CSV
// table a machine YAML names in node.collective_table (docs/parallel.md).
#ifndef DLSIM_CALIBRATE_NCCL_BENCH_H_
#define DLSIM_CALIBRATE_NCCL_BENCH_H_

#include <cstddef>
#include <string>

namespace dlcal {

struct NcclOptions {
  std::string out;          // CSV file
  int gpus = 0;             // 0 = every visible GPU
  size_t min_bytes = 1024;  // message sizes: min, min*factor, ..., max
  size_t max_bytes = size_t{1} << 30;
  int factor = 4;
  int reps = 5;             // timed batches; the median batch is kept
};

// True when this build links NCCL.
bool NcclAvailable();
int NcclCommand(const NcclOptions& opts);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_NCCL_BENCH_H_
