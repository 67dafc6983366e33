// Shared helpers for the benchmarks: wall clock and peak resident memory.
#ifndef DLSIM_BENCH_BENCH_UTIL_H_
#define DLSIM_BENCH_BENCH_UTIL_H_

#include <sys/resource.h>

#include <chrono>

namespace dlsim::bench {

// Seconds on a monotonic clock.
inline double NowS() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// Peak resident set size of this process so far, MiB.
inline double PeakRssMib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

}  // namespace dlsim::bench

#endif  // DLSIM_BENCH_BENCH_UTIL_H_
