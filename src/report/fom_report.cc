#include "dlsim/report/fom_report.h"

#include <nlohmann/json.hpp>

namespace dlsim {

std::string FomToJson(const FomResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const FomRow& row : r.rows) {
    rows.push_back({{"workload", row.workload},
                    {"unit_time_target_s", row.unit_time_target_s},
                    {"unit_time_baseline_s", row.unit_time_baseline_s},
                    {"rate_target", row.rate_target},
                    {"rate_baseline", row.rate_baseline},
                    {"ratio", row.ratio},
                    {"basis_target", RateBasisName(row.target.basis)},
                    {"basis_baseline", RateBasisName(row.baseline.basis)},
                    {"step_time_target_s", row.target.step_time_s},
                    {"step_time_baseline_s", row.baseline.step_time_s}});
  }
  nlohmann::json j = {{"target", r.target_machine}, {"baseline", r.baseline_machine},
                      {"fom", r.fom}, {"h_target", r.h_target}, {"h_baseline", r.h_baseline},
                      {"arithmetic_mean_ratio", r.arithmetic_mean_ratio}, {"workloads", rows}};
  return j.dump(2);
}

std::string WorkloadRatesToJson(const std::vector<WorkloadRate>& rates) {
  nlohmann::json rows = nlohmann::json::array();
  for (const WorkloadRate& w : rates) {
    const MachineRate& r = w.rate;
    const double epoch_s = r.step_time_s * static_cast<double>(r.steps_per_epoch);
    rows.push_back({{"workload", w.workload}, {"machine", w.machine},
                    {"basis", RateBasisName(r.basis)}, {"step_time_s", r.step_time_s},
                    {"steps_per_epoch", r.steps_per_epoch}, {"epoch_time_s", epoch_s},
                    {"unit_time_s", r.unit_time_s}, {"concurrent_units", r.concurrent_units},
                    {"units_per_day", r.units_per_day}});
  }
  return rows.dump(2);
}

}  // namespace dlsim
