#include "dlsim/estimate/workload_estimate.h"

#include <algorithm>
#include <cmath>

#include "cost/variant_pricing.h"
#include "dlsim/model/onnx_import.h"

namespace dlsim {

Result<EstimateOptions> WorkloadEstimateOptions(const Workload& w) {
  EstimateOptions eo;
  LoweringOptions& lo = eo.lowering;
  SetPrecision(w.precision, &lo);
  lo.training = w.mode == Mode::kTraining;
  eo.optimizer = w.optimizer;
  lo.loss = w.loss;
  eo.precision = w.precision;
  eo.batch = w.batch;
  return eo;
}

namespace {

// Kernel time per pricing source and the band's sums, over a step's calls.
struct CostTally {
  std::map<std::string, double> by_source_s;
  double time_s = 0;
  double p10_s = 0;
  double p90_s = 0;
  void Add(const CallCost& c) {
    by_source_s[CostSourceName(c.source)] += c.time_s;
    time_s += c.time_s;
    p10_s += c.p10_s;
    p90_s += c.p90_s;
  }
};

// How most of a step was priced, when not measured: "step 95 % priced by
// fitted models".
std::string PricingWarning(const std::map<std::string, double>& shares) {
  static const std::map<std::string, std::string> kHow = {
      {"fitted", "fitted models"},
      {"scaled", "prices scaled from a reference GPU"},
      {"roofline", "the roofline (no calibration)"}};
  for (const auto& [source, how] : kHow) {
    auto it = shares.find(source);
    if (it == shares.end() || it->second < 0.5) continue;
    return "step " + std::to_string(static_cast<int>(std::lround(100 * it->second))) +
           " % priced by " + how;
  }
  return "";
}

// The step `eager_s` with its calls' band and sources: the band moves the
// step by the kernels' P10 / P90 against their prices.
StepEstimate StepOfTally(double eager_s, const CostTally& tally, std::vector<std::string> warnings) {
  StepEstimate step;
  step.step_time_s = eager_s;
  step.p10_s = std::max(0.0, eager_s + tally.p10_s - tally.time_s);
  step.p90_s = eager_s + tally.p90_s - tally.time_s;
  for (const auto& [source, s] : tally.by_source_s) {
    step.source_share[source] = tally.time_s > 0 ? s / tally.time_s : 0;
  }
  const std::string pricing = PricingWarning(step.source_share);
  if (!pricing.empty()) warnings.push_back(pricing);
  step.warnings = std::move(warnings);
  return step;
}

Result<Graph> LoadWorkloadModel(const Workload& w) {
  if (!w.model) return InvalidArgument(w.Where() + ": no model to estimate");
  ImportOptions io;
  io.batch = w.batch;
  for (const auto& [name, dims] : w.model->inputs) {
    Shape shape = dims;
    for (int64_t& d : shape) {
      if (d == kBatchDim) d = w.batch;
    }
    io.input_shapes[name] = shape;
  }
  auto graph = LoadOnnxModel(w.model->onnx_path, io);
  if (!graph.ok()) return graph.status().WithContext(w.Where() + ": model");
  return graph;
}

}  // namespace

StepEstimate StepOfEstimate(const Estimate& e) {
  CostTally tally;
  for (const LayerEstimate& layer : e.layers) {
    for (const CallCost& c : layer.costs) tally.Add(c);
  }
  return StepOfTally(e.eager_s, tally, e.warnings);
}

Result<Estimate> EstimateWorkloadStep(const Workload& workload, const Machine& machine) {
  DLSIM_ASSIGN_OR_RETURN(EstimateOptions eo, WorkloadEstimateOptions(workload));
  if (eo.lowering.training) eo.data_parallel.gpus = static_cast<int>(GpusPerUnit(workload, machine));
  DLSIM_ASSIGN_OR_RETURN(Graph graph, LoadWorkloadModel(workload));
  DLSIM_ASSIGN_OR_RETURN(CostModel cost, CostModel::ForMachine(machine));
  return EstimateModel(graph, cost, eo);
}

StepTimeFn MakeStepTimeFn() {
  struct Cache {
    std::mutex mu;
    std::map<std::string, std::shared_ptr<Graph>> graphs;
    std::map<std::string, std::shared_ptr<CostModel>> costs;
  };
  auto cache = std::make_shared<Cache>();
  return [cache](const Workload& w, const Machine& m) -> Result<StepEstimate> {
    DLSIM_ASSIGN_OR_RETURN(EstimateOptions eo, WorkloadEstimateOptions(w));
    if (eo.lowering.training) eo.data_parallel.gpus = static_cast<int>(GpusPerUnit(w, m));
    std::shared_ptr<Graph> graph;
    std::shared_ptr<CostModel> cost;
    {
      std::lock_guard<std::mutex> lock(cache->mu);
      graph = cache->graphs[w.Where()];
      cost = cache->costs[m.source_path + "#" + m.name];
    }
    if (!graph) {
      DLSIM_ASSIGN_OR_RETURN(Graph g, LoadWorkloadModel(w));
      graph = std::make_shared<Graph>(std::move(g));
    }
    if (!cost) {
      DLSIM_ASSIGN_OR_RETURN(CostModel c, CostModel::ForMachine(m));
      cost = std::make_shared<CostModel>(std::move(c));
    }
    {
      std::lock_guard<std::mutex> lock(cache->mu);
      cache->graphs[w.Where()] = graph;
      cache->costs[m.source_path + "#" + m.name] = cost;
    }
    DLSIM_ASSIGN_OR_RETURN(Estimate e, EstimateModel(*graph, *cost, eo));
    return StepOfEstimate(e);
  };
}

namespace {

// One workload lowered for one data-parallel setting, with every call priced
// on the sweep's reference once.
struct PreparedWorkload {
  std::shared_ptr<const Graph> graph;
  EstimatePlan plan;
  std::vector<std::vector<std::optional<CallCost>>> reference_costs;
};

class SweepPricer {
 public:
  Result<StepEstimate> StepTime(const Workload& w, const Machine& m) {
    DLSIM_ASSIGN_OR_RETURN(EstimateOptions eo, WorkloadEstimateOptions(w));
    if (eo.lowering.training) eo.data_parallel.gpus = static_cast<int>(GpusPerUnit(w, m));
    DLSIM_ASSIGN_OR_RETURN(std::shared_ptr<const PreparedWorkload> p,
                           Prepare(w, eo, m.calibration.scale_from));
    DLSIM_ASSIGN_OR_RETURN(std::shared_ptr<const VariantPricing> pricing, Pricing(m.calibration.scale_from));
    std::vector<std::vector<CallCost>> costs(p->plan.lowered.nodes.size());
    CostTally tally;
    for (size_t i = 0; i < costs.size(); ++i) {
      const std::vector<KernelCall>& calls = p->plan.lowered.nodes[i].calls;
      costs[i].reserve(calls.size());
      for (size_t j = 0; j < calls.size(); ++j) {
        costs[i].push_back(pricing->OnVariant(calls[j], p->reference_costs[i][j], m.device));
        tally.Add(costs[i].back());
      }
    }
    DLSIM_ASSIGN_OR_RETURN(PlannedTimes t, PlannedStepTimes(*p->graph, p->plan, costs, m, eo));
    return StepOfTally(t.eager_s, tally, p->plan.lowered.warnings);
  }

