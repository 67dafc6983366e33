#include "dlsim/collective/collective.h"

#include <algorithm>
#include <cmath>

namespace dlsim {

const char* CollectiveName(Collective c) {
  switch (c) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kReduceScatter: return "reduce_scatter";
    case Collective::kAllGather: return "all_gather";
  }
  return "?";
}

Result<Collective> ParseCollective(const std::string& name) {
  for (Collective c : {Collective::kAllReduce, Collective::kReduceScatter,
                       Collective::kAllGather}) {
    if (name == CollectiveName(c)) return c;
  }
  return InvalidArgument("unknown collective '" + name +
                         "' (all_reduce, reduce_scatter or all_gather)");
}

AlphaBeta LinkAlphaBeta(const LinkSpec& link, double launch_s) {
  return AlphaBeta{launch_s, link.latency_s, link.bw_bytes_per_s * link.efficiency};
}

namespace {

double RingSteps(Collective c, int ranks) {
  return c == Collective::kAllReduce ? 2.0 * (ranks - 1) : ranks - 1.0;
}

}  // namespace

double RingTimeS(Collective c, int ranks, double bytes, const AlphaBeta& link) {
  if (ranks <= 1) return 0;
  const double steps = RingSteps(c, ranks);
  return link.launch_s + steps * link.alpha_s + steps / ranks * bytes / link.bw_bytes_per_s;
}

double TreeAllReduceTimeS(int ranks, double bytes, const AlphaBeta& link) {
  if (ranks <= 1) return 0;
  const double depth = std::ceil(std::log2(static_cast<double>(ranks)));
  return link.launch_s + 2 * depth * link.alpha_s + 2 * bytes / link.bw_bytes_per_s;
}

void CollectiveTable::Add(Collective c, int gpus, Point p) {
  std::vector<Point>& v = rows_[{c, gpus}];
  auto at = std::lower_bound(v.begin(), v.end(), p.bytes,
                             [](const Point& a, double b) { return a.bytes < b; });
  if (at != v.end() && at->bytes == p.bytes) {
    *at = p;
  } else {
    v.insert(at, p);
  }
}

void CollectiveTable::Merge(const CollectiveTable& other) {
  for (const auto& [k, points] : other.rows_) {
    for (const Point& p : points) Add(k.first, k.second, p);
  }
  for (const std::string& s : other.sources_) sources_.push_back(s);
}

bool CollectiveTable::Has(Collective c, int gpus) const {
  return rows_.count({c, gpus}) > 0;
}

const std::vector<CollectiveTable::Point>* CollectiveTable::Rows(Collective c, int gpus) const {
  auto it = rows_.find({c, gpus});
  return it == rows_.end() ? nullptr : &it->second;
}

std::vector<std::pair<Collective, int>> CollectiveTable::Keys() const {
  std::vector<std::pair<Collective, int>> keys;
  for (const auto& [k, v] : rows_) keys.push_back(k);
  return keys;
}

bool CollectiveTable::TimeS(Collective c, int gpus, double bytes, double* time_s) const {
  auto it = rows_.find({c, gpus});
  if (it == rows_.end() || it->second.empty()) return false;
  const std::vector<Point>& v = it->second;
  if (bytes <= v.front().bytes) {
    *time_s = v.front().time_s;
  } else if (bytes >= v.back().bytes) {
    *time_s = v.back().time_s * bytes / v.back().bytes;
  } else {
    auto hi = std::lower_bound(v.begin(), v.end(), bytes,
                               [](const Point& a, double b) { return a.bytes < b; });
    auto lo = hi - 1;
    const double f = std::log(bytes / lo->bytes) / std::log(hi->bytes / lo->bytes);
    *time_s = std::exp(std::log(lo->time_s) + f * std::log(hi->time_s / lo->time_s));
  }
  return true;
}

double CollectiveModel::NvlsAllReduceTimeS(int ranks, double bytes, const AlphaBeta& link) {
  if (ranks <= 1) return 0;
  return link.launch_s + 2 * link.alpha_s + (1.0 + 1.0 / ranks) * bytes / link.bw_bytes_per_s;
}

CollectiveModel::CollectiveModel(const Machine& machine, CollectiveTable table)
    : node_(machine.node), fabric_(machine.system.fabric), table_(std::move(table)) {}

Result<CollectiveModel> CollectiveModel::ForMachine(const Machine& machine) {
  CollectiveTable merged;
  for (const std::string& path : machine.node.collective_tables) {
    auto table = CollectiveTable::Load(path);
    if (!table.ok()) {
      return table.status().WithContext(machine.source_path + ": node.collective_tables");
    }
    merged.Merge(*table);
  }
  return CollectiveModel(machine, std::move(merged));
}

