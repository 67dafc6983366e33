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

// The timed regions of graph (or stream) timing walk a cycle of captured
// graphs in order, wrapping around (docs/dlsim-calibrate.md, "How a key is
// measured"; timing.cc, GraphChain). Coldness: after one L2 flush before
// the first region, a call reads either a copy not touched since the flush
// or one last read `copies` calls earlier (a cycle is a multiple of
// `copies` calls), and the copies together span >= 3x L2 (RotationCopies).
struct GraphChainPlan {
  int cycle_calls = 0;      // calls of the whole cycle
  int graph_calls = 0;      // calls per graph (the last graph may hold fewer)
  std::vector<int> graphs;  // calls of each graph of the cycle, in order
};

// Calls per graph: as few graphs per region as allowed by max_graph_calls
// (node-limited, GraphChunkCalls), evened out, so that one region of
// `region_calls` calls takes whole graphs without overshooting by more than
// a call per graph. The cycle: the smallest multiple of `copies` holding at
// least one graph (so a region does not relaunch a few-call graph many
// times); past max_cycle_calls copies (working sets under ~3 L2 / max, tens
// of KB) it is max_cycle_calls calls, and a replay after the first wrap can
// find part of its inputs in L2. Only the graphs the regions reach are ever
// captured (GraphsNeeded).
GraphChainPlan PlanGraphChain(int copies, int region_calls, int max_graph_calls,
                              int max_cycle_calls);

// One timed region: `graphs` consecutive graphs of the cycle from
// first_graph (wrapping), `calls` calls in all.
struct Region {
  int first_graph = 0;
  int graphs = 0;
  int calls = 0;
};

// `reps` regions, each of the consecutive graphs (wrapping around the cycle
// of `graph_calls`) from *next_graph until it holds at least min_calls calls;
// a region starts where the previous one stopped, and *next_graph is left
// where the last one stopped (a re-measure goes on from there). Stream
// timing passes {1}: regions of exactly min_calls calls. Empty when the
// cycle holds no call.
std::vector<Region> PlanRegions(const std::vector<int>& graph_calls, int* next_graph, int reps,
                                int min_calls);

// How many graphs from the start of the cycle must be captured to run
// `regions`: up to the last one they reach, or all `graph_count` when they
// wrap around.
int GraphsNeeded(const std::vector<Region>& regions, int graph_count);

// Per-call time of each region: region_ms[i] / regions[i].calls.
std::vector<double> PerCallMs(const std::vector<double>& region_ms,
                              const std::vector<Region>& regions);

// The fewest calls of the regions (0 when none): a record's launches_per_rep.
int MinRegionCalls(const std::vector<Region>& regions);

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
