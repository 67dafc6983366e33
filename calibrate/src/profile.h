// Wall-clock breakdown of a measurement, for `run --profile` (or
// DLSIM_CALIBRATE_PROFILE=1): where the seconds of a key go (cuDNN's
// algorithm enumeration, workspace allocation, warm-up, graph capture,
// timed regions, tracing). Host-only; printed on stderr, never recorded.
#ifndef DLSIM_CALIBRATE_PROFILE_H_
#define DLSIM_CALIBRATE_PROFILE_H_

#include <chrono>
#include <string>

#include "result.h"

namespace dlcal {

// Milliseconds since construction (or the last Restart), host steady clock.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  void Restart() { start_ = std::chrono::steady_clock::now(); }
  double Ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }
  // Ms(), then Restart().
  double Lap() {
    double ms = Ms();
    Restart();
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// True when DLSIM_CALIBRATE_PROFILE is set to something other than "" or "0".
bool ProfileFromEnv();

// The per-key phases a family measures before its algorithms.
struct KeyPhases {
  double setup_ms = 0;      // descriptors
  double enumerate_ms = 0;  // the heuristic's list (cudnnGet*Algorithm_v7 and its max count)
  double ws_list_ms = 0;    // workspace queries that admit the algorithms it left out
  double buffers_ms = 0;    // working-set copies: allocation and random fill
  double total_ms = 0;      // the whole key
  int candidates = 0;
  int copies = 0;
};

// "#   ALGO: total .. ms = ws query .. + ..." (one line, no newline).
std::string AlgoProfileLine(const AlgoResult& r);
// "# profile KEY: setup .. ms, enumerate .. ms, ..." (one line, no newline).
std::string KeyProfileLine(const std::string& key, const KeyPhases& k, double algos_ms);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_PROFILE_H_
