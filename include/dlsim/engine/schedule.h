// The graph engine: combines per-layer times over the model DAG (Boost.Graph).
//  - one stream: kernels back to back (a CUDA graph, or one framework stream)
//  - critical path: independent branches on concurrent streams (Benanza's
//    parallel lower bound)
//  - eager: a host that dispatches op by op ahead of the device; whichever is
//    slower, host or device, bounds each step.
#ifndef DLSIM_ENGINE_SCHEDULE_H_
#define DLSIM_ENGINE_SCHEDULE_H_

#include <string>
#include <vector>

#include "dlsim/util/status.h"

namespace dlsim {

// One schedulable task: a layer's forward or backward part.
struct Task {
  std::string name;
  double device_s = 0;    // kernel time on the device
  double dispatch_s = 0;  // host time to dispatch it in eager mode
  std::vector<size_t> deps;  // indices of tasks that must finish first
  // The last part of dispatch_s that launches the task's kernels one at a
  // time (a cuDNN RNN's time steps): the device runs them as they are
  // issued, so its work starts before the dispatch ends.
  double streamed_dispatch_s = 0;
};

struct ScheduleResult {
  double one_stream_s = 0;
  double critical_path_s = 0;
  double eager_s = 0;
  double host_s = 0;  // total host dispatch time
  std::vector<size_t> critical_path;  // task indices, first to last
  std::vector<double> start_s;        // one-stream start time of each task
  // Critical path: each task starts when its last dependency ends
  // (parallel_start_s) on a stream of its own branch: `stream` numbers the
  // concurrent streams from 0, a task taking the lowest-numbered stream free
  // at its start (tasks in order of start time).
  std::vector<double> parallel_start_s;
  std::vector<int> stream;
  // Eager: the host dispatches task i in [dispatch_start_s, dispatch_end_s),
  // the device runs it from eager_start_s (when both its first kernel is
  // issued and the previous task has finished) to eager_end_s.
  std::vector<double> dispatch_start_s;
  std::vector<double> dispatch_end_s;
  std::vector<double> eager_start_s;
  std::vector<double> eager_end_s;
};

// The DAG of tasks without their times, checked and topologically ordered
// once, so that many sets of times (one per machine) schedule cheaply.
class TaskDag {
 public:
  // `deps[v]` lists the tasks v waits for; tasks are in a valid issue order
  // (every dep precedes its task): a dependency on a later task is an error
  // (a cycle) naming the task.
  static Result<TaskDag> Build(std::vector<std::string> names, std::vector<std::vector<size_t>> deps);
  size_t size() const { return names_.size(); }
  const std::string& name(size_t task) const { return names_[task]; }
  const std::vector<size_t>& deps(size_t task) const { return deps_[task]; }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<size_t>> deps_;
  std::vector<size_t> order_;  // topological order (Boost.Graph)
  friend ScheduleResult ScheduleTimes(const TaskDag&, const std::vector<double>&, const std::vector<double>&,
                                      const std::vector<double>&);
};

// Schedules `dag` with each task's device time, host dispatch time and the
// streamed part of that dispatch (Task::streamed_dispatch_s; empty: none),
// all parallel to the tasks.
ScheduleResult ScheduleTimes(const TaskDag& dag, const std::vector<double>& device_s,
                             const std::vector<double>& dispatch_s,
                             const std::vector<double>& streamed_dispatch_s = {});

// Builds the DAG of `tasks` and schedules their times.
Result<ScheduleResult> Schedule(const std::vector<Task>& tasks);

}  // namespace dlsim

#endif  // DLSIM_ENGINE_SCHEDULE_H_
