#include "dlsim/engine/schedule.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <iterator>

namespace dlsim {
namespace {

using Dag = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

Result<Dag> BuildDag(const std::vector<Task>& tasks) {
  Dag dag(tasks.size());
  for (size_t v = 0; v < tasks.size(); ++v) {
    for (size_t u : tasks[v].deps) {
      if (u >= v) {
        return InvalidArgument("task '" + tasks[v].name + "' depends on a later task (cycle)");
      }
      boost::add_edge(u, v, dag);
    }
  }
  return dag;
}

// Longest path through the DAG weighted by device time: each task starts
// when its last dependency ends (unbounded streams).
void CriticalPath(const std::vector<Task>& tasks, const Dag& dag, ScheduleResult* r) {
  std::vector<size_t> order;
  boost::topological_sort(dag, std::back_inserter(order));
  std::reverse(order.begin(), order.end());
  std::vector<double> finish(tasks.size(), 0.0);
  std::vector<long> pred(tasks.size(), -1);
  for (size_t v : order) {
    double start = 0;
    for (size_t u : tasks[v].deps) {
      if (finish[u] > start) start = finish[u], pred[v] = static_cast<long>(u);
    }
    finish[v] = start + tasks[v].device_s;
  }
  if (tasks.empty()) return;
  long last = std::max_element(finish.begin(), finish.end()) - finish.begin();
  r->critical_path_s = finish[last];
  for (long v = last; v >= 0; v = pred[v]) r->critical_path.push_back(v);
  std::reverse(r->critical_path.begin(), r->critical_path.end());
}

// Eager: the host issues task i after dispatching it; the device runs it
// when both the host has issued it and the previous task has finished.
void Eager(const std::vector<Task>& tasks, ScheduleResult* r) {
  double host = 0, device = 0;
  r->start_s.resize(tasks.size());
  double stream = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    host += tasks[i].dispatch_s;
    device = std::max(device, host) + tasks[i].device_s;
    r->start_s[i] = stream;
    stream += tasks[i].device_s;
  }
  r->one_stream_s = stream;
  r->host_s = host;
  r->eager_s = std::max(device, host);
}

}  // namespace

Result<ScheduleResult> Schedule(const std::vector<Task>& tasks) {
  DLSIM_ASSIGN_OR_RETURN(Dag dag, BuildDag(tasks));
  ScheduleResult result;
  CriticalPath(tasks, dag, &result);
  Eager(tasks, &result);
  return result;
}

}  // namespace dlsim
