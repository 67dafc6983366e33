#include <nlohmann/json.hpp>

#include "dlsim/report/report.h"

namespace dlsim {
namespace {

using nlohmann::json;

json CallJson(const KernelCall& call, const CallCost& cost) {
  json j = {{"kind", KernelKindName(call.kind)},
            {"library_call", call.library_call},
            {"phase", PhaseName(call.phase)},
            {"key", call.Key()},
            {"time_ms", cost.time_s * 1e3},
            {"source", CostSourceName(cost.source)},
            {"bound", BoundName(cost.bound)},
            {"kernels", cost.kernels},
            {"flops", call.flops},
            {"bytes_read", call.bytes_read},
            {"bytes_written", call.bytes_written}};
  if (!cost.algo.empty()) j["algo"] = cost.algo;
  if (cost.heuristic_time_s > 0) j["heuristic_time_ms"] = cost.heuristic_time_s * 1e3;
  return j;
}

json LayerJson(const LayerEstimate& layer, bool include_calls) {
  json j = {{"name", layer.name},
            {"op_type", layer.op_type},
            {"time_ms", layer.time_s() * 1e3},
            {"fwd_ms", layer.fwd_s * 1e3},
            {"bwd_ms", layer.bwd_s * 1e3},
            {"source", CostSourceName(layer.source())},
            {"bound", BoundName(layer.bound())},
            {"flops", layer.flops},
            {"bytes", layer.bytes},
            {"kernels", layer.kernels()},
            {"known_op", layer.known_op}};
  if (include_calls) {
    json calls = json::array();
    for (size_t i = 0; i < layer.calls.size(); ++i) {
      calls.push_back(CallJson(layer.calls[i], layer.costs[i]));
    }
    j["calls"] = std::move(calls);
  }
  return j;
}

}  // namespace

std::string EstimateToJson(const Estimate& e, const ReportOptions& options) {
  json layers = json::array();
  for (const LayerEstimate& layer : e.layers) layers.push_back(LayerJson(layer, options.include_calls));
  json memory = {{"weights_bytes", e.memory.weights_bytes},
                 {"gradients_bytes", e.memory.gradients_bytes},
                 {"optimizer_state_bytes", e.memory.optimizer_state_bytes},
                 {"activations_bytes", e.memory.activations_bytes},
                 {"workspace_bytes", e.memory.workspace_bytes},
                 {"total_bytes", e.memory.total_bytes()},
                 {"peak_at", e.memory.peak_at},
                 {"activations_max_bytes", e.memory.activations_max_bytes},
                 {"largest_batch", e.largest_batch},
                 {"recompute", RecomputeName(e.recompute)}};
  json j = {{"model", e.model},
            {"machine", e.machine},
            {"batch", e.batch},
            {"dtype", PrecisionName(e.precision)},
            {"mode", ModeName(e.mode)},
            {"gpu_time_ms", e.gpu_time_s * 1e3},
            {"critical_path_ms", e.critical_path_s * 1e3},
            {"eager_ms", e.eager_s * 1e3},
            {"eager_p10_ms", e.eager_p10_s * 1e3},
            {"eager_p90_ms", e.eager_p90_s * 1e3},
            {"host_dispatch_ms", e.host_s * 1e3},
            {"host", {{"cpu", e.host.cpu},
                      {"framework", e.host.framework},
                      {"framework_version", e.host.framework_version},
                      {"calibrated", e.host.calibrated},
                      {"modelled", e.host.Modelled()},
                      {"profile", e.host.profile_path},
                      {"taken_from", e.host.taken_from},
                      {"description", HostDescription(e.host)}}},
            {"p10_ms", e.p10_s * 1e3},
            {"p90_ms", e.p90_s * 1e3},
            {"flops", e.flops},
            {"bytes", e.bytes},
            {"kernel_count", e.kernel_count},
            {"parameters", e.parameter_count},
            {"source_share", e.source_share},
            {"memory", memory},
            {"data_parallel", {{"gpus", e.data_parallel.gpus},
                                {"buckets", e.data_parallel.buckets},
                                {"gradient_bytes", e.data_parallel.gradient_bytes},
                                {"allreduce_ms", e.data_parallel.allreduce_s * 1e3},
                                {"exposed_ms", e.data_parallel.exposed_s * 1e3},
                                {"zero_stage", e.data_parallel.zero_stage},
                                {"allgather_ms", e.data_parallel.allgather_s * 1e3},
                                {"method", e.data_parallel.method}}},
            {"critical_path", e.critical_path},
            {"warnings", e.warnings},
            {"layers", std::move(layers)}};
  return j.dump(2);
}

}  // namespace dlsim