namespace {

double BestAllReduce(int ranks, double bytes, const AlphaBeta& link, std::string* method) {
  const double ring = RingTimeS(Collective::kAllReduce, ranks, bytes, link);
  const double tree = TreeAllReduceTimeS(ranks, bytes, link);
  *method = tree < ring ? "tree" : "ring";
  return std::min(ring, tree);
}

}  // namespace

CommTime CollectiveModel::AlphaBetaTime(Collective c, int gpus, double bytes) const {
  const int per_node = std::max(node_.gpus_per_node, 1);
  if (gpus <= 1) return CommTime{0, "none"};
  if (gpus <= per_node || node_.nics_per_node == 0) return HierarchicalTime(c, gpus, 1, bytes);
  return HierarchicalTime(c, per_node, (gpus + per_node - 1) / per_node, bytes);
}

AlphaBeta CollectiveModel::AcrossNodes(int nodes) const {
  AlphaBeta inter = LinkAlphaBeta(node_.nic, 0.0);  // one launch, counted inside
  const int per_node = std::max(node_.gpus_per_node, 1);
  inter.bw_bytes_per_s *= std::min(1.0, static_cast<double>(node_.nics_per_node) / per_node);
  const int domain = fabric_.DomainNodes(node_.nics_per_node);
  if (domain > 0 && nodes > domain) {
    inter.bw_bytes_per_s *= std::min(1.0, domain / fabric_.oversubscription);
    inter.alpha_s += fabric_.UpperTierHops() * fabric_.hop_latency_s;
  }
  return inter;
}

CommTime CollectiveModel::HierarchicalTime(Collective c, int per_node, int nodes,
                                           double bytes) const {
  const AlphaBeta intra = LinkAlphaBeta(node_.scale_up, node_.collective_launch_s);
  if (nodes <= 1) {
    const double ring = RingTimeS(c, per_node, bytes, intra);
    if (c != Collective::kAllReduce || !node_.nvls) return CommTime{ring, "ring"};
    const double nvls = NvlsAllReduceTimeS(per_node, bytes, intra);
    return nvls < ring ? CommTime{nvls, "nvls"} : CommTime{ring, "ring"};
  }
  // Across nodes: reduce-scatter inside each node, the collective across
  // nodes on each GPU's shard over its share of the NICs, all-gather inside.
  AlphaBeta inter = AcrossNodes(nodes);
  if (per_node == 1) inter.launch_s = node_.collective_launch_s;
  const double shard = bytes / per_node;
  std::string inter_method;
  CommTime t;
  if (c == Collective::kAllReduce) {
    const double across = BestAllReduce(nodes, shard, inter, &inter_method);
    AlphaBeta intra_again = intra;  // the same collective: one launch
    intra_again.launch_s = 0;
    t.time_s = RingTimeS(Collective::kReduceScatter, per_node, bytes, intra) + across +
               RingTimeS(Collective::kAllGather, per_node, bytes, intra_again);
  } else {
    t.time_s = RingTimeS(c, per_node, bytes, intra) + RingTimeS(c, nodes, shard, inter);
  }
  t.method = "hierarchical";
  return t;
}

CommTime CollectiveModel::GroupTime(Collective c, int ranks, int ranks_per_node,
                                    double bytes) const {
  if (ranks <= 1) return CommTime{0, "none"};
  const int per_node = std::clamp(ranks_per_node, 1, ranks);
  if (per_node == ranks || node_.nics_per_node == 0) return Time(c, ranks, bytes);
  return HierarchicalTime(c, per_node, (ranks + per_node - 1) / per_node, bytes);
}

double CollectiveModel::SendTimeS(double bytes, int nodes) const {
  const AlphaBeta link = nodes > 1 && node_.nics_per_node > 0
                             ? AcrossNodes(nodes)
                             : LinkAlphaBeta(node_.scale_up, 0.0);
  if (link.bw_bytes_per_s <= 0) return 0;
  return link.alpha_s + bytes / link.bw_bytes_per_s;
}

CommTime CollectiveModel::Time(Collective c, int gpus, double bytes) const {
  double measured = 0;
  if (gpus > 1 && table_.TimeS(c, gpus, bytes, &measured)) return CommTime{measured, "nccl table"};
  return AlphaBetaTime(c, gpus, bytes);
}

}  // namespace dlsim
