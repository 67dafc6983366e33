#include "dlsim/estimate/workload_estimate.h"

#include "dlsim/model/onnx_import.h"

namespace dlsim {

Result<EstimateOptions> WorkloadEstimateOptions(const Workload& w) {
  EstimateOptions eo;
  LoweringOptions& lo = eo.lowering;
  if (w.dtype == "fp32" || w.dtype == "tf32") {
    lo.dtype = DType::kFloat32;
    lo.tf32_gemm = w.dtype == "tf32";
  } else if (w.dtype == "fp16") {
    lo.dtype = DType::kFloat16;
  } else if (w.dtype == "bf16") {
    lo.dtype = DType::kBFloat16;
  } else {
    return InvalidArgument(w.Where() + ": dtype '" + w.dtype + "' is not fp32, tf32, fp16 or bf16");
  }
  lo.training = w.mode == "training";
  eo.optimizer = w.optimizer;
  eo.dtype_name = w.dtype;
  eo.batch = w.batch;
  return eo;
}

namespace {

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
  return [cache](const Workload& w, const Machine& m) -> Result<double> {
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
    return e.eager_s;
  };
}

}  // namespace dlsim
