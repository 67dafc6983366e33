// The sub-commands of dlsim-calibrate (docs/dlsim-calibrate.md).
#ifndef DLSIM_CALIBRATE_RUNNER_H_
#define DLSIM_CALIBRATE_RUNNER_H_

#include <string>
#include <vector>

#include "context.h"

namespace dlcal {

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;       // bad input, unwritable output, no GPU
constexpr int kExitUsage = 2;
constexpr int kExitCudaBroken = 3;  // the CUDA context broke: restart to resume

struct RunOptions {
  std::vector<std::string> job_files;
  std::vector<std::string> sweeps;
  std::vector<std::string> keys;  // --key
  std::string out;
  double max_seconds = 0;   // 0: no budget
  double progress_seconds = 5;
  bool shuffle = false;
  bool cupti = true;
  bool profile = false;  // --profile (or DLSIM_CALIBRATE_PROFILE=1): per-phase times
  bool conv_engines = false;  // --conv-api engines
  int device = 0;
  TimingConfig timing;
};

// `run`: measures every key not yet in opts.out, appending records.
int RunCommand(const RunOptions& opts);

// `keys`: prints the keys the job files and sweeps name (no GPU needed).
int KeysCommand(const RunOptions& opts);

struct ProbeOptions {
  std::string out;
  std::string datasheet;
  int device = 0;
  TimingConfig timing;
};

// `probe`: measures copy bandwidth, GEMM rates and launch latency and
// writes a machine YAML skeleton.
int ProbeCommand(const ProbeOptions& opts);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_RUNNER_H_
