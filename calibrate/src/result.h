// What one measurement produces, and the device facts records carry:
// plain host-side structs (no CUDA headers).
#ifndef DLSIM_CALIBRATE_RESULT_H_
#define DLSIM_CALIBRATE_RESULT_H_

#include <string>
#include <vector>

#include "stats.h"
#include "status.h"

namespace dlcal {

struct KernelTime {
  std::string name;
  double ms = 0;
};

// Where the wall-clock time of one measurement went (milliseconds, host
// clock; filled by MeasureCall and the families, printed by `run --profile`,
// never written to records).
struct PhaseTimes {
  double ws_query_ms = 0;     // workspace-size query (cuDNN)
  double ws_alloc_ms = 0;     // workspace cudaMalloc
  double first_call_ms = 0;   // first warm-up call to its completion (module load, JIT)
  double warmup_ms = 0;       // both warm-up calls, synchronised
  double enqueue_ms = 0;      // host time to enqueue one call (median of the estimate's 3)
  double estimate_ms = 0;     // the three singly timed calls
  double capture_ms = 0;      // stream capture of the graphs' calls (and of the probe)
  double instantiate_ms = 0;  // cudaGraphInstantiate
  double upload_ms = 0;       // cudaGraphUpload of the graphs (runs nothing)
  double regions_ms = 0;      // the timed regions, a re-measure and the L2 flush before included
  double trace_ms = 0;        // the CUPTI-traced call
  double total_ms = 0;        // the whole measurement of this algorithm
  double call_ms = 0;         // the estimated device time of one call
  int graph_nodes = 0;        // nodes of the captured graphs (0: no graph)
  int graphs = 0;             // graphs captured (a prefix of the cycle)
  int graph_calls = 0;        // calls in them
  int cycle_calls = 0;        // calls of the whole cycle of graphs (0: no graph)
  int region_passes = 0;      // 1, or 2 after a re-measure
};

// One measured (key, algorithm): becomes one record.
struct AlgoResult {
  std::string algo = "-";
  bool heuristic = false;
  bool fastest = false;
  Status status;             // ok, or why not
  bool noisy = false;        // spread still too wide after re-measuring
  bool has_times = false;
  Stats stats;
  int reps = 0;
  int launches_per_rep = 0;  // calls of the timed region that held the fewest
  int copies = 1;            // rotated working-set copies
  std::string timing_mode;   // "graph", "stream" or "flush"
  double workspace_bytes = 0;
  std::vector<KernelTime> kernels;
  PhaseTimes phases;
};

struct DeviceInfo {
  std::string name;
  std::string cc;  // "9.0"
  int sms = 0;
  double clock_mhz = 0;      // max SM clock
  double mem_clock_mhz = 0;  // memory clock
  int bus_width_bits = 0;
  double mem_bytes = 0;
  double l2_bytes = 0;
  std::string driver, cuda, cudnn, cublas;

  // Theoretical DRAM bandwidth from the memory clock and bus width (double
  // data rate), bytes/s; 0 when the driver does not say.
  double TheoreticalBandwidth() const { return 2.0 * mem_clock_mhz * 1e6 * bus_width_bits / 8; }
};

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_RESULT_H_
