// Summary statistics of timed repetitions and the choice of how many
// launches to time: host-only arithmetic, unit-tested without a GPU.
#ifndef DLSIM_CALIBRATE_STATS_H_
#define DLSIM_CALIBRATE_STATS_H_

#include <vector>

namespace dlcal {

struct Stats {
  double median_ms = 0, min_ms = 0, max_ms = 0, p10_ms = 0, p90_ms = 0;
  int n = 0;
};

// Linear-interpolation percentile (q in [0, 1]) of sorted values.
double Percentile(const std::vector<double>& sorted, double q);
Stats Summarize(std::vector<double> samples_ms);
// (p90 - p10) / median > tolerance.
bool TooWide(const Stats& s, double tolerance);

// How a call is timed: `reps` timed regions of `launches` back-to-back calls.
struct TimingPlan {
  int reps = 0;
  int launches = 0;
};

// Chooses launches so one region lasts >= target_ms, then trims reps (not
// below min_reps) and launches so reps * launches * call_ms stays within
// budget_ms where possible.
TimingPlan PlanTiming(double call_ms, double target_ms, int reps, int min_reps,
                      double budget_ms);

// A captured graph replays the same calls, so one region must visit every
// one of `copies` working-set copies: raises launches to `copies` (at most
// max_launches), then trims reps again (not below min_reps) so that
// reps * launches * call_ms stays within budget_ms where possible.
TimingPlan CoverCopies(TimingPlan plan, double call_ms, int copies, int max_launches,
                       int min_reps, double budget_ms);

// Calls per captured graph so that one holds at most about max_nodes nodes
// (at least one call): cuDNN calls launch one kernel or dozens.
int GraphChunkCalls(double nodes_per_call, int max_nodes);

// Copies of a working set needed so rotating among them evicts each from an
// L2 of `l2_bytes` before reuse (>= 3x L2 in all), 1 when it is large already.
// `working_set_bytes` is the per-copy stride (buffers rounded up to cache
// lines), so even a 4-byte problem touches 3x L2 of distinct lines.
int RotationCopies(double working_set_bytes, double l2_bytes, int max_copies);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_STATS_H_
