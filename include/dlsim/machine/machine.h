// A machine: one GPU device, the host/framework driving it, the node and the
// system it sits in. Parsed once from YAML (machine_io.h) into these plain,
// validated structs with SI units (FLOP/s, bytes, bytes/s, seconds).
#ifndef DLSIM_MACHINE_MACHINE_H_
#define DLSIM_MACHINE_MACHINE_H_

#include <map>
#include <string>
#include <vector>

namespace dlsim {

// Dense peak arithmetic rates; 0 means the device has no such unit.
struct PeakFlops {
  double fp64_vector = 0;
  double fp64_matrix = 0;
  double fp32_vector = 0;
  double fp16_vector = 0;
  double bf16_vector = 0;
  double tf32_matrix = 0;
  double fp16_matrix = 0;
  double bf16_matrix = 0;
  double fp8_matrix = 0;
};

struct DeviceSpec {
  std::string name;                // "NVIDIA H100 80GB HBM3"
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  double boost_clock_mhz = 0;
  double sustained_clock_mhz = 0;  // 0 = same as boost
  int fp32_lanes_per_sm = 0;       // 0 = derived from the FP32 peak (achievable.h)
  double fp32_gemm_share = 0;      // of the FP32 peak at the sustained clock; 0 = by lanes per SM
  PeakFlops peak_flops;            // FLOP/s, dense
  double memory_bytes = 0;
  double memory_bw_bytes_per_s = 0;           // datasheet
  double measured_memory_bw_bytes_per_s = 0;  // 0 = not measured
  double l2_bytes = 0;
  double kernel_launch_s = 0;  // GPU-side gap between back-to-back kernels
  double host_device_bw_bytes_per_s = 0;  // PCIe / C2C, per direction
  double tdp_w = 0;            // board power, 0 = not given
  int devices_per_package = 1; // 2 for K80 / MI250X: numbers are per device

  // Measured bandwidth when known, else the datasheet figure.
  double EffectiveMemoryBw() const {
    return measured_memory_bw_bytes_per_s > 0 ? measured_memory_bw_bytes_per_s
                                              : memory_bw_bytes_per_s;
  }
};

// The framework's host side in eager mode (PyTorch launching op by op).
struct HostSpec {
  std::string framework = "pytorch";
  double dispatch_s = 0;  // default per-op host dispatch cost
  // Per-op-class overrides, keyed by kernel kind name ("conv_fwd", "gemm").
  std::map<std::string, double> dispatch_s_by_kind;
  bool given = false;      // the machine file has a `host` section
  std::string taken_from;  // else the scale_from file whose host this is ("" if none)
  // What the costs were measured on (dlsim-calibrate host writes them).
  std::string cpu;                // CPU model, "" if not said
  std::string framework_version;  // e.g. "2.11.0+cu130", "" if not said
  bool calibrated = false;        // measured on this host by dlsim-calibrate host
  std::string profile_path;       // the --host file it came from ("" if the machine's)
  // Whether any dispatch cost is given: else eager time is the GPU's alone.
  bool Modelled() const { return dispatch_s > 0 || !dispatch_s_by_kind.empty(); }
};

struct LinkSpec {
  std::string kind;            // "nvlink4", "pcie4", "infiniband-ndr", ...
  double bw_bytes_per_s = 0;   // per direction, line rate
  double efficiency = 1.0;     // achievable fraction of line rate, (0, 1]
  double latency_s = 0;        // alpha
};

struct NodeSpec {
  int gpus_per_node = 1;
  LinkSpec scale_up;   // GPU <-> GPU inside a node
  int nics_per_node = 0;
  LinkSpec nic;        // one NIC, node <-> network
  // Measured NCCL tables (CSV of `dlsim-calibrate nccl`), resolved paths;
  // collectives they cover are priced from them, others by alpha-beta.
  std::vector<std::string> collective_tables;
  // Fixed cost of one collective (NCCL launch and protocol set-up), on top
  // of the per-step link latency.
  double collective_launch_s = 0;
  // The NVSwitch reduces in the switch (NVLink SHARP: HGX H100/H200), so an
  // all-reduce inside the node can take NCCL's NVLS algorithm.
  bool nvls = false;
};

// How the nodes' NICs are switched (docs/parallel.md, "The network").
enum class FabricTopology { kFullBisection, kFatTree, kRailOptimized, kDragonfly };
const char* FabricTopologyName(FabricTopology t);  // "full_bisection", "fat_tree", ...

// The scale-out fabric: a first tier (a leaf switch, a rail switch, a
// dragonfly group) whose nodes reach each other at full NIC bandwidth, and
// an upper tier (spine, global links) `oversubscription` times thinner.
struct FabricSpec {
  FabricTopology topology = FabricTopology::kFullBisection;
  int switch_ports = 0;         // fat tree, rail-optimised: ports of a first-tier switch
  int nodes_per_group = 0;      // dragonfly
  double oversubscription = 1;  // >= 1: first tier's bandwidth over the upper tier's
  double hop_latency_s = 0;     // per switch crossed in the upper tier
  // Nodes one first-tier domain holds: half a switch's ports face down, all
  // of a node's NICs on one leaf (fat tree) or one NIC per rail switch (rail-
  // optimised, the same local rank of every node); 0 = unbounded.
  int DomainNodes(int nics_per_node) const;
  // Switches crossed beyond the first tier: up and down a spine (2), or a
  // dragonfly's local, global and local hops (3).
  int UpperTierHops() const;
};

struct NetworkTier {
  std::string name;      // "leaf", "spine"
  std::string topology;  // "fat-tree", "dragonfly", ...
  LinkSpec link;
};

struct SystemSpec {
  std::string name;
  int nodes = 1;
  std::vector<NetworkTier> tiers;  // descriptive; `fabric` is what is priced
  FabricSpec fabric;
};

struct CalibrationSpec {
  std::string perf_db;    // resolved path of the SQLite database, "" = none
  std::string db_gpu;     // GPU name as recorded in the database
  std::string scale_from; // resolved path of the reference machine YAML
  // The perf_db path as written in the YAML, before resolution (for reports).
  std::string perf_db_as_written;
  // Resolved path of a database holding every cuDNN algorithm per convolution
  // with the heuristic's pick marked (dlsim-calibrate records), "" = none.
  // Only `dlsim analyze` reads it; estimates never do.
  std::string algorithm_db;
  // Measured time multipliers, by kernel kind ("batchnorm_train_fwd"), for
  // calls whose input the previous kernel just wrote and that fits in L2: the
  // database times each call with its inputs cold in L2, a model runs it
  // warm. Fitted by bench/profile/fit_l2_resident.py; empty = none.
  std::map<std::string, double> l2_resident_factor;
  // Resolved path of the issue-cost table of this GPU's pointwise and row
  // kernels (tools/fit_issue_costs.py), "" = none. Read when a machine is
  // scaled from this one (ScaleCost).
  std::string issue_costs;
};

struct Machine {
  std::string name;         // short id, "h100"
  std::string description;
  std::string source_path;  // YAML it was loaded from
  DeviceSpec device;
  HostSpec host;
  NodeSpec node;
  SystemSpec system;
  CalibrationSpec calibration;
  // Where each number came from, keyed by dotted field or section
  // ("device.peak_tflops" -> "NVIDIA H100 datasheet (2023)"). Measured
  // numbers say when and with what software.
  std::map<std::string, std::string> sources;

  int TotalGpus() const { return node.gpus_per_node * system.nodes; }
};

}  // namespace dlsim

#endif  // DLSIM_MACHINE_MACHINE_H_