 private:
  Result<std::shared_ptr<const VariantPricing>> Pricing(const std::string& reference) {
    std::lock_guard<std::mutex> lock(mu_);
    return PricingLocked(reference);
  }

  Result<std::shared_ptr<const VariantPricing>> PricingLocked(const std::string& reference) {
    auto& slot = pricing_[reference];
    if (!slot) {
      DLSIM_ASSIGN_OR_RETURN(slot, VariantPricing::ForReference(reference));
    }
    return slot;
  }

  Result<std::shared_ptr<const PreparedWorkload>> Prepare(const Workload& w, const EstimateOptions& eo,
                                                          const std::string& reference) {
    const std::string key = w.Where() + (eo.data_parallel.gpus > 1 ? "#ddp#" : "#1#") + reference;
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = prepared_[key];
    if (slot) return slot;
    auto& graph = graphs_[w.Where()];
    if (!graph) {
      DLSIM_ASSIGN_OR_RETURN(Graph g, LoadWorkloadModel(w));
      graph = std::make_shared<const Graph>(std::move(g));
    }
    DLSIM_ASSIGN_OR_RETURN(std::shared_ptr<const VariantPricing> pricing, PricingLocked(reference));
    auto p = std::make_shared<PreparedWorkload>();
    p->graph = graph;
    DLSIM_ASSIGN_OR_RETURN(p->plan, PlanEstimate(*graph, eo));
    for (const LoweredNode& node : p->plan.lowered.nodes) {
      std::vector<std::optional<CallCost>> row;
      for (const KernelCall& call : node.calls) row.push_back(pricing->OnReference(call));
      p->reference_costs.push_back(std::move(row));
    }
    slot = std::move(p);
    return slot;
  }

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const Graph>> graphs_;
  std::map<std::string, std::shared_ptr<const VariantPricing>> pricing_;
  std::map<std::string, std::shared_ptr<const PreparedWorkload>> prepared_;
};

}  // namespace

StepTimeFn MakeSweepStepTimeFn() {
  auto sweep = std::make_shared<SweepPricer>();
  StepTimeFn general = MakeStepTimeFn();
  return [sweep, general](const Workload& w, const Machine& m) -> Result<StepEstimate> {
    if (!PricedAsVariant(m)) return general(w, m);
    return sweep->StepTime(w, m);
  };
}

}  // namespace dlsim
