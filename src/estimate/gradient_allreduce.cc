#include "gradient_allreduce.h"

#include <algorithm>
#include <map>

#include "kernel/work.h"

namespace dlsim {

namespace {

// Each float initializer and the first node that reads it.
std::map<std::string, size_t> FirstUsers(const Graph& graph) {
  std::map<std::string, size_t> first_user;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& in : graph.nodes[i].inputs) {
      const Tensor* t = graph.FindTensor(in);
      if (t == nullptr || !t->is_initializer || !IsFloatDType(t->dtype)) continue;
      first_user.emplace(in, i);  // keeps the first
    }
  }
  return first_user;
}

}  // namespace

std::vector<double> GradientBytesByNode(const Graph& graph) {
  std::vector<double> bytes(graph.nodes.size(), 0.0);
  for (const auto& [name, node] : FirstUsers(graph)) {
    bytes[node] += 4.0 * static_cast<double>(graph.FindTensor(name)->num_elements());
  }
  return bytes;
}

void AddBucketCopies(const Graph& graph, LoweredGraph* lowered) {
  for (const auto& [name, node] : FirstUsers(graph)) {
    const double n = static_cast<double>(graph.FindTensor(name)->num_elements());
    KernelCall call;
    call.kind = KernelKind::kElementwise;
    call.library_call = kDdpBucketCopy;
    call.phase = Phase::kBackward;
    call.AddParam("op", "ddp_bucket_copy");
    call.AddParam("elems", graph.FindTensor(name)->num_elements());
    call.AddParam("arity", 1);
    call.bytes_read = 3 * 4.0 * n;
    call.bytes_written = 3 * 4.0 * n;
    call.flops = CallFlops(call);  // the division
    lowered->nodes[node].calls.push_back(std::move(call));
  }
}

double BucketCopyDispatchS(const HostSpec& host, const std::vector<KernelCall>& calls) {
  int copies = 0;
  for (const KernelCall& c : calls) copies += c.library_call == kDdpBucketCopy;
  if (copies == 0) return 0;
  auto find = [&](const char* kind) {
    auto it = host.dispatch_s_by_kind.find(kind);
    return it == host.dispatch_s_by_kind.end() ? -1.0 : it->second;
  };
  double per_tensor = find("ddp_per_tensor");
  if (per_tensor < 0) {
    const double elementwise = find("elementwise");
    per_tensor = 2 * (elementwise >= 0 ? elementwise : host.dispatch_s);
  }
  return copies * per_tensor;
}

DataParallelStep PriceGradientAllReduce(const std::vector<double>& grad_bytes,
                                        const std::vector<double>& ready_s,
                                        double backward_end_s, const CollectiveModel& comm,
                                        const DataParallelOptions& options, double forward_s) {
  DataParallelStep step;
  step.gpus = options.gpus;
  step.zero_stage = options.zero_stage;
  if (options.gpus <= 1) return step;
  const bool sharded = options.zero_stage > 0;
  double bucket = 0, comm_free_s = 0;
  auto flush = [&](double ready) {
    if (bucket <= 0) return;
    // ZeRO: each bucket reduce-scattered (stage 3: after its weights were
    // gathered again for the backward, on the same stream)
    const Collective reduce = sharded ? Collective::kReduceScatter : Collective::kAllReduce;
    CommTime t = comm.Time(reduce, options.gpus, bucket);
    double gather_s = 0;
    if (options.zero_stage >= 3) gather_s = comm.Time(Collective::kAllGather, options.gpus, bucket).time_s;
    const double start_s = std::max(comm_free_s, ready);
    if (gather_s > 0) step.transfers.push_back({Collective::kAllGather, bucket, start_s, start_s + gather_s});
    comm_free_s = start_s + gather_s + t.time_s;
    step.transfers.push_back({reduce, bucket, start_s + gather_s, comm_free_s});
    step.allgather_s += gather_s;
    step.allreduce_s += t.time_s;
    step.gradient_bytes += bucket;
    step.method = t.method;
    ++step.buckets;
    bucket = 0;
  };
  double last_ready = 0;
  for (size_t r = 0; r < grad_bytes.size(); ++r) {
    const size_t i = grad_bytes.size() - 1 - r;
    if (grad_bytes[i] <= 0) continue;
    bucket += grad_bytes[i];
    last_ready = ready_s[i];
    const double cap = step.buckets == 0 ? options.first_bucket_bytes : options.bucket_bytes;
    if (bucket >= cap) flush(last_ready);
  }
  flush(last_ready);
  step.exposed_s = std::max(0.0, comm_free_s - backward_end_s);
  if (sharded) {
    const CommTime gather = comm.Time(Collective::kAllGather, options.gpus, step.gradient_bytes);
    step.allgather_s += gather.time_s;
    if (options.zero_stage >= 3) {
      // the forward's gathers, prefetched while the forward computes
      step.exposed_s += std::max(0.0, gather.time_s - forward_s);
      step.transfers.push_back({Collective::kAllGather, step.gradient_bytes, 0.0, gather.time_s});
    } else {
      // the updated weights, after the step (PriceGradientAllReduceStep
      // moves it after the optimizer)
      const double start_s = std::max(comm_free_s, backward_end_s);
      step.exposed_s += gather.time_s;
      step.transfers.push_back({Collective::kAllGather, step.gradient_bytes, start_s, start_s + gather.time_s});
    }
  }
  return step;
}

Result<DataParallelStep> PriceGradientAllReduceStep(const std::vector<double>& gradient_bytes,
                                                    const std::vector<double>& task_device_s,
                                                    const ScheduleResult& sched, const Machine& machine,
                                                    const DataParallelOptions& options) {
  if (options.gpus > machine.TotalGpus()) {
    return InvalidArgument("data parallel over " + std::to_string(options.gpus) + " GPUs, but " +
                           machine.source_path + " has " + std::to_string(machine.TotalGpus()) +
                           " (node.gpus_per_node x system.nodes)");
  }
  const size_t n = gradient_bytes.size();
  DLSIM_CHECK(task_device_s.size() >= 2 * n && sched.start_s.size() == task_device_s.size());
  std::vector<double> ready_s(n, 0.0);
  const double forward_s = n > 0 ? sched.start_s[n] : 0.0;  // the first backward task's start
  double backward_end_s = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t t = n + (n - 1 - i);
    ready_s[i] = sched.start_s[t] + task_device_s[t];
    backward_end_s = std::max(backward_end_s, ready_s[i]);
  }
  DLSIM_ASSIGN_OR_RETURN(CollectiveModel comm, CollectiveModel::ForMachine(machine));
  DataParallelStep step =
      PriceGradientAllReduce(gradient_bytes, ready_s, backward_end_s, comm, options, forward_s);
  if ((options.zero_stage == 1 || options.zero_stage == 2) && !step.transfers.empty()) {
    CommTransfer& gather = step.transfers.back();  // after the optimizer, which ends the schedule
    const double after_s = std::max(0.0, sched.one_stream_s - backward_end_s);
    gather.start_s += after_s;
    gather.end_s += after_s;
  }
  return step;
}

}  // namespace dlsim
