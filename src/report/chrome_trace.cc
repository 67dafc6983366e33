// The estimate's schedules as a Chrome trace (docs/reports.md, --trace).
#include <algorithm>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "dlsim/report/report.h"

namespace dlsim {
namespace {

using nlohmann::json;

enum Pid { kOneStreamPid = 1, kCriticalPathPid = 2, kHostPid = 3, kEagerPid = 4 };
constexpr int kStreamTid = 1;  // thread "stream 0" (critical path: stream k is tid k + 1)
constexpr int kCommTid = 2;    // one stream: the data-parallel collectives
constexpr int kDispatchTid = 1;

json NameEvent(const char* what, int pid, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

json Complete(const std::string& name, const char* cat, double start_s, double dur_s, int pid, int tid,
              json args) {
  return {{"name", name}, {"cat", cat},   {"ph", "X"},  {"ts", start_s * 1e6},
          {"dur", dur_s * 1e6}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

// Whether `call` runs in a task of `task_phase`: a forward task runs its
// layer's forward calls, a backward task the rest (recomputation included),
// the optimizer all of its own.
bool InTask(const KernelCall& call, Phase task_phase) {
  if (task_phase == Phase::kOptimizer) return true;
  return (call.phase == Phase::kForward) == (task_phase == Phase::kForward);
}

// One call of `layer` (or one of its kernels) on a GPU track.
json CallEvent(const LayerEstimate& layer, size_t i, double start_s, double dur_s, int pid, int tid) {
  const KernelCall& call = layer.calls[i];
  return Complete(layer.name + ":" + KernelKindName(call.kind), PhaseName(call.phase), start_s, dur_s, pid,
                  tid,
                  {{"op_type", layer.op_type},
                   {"key", call.Key()},
                   {"source", CostSourceName(layer.costs[i].source)}});
}

// The task's kernels, back to back from start_s.
void AddKernels(const Estimate& e, const TaskTiming& task, double start_s, int pid, int tid,
                json* events) {
  const LayerEstimate& layer = e.layers[task.layer];
  for (size_t i = 0; i < layer.calls.size(); ++i) {
    const KernelCall& call = layer.calls[i];
    if (!InTask(call, task.phase)) continue;
    events->push_back(CallEvent(layer, i, start_s, layer.costs[i].time_s, pid, tid));
    start_s += layer.costs[i].time_s;
  }
}

void AddOneStream(const Estimate& e, json* events) {
  events->push_back(NameEvent("process_name", kOneStreamPid, kStreamTid, "GPU (one stream)"));
  events->push_back(NameEvent("thread_name", kOneStreamPid, kStreamTid, "stream 0"));
  for (const TaskTiming& task : e.timeline) AddKernels(e, task, task.start_s, kOneStreamPid, kStreamTid, events);
}

void AddCriticalPath(const Estimate& e, json* events) {
  events->push_back(NameEvent("process_name", kCriticalPathPid, kStreamTid, "GPU (critical path)"));
  int streams = 0;
  for (const TaskTiming& task : e.timeline) {
    AddKernels(e, task, task.parallel_start_s, kCriticalPathPid, task.stream + 1, events);
    streams = std::max(streams, task.stream + 1);
  }
  for (int s = 0; s < streams; ++s) {
    events->push_back(NameEvent("thread_name", kCriticalPathPid, s + 1, "stream " + std::to_string(s)));
  }
}

// The task's kernels from start_s to end_s, where that span is longer than
// their time: an RNN's kernels wait for the host to launch each, so each call
// is drawn as the kernels it launches, spread evenly over the span.
void AddLaunchBoundKernels(const Estimate& e, const TaskTiming& task, double start_s, double end_s,
                           int pid, int tid, json* events) {
  const LayerEstimate& layer = e.layers[task.layer];
  int64_t slices = 0;
  for (size_t i = 0; i < layer.calls.size(); ++i) {
    if (InTask(layer.calls[i], task.phase)) slices += std::max<int64_t>(layer.costs[i].kernels, 1);
  }
  const double step_s = (end_s - start_s) / static_cast<double>(std::max<int64_t>(slices, 1));
  int64_t slice = 0;
  for (size_t i = 0; i < layer.calls.size(); ++i) {
    const KernelCall& call = layer.calls[i];
    if (!InTask(call, task.phase)) continue;
    const CallCost& cost = layer.costs[i];
    const int64_t kernels = std::max<int64_t>(cost.kernels, 1);
    for (int64_t k = 0; k < kernels; ++k, ++slice) {
      // each kernel ends as the next launch is due: the last at end_s
      const double dur_s = cost.time_s / static_cast<double>(kernels);
      const double at_s = start_s + static_cast<double>(slice + 1) * step_s - dur_s;
      json ev = CallEvent(layer, i, std::max(at_s, start_s), dur_s, pid, tid);
      ev["args"]["kernel"] = std::to_string(k + 1) + " of " + std::to_string(kernels);
      events->push_back(std::move(ev));
    }
  }
}

// The host's dispatch of each task beside the device running it.
void AddEager(const Estimate& e, json* events) {
  events->push_back(NameEvent("process_name", kHostPid, kDispatchTid, "host"));
  events->push_back(NameEvent("thread_name", kHostPid, kDispatchTid, "dispatch"));
  events->push_back(NameEvent("process_name", kEagerPid, kStreamTid, "GPU (eager)"));
  events->push_back(NameEvent("thread_name", kEagerPid, kStreamTid, "stream 0"));
  for (const TaskTiming& task : e.timeline) {
    const double dispatch_s = task.dispatch_end_s - task.dispatch_start_s;
    if (dispatch_s > 0) {
      events->push_back(Complete(task.name, "dispatch", task.dispatch_start_s, dispatch_s, kHostPid,
                                 kDispatchTid, {{"op_type", e.layers[task.layer].op_type}}));
    }
    if (task.eager_end_s > task.eager_start_s + task.device_s * (1 + 1e-9)) {
      AddLaunchBoundKernels(e, task, task.eager_start_s, task.eager_end_s, kEagerPid, kStreamTid, events);
    } else {
      AddKernels(e, task, task.eager_start_s, kEagerPid, kStreamTid, events);
    }
  }
}

void AddCommunication(const DataParallelStep& dp, json* events) {
  const char* thread = dp.zero_stage > 0 ? "reduce-scatter / all-gather" : "all-reduce";
  events->push_back(NameEvent("thread_name", kOneStreamPid, kCommTid, thread));
  for (size_t i = 0; i < dp.transfers.size(); ++i) {
    const CommTransfer& t = dp.transfers[i];
    events->push_back(Complete(std::string(CollectiveName(t.collective)) + " " + std::to_string(i),
                               "communication", t.start_s, t.end_s - t.start_s, kOneStreamPid, kCommTid,
                               {{"bytes", t.bytes}, {"gpus", dp.gpus}, {"method", dp.method}}));
  }
}

}  // namespace

std::string EstimateToChromeTrace(const Estimate& e) {
  json events = json::array();
  AddOneStream(e, &events);
  AddCriticalPath(e, &events);
  if (e.host_s > 0) AddEager(e, &events);
  if (!e.data_parallel.transfers.empty()) AddCommunication(e.data_parallel, &events);
  json j = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"},
            {"otherData", {{"model", e.model}, {"machine", e.machine}}}};
  return j.dump();
}

}  // namespace dlsim
