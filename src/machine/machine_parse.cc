// Machine YAML schema: docs/machine-format.md. Every key carries its unit
// (_tflops = 1e12 FLOP/s, _gbs = 1e9 B/s, _gib = 2^30 B, _mib = 2^20 B,
// _us = 1e-6 s, _mhz); values are converted to SI here and nowhere else.
#include "machine_parse.h"

#include <cctype>
#include <filesystem>
#include <functional>
#include <set>

#include "dlsim/kernel/kernel_kind.h"
#include "yaml_fields.h"

namespace dlsim::machine_internal {

namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
constexpr double kGib = 1073741824.0;  // 2^30
constexpr double kMib = 1048576.0;     // 2^20
constexpr double kMicro = 1e-6;

// Upper limits: anything above is a typo in units (e.g. B/s for GB/s).
constexpr double kMaxTflops = 1e5;       // 100 PFLOP/s on one device
constexpr double kMaxMemoryGib = 65536;  // 64 TiB on one device
constexpr double kMaxBwGbs = 1e6;        // 1 PB/s
constexpr double kMaxL2Mib = 65536;
constexpr double kMaxClockMhz = 10000;
constexpr double kMaxUs = 1e6;           // one second
constexpr double kMaxWatts = 1e5;
constexpr int64_t kMaxSms = 10000;
constexpr int64_t kMaxLanesPerSm = 1024;
constexpr int64_t kMaxGpusPerNode = 1024;
constexpr int64_t kMaxNodes = 100000000;
constexpr int64_t kMaxSwitchPorts = 1 << 16;
constexpr double kMaxOversubscription = 1024;

bool IsNameLike(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

// "9.0", "10.0": digits, a point, digits.
bool IsComputeCapability(const std::string& s) {
  const auto dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i != dot && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

void ParsePeaks(YamlFields f, PeakFlops* pk) {
  auto read = [&f](const char* key, Presence p) {
    return f.Positive(key, p, kMaxTflops) * kTera;
  };
  pk->fp64_vector = read("fp64_vector", Presence::kOptional);
  pk->fp64_matrix = read("fp64_matrix", Presence::kOptional);
  pk->fp32_vector = read("fp32_vector", Presence::kRequired);
  pk->fp16_vector = read("fp16_vector", Presence::kOptional);
  pk->bf16_vector = read("bf16_vector", Presence::kOptional);
  pk->tf32_matrix = read("tf32_matrix", Presence::kOptional);
  pk->fp16_matrix = read("fp16_matrix", Presence::kOptional);
  pk->bf16_matrix = read("bf16_matrix", Presence::kOptional);
  pk->fp8_matrix = read("fp8_matrix", Presence::kOptional);
  f.Finish();
}

void ParseDevice(YamlFields f, DeviceSpec* d) {
  d->name = f.String("name", Presence::kRequired);
  d->compute_capability = f.String("compute_capability", Presence::kOptional);
  if (!d->compute_capability.empty() && !IsComputeCapability(d->compute_capability)) {
    f.Fail("compute_capability",
           "must look like \"9.0\" (quote it), got '" + d->compute_capability + "'");
  }
  d->sm_count = static_cast<int>(f.PositiveInt("sm_count", Presence::kRequired, kMaxSms));
  d->devices_per_package =
      static_cast<int>(f.PositiveInt("devices_per_package", Presence::kOptional, 16, 1));
  d->boost_clock_mhz = f.Positive("boost_clock_mhz", Presence::kOptional, kMaxClockMhz);
  d->sustained_clock_mhz = f.Positive("sustained_clock_mhz", Presence::kOptional, kMaxClockMhz);
  if (d->boost_clock_mhz > 0 && d->sustained_clock_mhz > d->boost_clock_mhz) {
    f.Fail("sustained_clock_mhz", "exceeds boost_clock_mhz " + FormatNumber(d->boost_clock_mhz));
  }
  d->fp32_lanes_per_sm =
      static_cast<int>(f.PositiveInt("fp32_lanes_per_sm", Presence::kOptional, kMaxLanesPerSm));
  d->fp32_gemm_share = f.Fraction("fp32_gemm_share", 0);
  ParsePeaks(f.Map("peak_tflops", Presence::kRequired), &d->peak_flops);
  d->memory_bytes = f.Positive("memory_gib", Presence::kRequired, kMaxMemoryGib) * kGib;
  const double bw_gbs = f.Positive("memory_bw_gbs", Presence::kRequired, kMaxBwGbs);
  d->memory_bw_bytes_per_s = bw_gbs * kGiga;
  const double measured_gbs = f.Positive("measured_memory_bw_gbs", Presence::kOptional, kMaxBwGbs);
  // A copy never beats the pins: 5 % slack for rounding in datasheets.
  if (bw_gbs > 0 && measured_gbs > 1.05 * bw_gbs) {
    f.Fail("measured_memory_bw_gbs", "exceeds the datasheet memory_bw_gbs " +
                                         FormatNumber(bw_gbs) + " by more than 5%");
  }
  d->measured_memory_bw_bytes_per_s = measured_gbs * kGiga;
  d->l2_bytes = f.Positive("l2_mib", Presence::kRequired, kMaxL2Mib) * kMib;
  d->kernel_launch_s = f.NonNegative("kernel_launch_us", 0, kMaxUs) * kMicro;
  d->host_device_bw_bytes_per_s =
      f.Positive("host_device_bw_gbs", Presence::kOptional, kMaxBwGbs) * kGiga;
  d->tdp_w = f.Positive("tdp_w", Presence::kOptional, kMaxWatts);
  f.Finish();
}

bool IsKernelKind(const std::string& name) { return KernelKindFromName(name).ok(); }

// A kind whose calls read memory the kernel before may have left in L2: the
// memory-bound kinds (not a GEMM, convolution, recurrent layer or attention),
// but the optimizer, which reads the parameters.
bool IsResidentKind(const std::string& name) {
  const Result<KernelKind> kind = KernelKindFromName(name);
  return kind.ok() && !IsComputeKind(*kind) && *kind != KernelKind::kOptimizer;
}

// Keys of host.dispatch_us_by_kind: a kernel kind, optionally with
// ".DTYPE", or one of the estimator's own keys.
bool IsDispatchKey(const std::string& key) {
  static const std::set<std::string> kOwnKeys = {"backward", "none", "optimizer_per_tensor",
                                                 "ddp_per_tensor", "rnn_per_kernel"};
  static const std::set<std::string> kDtypes = {"fp32", "fp16", "bf16", "fp64", "int8",
                                                "uint8", "int16", "int32", "int64", "bool"};
  const size_t dot = key.find('.');
  if (dot == std::string::npos) return IsKernelKind(key) || kOwnKeys.count(key) != 0;
  return IsKernelKind(key.substr(0, dot)) && kDtypes.count(key.substr(dot + 1)) != 0;
}

void ParseHost(YamlFields f, HostSpec* h) {
  h->given = true;
  if (f.Has("framework")) h->framework = f.String("framework", Presence::kOptional);
  f.Allow("framework");
  h->cpu = f.String("cpu", Presence::kOptional);
  h->framework_version = f.String("framework_version", Presence::kOptional);
  h->calibrated = f.Choice("calibrated", {"true", "false"}, "false") == "true";
  h->dispatch_s = f.NonNegative("dispatch_us", 0, kMaxUs) * kMicro;
  YamlFields by_kind = f.Map("dispatch_us_by_kind", Presence::kOptional);
  for (const auto& kind : f.MapKeys("dispatch_us_by_kind")) {
    if (!IsDispatchKey(kind)) {
      by_kind.Fail(kind,
                   "unknown kind (a typo? give a kernel kind such as gemm, conv_fwd or "
                   "elementwise, optionally with .fp16 etc., or backward, none, optimizer, "
                   "optimizer_per_tensor, ddp_per_tensor, rnn_per_kernel)");
      by_kind.Allow(kind);
      continue;
    }
    h->dispatch_s_by_kind[kind] = by_kind.NonNegative(kind, 0, kMaxUs) * kMicro;
  }
  by_kind.Finish();
  f.Finish();
}

// kind, bw_gbs_per_direction, efficiency, latency_us: a link or a tier.
void ParseLinkFields(YamlFields& f, LinkSpec* link) {
  link->kind = f.String("kind", Presence::kRequired);
  link->bw_bytes_per_s = f.Positive("bw_gbs_per_direction", Presence::kRequired, kMaxBwGbs) * kGiga;
  link->efficiency = f.Fraction("efficiency", 1.0);
  link->latency_s = f.NonNegative("latency_us", 0, kMaxUs) * kMicro;
}

void ParseNode(YamlFields f, const std::string& file, NodeSpec* n) {
  n->gpus_per_node =
      static_cast<int>(f.PositiveInt("gpus_per_node", Presence::kOptional, kMaxGpusPerNode, 1));
  if (f.Has("scale_up")) {
    YamlFields up = f.Map("scale_up", Presence::kOptional);
    ParseLinkFields(up, &n->scale_up);
    up.Finish();
  }
  f.Allow("scale_up");
  const bool has_nic = f.Has("nic");
  n->nics_per_node = static_cast<int>(
      f.PositiveInt("nics_per_node", Presence::kOptional, kMaxGpusPerNode, has_nic ? 1 : 0));
  if (has_nic) {
    YamlFields nic = f.Map("nic", Presence::kOptional);
    ParseLinkFields(nic, &n->nic);
    nic.Finish();
  } else if (n->nics_per_node > 0) {
    f.Fail("nic", "required section is missing (nics_per_node is given)");
  }
  f.Allow("nic");
  n->collective_launch_s = f.NonNegative("collective_launch_us", 0, kMaxUs) * kMicro;
  n->nvls = f.Choice("nvls", {"true", "false"}, "false") == "true";
  for (const YAML::Node& t : f.Sequence("collective_tables", Presence::kOptional)) {
    if (!t.IsScalar() || t.as<std::string>().empty()) {
      f.Fail("collective_tables", "each entry must be a file path (CSV of dlsim-calibrate nccl)");
      continue;
    }
    n->collective_tables.push_back(ResolveAgainstFileDir(file, t.as<std::string>()));
  }
  f.Finish();
}

// topology, switch_ports (fat tree, rail-optimised), nodes_per_group
// (dragonfly), oversubscription (>= 1), hop_latency_us.
void ParseFabric(YamlFields f, FabricSpec* fabric) {
  const std::string topology = f.Choice(
      "topology", {"full_bisection", "fat_tree", "rail_optimized", "dragonfly"}, "full_bisection");
  for (FabricTopology t : {FabricTopology::kFullBisection, FabricTopology::kFatTree,
                           FabricTopology::kRailOptimized, FabricTopology::kDragonfly}) {
    if (topology == FabricTopologyName(t)) fabric->topology = t;
  }
  const bool switched = fabric->topology == FabricTopology::kFatTree ||
                        fabric->topology == FabricTopology::kRailOptimized;
  const bool dragonfly = fabric->topology == FabricTopology::kDragonfly;
  fabric->switch_ports = static_cast<int>(f.PositiveInt(
      "switch_ports", switched ? Presence::kRequired : Presence::kOptional, kMaxSwitchPorts, 0));
  fabric->nodes_per_group = static_cast<int>(f.PositiveInt(
      "nodes_per_group", dragonfly ? Presence::kRequired : Presence::kOptional, kMaxNodes, 0));
  if (!switched && f.Has("switch_ports")) {
    f.Fail("switch_ports", "applies to fat_tree and rail_optimized only, not " + topology);
  }
  if (!dragonfly && f.Has("nodes_per_group")) {
    f.Fail("nodes_per_group", "applies to dragonfly only, not " + topology);
  }
  if (switched && f.Has("switch_ports") && fabric->switch_ports < 2) {
    f.Fail("switch_ports", "must be at least 2 (half face the nodes, half the upper tier)");
  }
  fabric->oversubscription = f.NonNegative("oversubscription", 1, kMaxOversubscription);
  if (fabric->oversubscription < 1) {
    f.Fail("oversubscription", "must be at least 1 (first tier's bandwidth over the upper tier's)");
  }
  fabric->hop_latency_s = f.NonNegative("hop_latency_us", 0, kMaxUs) * kMicro;
  f.Finish();
}

void ParseSystem(YamlFields f, SystemSpec* s) {
  s->name = f.String("name", Presence::kOptional);
  s->nodes = static_cast<int>(f.PositiveInt("nodes", Presence::kOptional, kMaxNodes, 1));
  if (f.Has("fabric")) ParseFabric(f.Map("fabric", Presence::kOptional), &s->fabric);
  f.Allow("fabric");
  const auto tiers = f.Sequence("tiers", Presence::kOptional);
  for (size_t i = 0; i < tiers.size(); ++i) {
    YamlFields t(tiers[i], f.file(), f.FieldPath("tiers[" + std::to_string(i) + "]"), f.sink());
    if (!tiers[i].IsMap()) {
      f.Fail("tiers[" + std::to_string(i) + "]", "must be a mapping, got " + Describe(tiers[i]));
      continue;
    }
    NetworkTier tier;
    tier.name = t.String("name", Presence::kRequired);
    tier.topology = t.String("topology", Presence::kOptional);
    ParseLinkFields(t, &tier.link);
    t.Finish();
    s->tiers.push_back(tier);
  }
  f.Finish();
}

// The path a file field names, resolved against the machine file's folder;
// "" when the field is absent. A path to no regular file fails the field.
std::string ExistingFileField(YamlFields& f, const std::string& file, const std::string& key,
                              const std::string& what) {
  const std::string text = f.String(key, Presence::kOptional);
  if (text.empty()) return "";
  const std::string path = ResolveAgainstFileDir(file, text);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) f.Fail(key, what + " not found: " + path);
  return path;
}

void ParseCalibration(YamlFields f, const std::string& file, const std::string& device_name,
                      CalibrationSpec* c) {
  c->perf_db_as_written = f.String("perf_db", Presence::kOptional);
  if (!c->perf_db_as_written.empty()) {
    c->perf_db = ResolveAgainstFileDir(file, c->perf_db_as_written);
  }
  c->db_gpu = f.String("db_gpu", Presence::kOptional);
  if (c->db_gpu.empty()) c->db_gpu = device_name;
  const std::string algorithm_db = f.String("algorithm_db", Presence::kOptional);
  if (!algorithm_db.empty()) c->algorithm_db = ResolveAgainstFileDir(file, algorithm_db);
  YamlFields factors = f.Map("l2_resident_factor", Presence::kOptional);
  for (const auto& kind : f.MapKeys("l2_resident_factor")) {
    if (!IsResidentKind(kind)) {
      factors.Fail(kind, "not a memory-bound kernel kind (batchnorm_infer, elementwise, copy, ...)");
      continue;
    }
    c->l2_resident_factor[kind] = factors.Positive(kind, Presence::kRequired, 2.0);
  }
  factors.Finish();
  c->issue_costs = ExistingFileField(f, file, "issue_costs", "issue-cost table");
  c->scale_from = ExistingFileField(f, file, "scale_from", "reference machine file");
  std::error_code ec;
  if (!c->scale_from.empty() && std::filesystem::equivalent(c->scale_from, file, ec)) {
    f.Fail("scale_from", "a machine cannot be scaled from itself");
  }
  f.Finish();
}

// Every dotted path of a mapping in `node` ("device", "device.sm_count").
void CollectPaths(const YAML::Node& node, const std::string& prefix, std::set<std::string>* out) {
  if (!node.IsMap()) return;
  for (const auto& kv : node) {
    const std::string path = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
    out->insert(path);
    CollectPaths(kv.second, path, out);
  }
}

// sources: {<dotted field or section present in this file>: citation}.
// Measured numbers must carry one (when, on what, with what software).
void ParseSources(YamlFields& root, const YAML::Node& doc, Machine* m) {
  std::set<std::string> paths;
  CollectPaths(doc, "", &paths);
  YamlFields f = root.Map("sources", Presence::kOptional);
  for (const auto& key : root.MapKeys("sources")) {
    const std::string text = f.String(key, Presence::kRequired);
    if (!paths.count(key) || key == "sources" || key.rfind("sources.", 0) == 0) {
      f.Fail(key, "names no field or section of this file");
    }
    m->sources[key] = text;
  }
  f.Finish();
  if (m->device.measured_memory_bw_bytes_per_s > 0 &&
      !m->sources.count("device.measured_memory_bw_gbs")) {
    root.Fail("device.measured_memory_bw_gbs",
              "a measured value needs a sources entry saying when, on what and with what "
              "software it was measured");
  }
}

}  // namespace

Result<HostSpec> ParseHostProfile(const YAML::Node& doc, const std::string& file) {
  auto sink = std::make_shared<ErrorSink>();
  YamlFields root = YamlFields::Root(doc, file, sink);
  if (!sink->ok()) return sink->status();
  HostSpec h;
  ParseHost(root.Map("host", Presence::kRequired), &h);
  root.Finish();
  if (!sink->ok()) return sink->status();
  h.profile_path = file;
  return h;
}

Result<Machine> ParseMachine(const YAML::Node& doc, const std::string& file) {
  auto sink = std::make_shared<ErrorSink>();
  YamlFields root = YamlFields::Root(doc, file, sink);
  if (!sink->ok()) return sink->status();
  Machine m;
  m.source_path = file;
  m.name = root.String("name", Presence::kRequired);
  if (!m.name.empty() && !IsNameLike(m.name)) {
    root.Fail("name", "must be a short id of letters, digits, '-', '_' or '.', got '" +
                          m.name + "'");
  }
  m.description = root.String("description", Presence::kOptional);
  ParseDevice(root.Map("device", Presence::kRequired), &m.device);
  if (root.Has("host")) ParseHost(root.Map("host", Presence::kOptional), &m.host);
  if (root.Has("node")) ParseNode(root.Map("node", Presence::kOptional), file, &m.node);
  if (root.Has("system")) ParseSystem(root.Map("system", Presence::kOptional), &m.system);
  root.Allow("host");
  root.Allow("node");
  root.Allow("system");
  ParseCalibration(root.Map("calibration", Presence::kOptional), file, m.device.name,
                   &m.calibration);
  if (sink->ok()) ParseSources(root, doc, &m);
  root.Finish();
  if (!sink->ok()) return sink->status();
  return m;
}

}  // namespace dlsim::machine_internal
