#include "dlsim/engine/schedule.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <iterator>

namespace dlsim {
namespace {

using Dag = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

// Longest path through the DAG weighted by device time: each task starts
// when its last dependency ends (unbounded streams).
void CriticalPath(const std::vector<std::vector<size_t>>& deps, const std::vector<size_t>& order,
                  const std::vector<double>& device_s, ScheduleResult* r) {
  const size_t n = deps.size();
  std::vector<double> finish(n, 0.0);
  std::vector<long> pred(n, -1);
  r->parallel_start_s.assign(n, 0.0);
  for (size_t v : order) {
    double start = 0;
    for (size_t u : deps[v]) {
      if (finish[u] > start) start = finish[u], pred[v] = static_cast<long>(u);
    }
    r->parallel_start_s[v] = start;
    finish[v] = start + device_s[v];
  }
  if (n == 0) return;
  long last = std::max_element(finish.begin(), finish.end()) - finish.begin();
  r->critical_path_s = finish[last];
  for (long v = last; v >= 0; v = pred[v]) r->critical_path.push_back(v);
  std::reverse(r->critical_path.begin(), r->critical_path.end());
}

// Interval partitioning of the critical-path schedule: tasks in order of
// start (ties in issue order) take the lowest-numbered stream whose last
// task has ended.
std::vector<int> AssignStreams(const std::vector<double>& start_s, const std::vector<double>& device_s) {
  std::vector<size_t> by_start(start_s.size());
  for (size_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t a, size_t b) { return start_s[a] < start_s[b]; });
  std::vector<int> stream(start_s.size(), 0);
  std::vector<double> free_at_s;  // per stream: when its last task ends
  for (size_t v : by_start) {
    size_t s = 0;
    while (s < free_at_s.size() && free_at_s[s] > start_s[v]) ++s;
    if (s == free_at_s.size()) free_at_s.push_back(0);
    free_at_s[s] = start_s[v] + device_s[v];
    stream[v] = static_cast<int>(s);
  }
  return stream;
}

// Eager: the host issues task i after dispatching it; the device runs it
// when both the host has issued it and the previous task has finished. A
// task whose dispatch ends in `streamed_s` of per-kernel launches starts
// when that part begins and cannot end before its last launch.
void Eager(const std::vector<double>& device_s, const std::vector<double>& dispatch_s,
           const std::vector<double>& streamed_s, ScheduleResult* r) {
  double host = 0, device = 0;
  const size_t n = device_s.size();
  r->start_s.resize(n);
  r->dispatch_start_s.resize(n);
  r->dispatch_end_s.resize(n);
  r->eager_start_s.resize(n);
  r->eager_end_s.resize(n);
  double stream = 0;
  for (size_t i = 0; i < n; ++i) {
    r->dispatch_start_s[i] = host;
    host += dispatch_s[i];
    r->dispatch_end_s[i] = host;
    const double streamed = streamed_s.empty() ? 0.0 : std::min(streamed_s[i], dispatch_s[i]);
    r->eager_start_s[i] = std::max(device, host - streamed);
    device = std::max(r->eager_start_s[i] + device_s[i], streamed > 0 ? host : 0.0);
    r->eager_end_s[i] = device;
    r->start_s[i] = stream;
    stream += device_s[i];
  }
  r->one_stream_s = stream;
  r->host_s = host;
  r->eager_s = std::max(device, host);
}

}  // namespace

Result<TaskDag> TaskDag::Build(std::vector<std::string> names, std::vector<std::vector<size_t>> deps) {
  DLSIM_CHECK(names.size() == deps.size());
  Dag dag(names.size());
  for (size_t v = 0; v < names.size(); ++v) {
    for (size_t u : deps[v]) {
      if (u >= v) return InvalidArgument("task '" + names[v] + "' depends on a later task (cycle)");
      boost::add_edge(u, v, dag);
    }
  }
  TaskDag out;
  boost::topological_sort(dag, std::back_inserter(out.order_));
  std::reverse(out.order_.begin(), out.order_.end());
  out.names_ = std::move(names);
  out.deps_ = std::move(deps);
  return out;
}

ScheduleResult ScheduleTimes(const TaskDag& dag, const std::vector<double>& device_s,
                             const std::vector<double>& dispatch_s,
                             const std::vector<double>& streamed_dispatch_s) {
  DLSIM_CHECK(device_s.size() == dag.size() && dispatch_s.size() == dag.size());
  DLSIM_CHECK(streamed_dispatch_s.empty() || streamed_dispatch_s.size() == dag.size());
  ScheduleResult result;
  CriticalPath(dag.deps_, dag.order_, device_s, &result);
  result.stream = AssignStreams(result.parallel_start_s, device_s);
  Eager(device_s, dispatch_s, streamed_dispatch_s, &result);
  return result;
}

Result<ScheduleResult> Schedule(const std::vector<Task>& tasks) {
  std::vector<std::string> names;
  std::vector<std::vector<size_t>> deps;
  std::vector<double> device_s, dispatch_s, streamed_s;
  for (const Task& t : tasks) {
    names.push_back(t.name);
    deps.push_back(t.deps);
    device_s.push_back(t.device_s);
    dispatch_s.push_back(t.dispatch_s);
    streamed_s.push_back(t.streamed_dispatch_s);
  }
  DLSIM_ASSIGN_OR_RETURN(TaskDag dag, TaskDag::Build(std::move(names), std::move(deps)));
  return ScheduleTimes(dag, device_s, dispatch_s, streamed_s);
}

}  // namespace dlsim
