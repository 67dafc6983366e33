// Collective communication times (docs/parallel.md): the alpha-beta model of
// ring and tree algorithms per network tier, hierarchical across nodes, and
// NCCL tables measured by `dlsim-calibrate nccl` where a machine names them.
// Sizes follow nccl-tests: `bytes` is the whole buffer (all-reduce: the
// buffer on each rank; reduce-scatter: its input; all-gather: its output).
#ifndef DLSIM_COLLECTIVE_COLLECTIVE_H_
#define DLSIM_COLLECTIVE_COLLECTIVE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/machine/machine.h"
#include "dlsim/util/status.h"

namespace dlsim {

enum class Collective { kAllReduce, kReduceScatter, kAllGather };
const char* CollectiveName(Collective c);  // "all_reduce", ...
Result<Collective> ParseCollective(const std::string& name);

// An achievable link: a fixed cost per collective, a latency per algorithm
// step and the bandwidth per direction.
struct AlphaBeta {
  double launch_s = 0;
  double alpha_s = 0;
  double bw_bytes_per_s = 0;
};
// line rate x efficiency; `launch_s` the node's collective_launch_s.
AlphaBeta LinkAlphaBeta(const LinkSpec& link, double launch_s);

// Ring over p ranks: launch + k alpha + k/p S/B with k = 2(p-1) steps for
// all-reduce and p-1 for reduce-scatter and all-gather. One rank: 0.
double RingTimeS(Collective c, int ranks, double bytes, const AlphaBeta& link);
// Pipelined tree all-reduce (reduce, then broadcast, each moving the whole
// buffer through a rank): launch + 2 ceil(log2 p) alpha + 2 S/B. Beats the
// ring on small messages over many ranks (across nodes), never on large ones.
double TreeAllReduceTimeS(int ranks, double bytes, const AlphaBeta& link);

// Measured collective times, by (collective, GPU count), sizes ascending.
class CollectiveTable {
 public:
  struct Point {
    double bytes = 0;
    double time_s = 0;
  };
  // Reads the CSV `dlsim-calibrate nccl` writes; errors name file and line.
  static Result<CollectiveTable> Load(const std::string& path);
  void Add(Collective c, int gpus, Point p);  // keeps sizes sorted
  void Merge(const CollectiveTable& other);   // other's rows win on equal keys
  // Log-log interpolation between measured sizes; below the smallest, its
  // time; above the largest, that point's bandwidth. False when the table has
  // no rows for (c, gpus).
  bool TimeS(Collective c, int gpus, double bytes, double* time_s) const;
  bool Has(Collective c, int gpus) const;
  const std::vector<Point>* Rows(Collective c, int gpus) const;
  std::vector<std::pair<Collective, int>> Keys() const;
  const std::vector<std::string>& sources() const { return sources_; }
  void AddSource(std::string s) { sources_.push_back(std::move(s)); }

 private:
  std::map<std::pair<Collective, int>, std::vector<Point>> rows_;
  std::vector<std::string> sources_;
};

// The ring link (launch, alpha, bandwidth) that fits every row of `table`
// best: least squares on relative error, each term kept non-negative.
// False when the table has fewer than three rows or no size dependence.
bool FitRingLink(const CollectiveTable& table, AlphaBeta* link);

struct CommTime {
  double time_s = 0;
  std::string method;  // "nccl table", "ring", "tree", "nvls", "hierarchical"
};

// The collectives of one machine: its tables first, else alpha-beta over its
// node (scale_up link) and system (NIC per GPU share) tiers.
class CollectiveModel {
 public:
  // Loads the tables the machine's node names (node.collective_tables).
  static Result<CollectiveModel> ForMachine(const Machine& machine);
  CollectiveModel(const Machine& machine, CollectiveTable table);
  CommTime Time(Collective c, int gpus, double bytes) const;
  // The alpha-beta estimate alone (what the table is compared against).
  CommTime AlphaBetaTime(Collective c, int gpus, double bytes) const;
  // A collective over `ranks` GPUs of which `ranks_per_node` share each node
  // (tensor-parallel groups inside a node, data-parallel groups across):
  // Time() when the group fits one node, else hierarchical with each GPU on
  // its share of the node's NICs (every GPU of a node sends at once, in its
  // own group).
  CommTime GroupTime(Collective c, int ranks, int ranks_per_node, double bytes) const;
  // One point-to-point send (pipeline stages) between GPUs of a group that
  // spans `nodes` nodes: the NVLink inside a node, a GPU's share of the NICs
  // across nodes (through the fabric's upper tier when they span more than
  // one first-tier domain).
  double SendTimeS(double bytes, int nodes) const;
  // NCCL's NVLS all-reduce inside a node (node.nvls): each GPU's buffer read
  // once by the switch, which reduces it, and its reduced share multicast
  // back: launch + 2 alpha + (1 + 1/p) S / B.
  static double NvlsAllReduceTimeS(int ranks, double bytes, const AlphaBeta& link);
  const CollectiveTable& table() const { return table_; }

 private:
  // `per_node` GPUs in each of `nodes` nodes.
  CommTime HierarchicalTime(Collective c, int per_node, int nodes, double bytes) const;
  // One GPU's share of its node's NICs, for traffic among `nodes` nodes: a
  // group wider than a first-tier domain crosses the upper tier at
  // min(1, domain nodes / oversubscription) of that share (each domain's
  // uplinks carry one ring edge per GPU of a node), with its hops' latency.
  AlphaBeta AcrossNodes(int nodes) const;

  NodeSpec node_;
  FabricSpec fabric_;
  CollectiveTable table_;
};

}  // namespace dlsim

#endif  // DLSIM_COLLECTIVE_COLLECTIVE_H_
