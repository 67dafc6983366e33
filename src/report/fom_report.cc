#include "dlsim/report/fom_report.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "dlsim/report/report.h"

namespace dlsim {
namespace {

constexpr const char* kSources[] = {"measured", "fitted", "scaled", "roofline"};

// The band, pricing sources and warnings of one machine's rate.
nlohmann::json RateJson(const MachineRate& r) {
  return {{"machine", r.machine},
          {"basis", RateBasisName(r.basis)},
          {"step_time_s", r.step_time_s},
          {"step_p10_s", r.step.p10_s},
          {"step_p90_s", r.step.p90_s},
          {"unit_time_s", r.unit_time_s},
          {"unit_time_p10_s", r.unit_time_p10_s},
          {"unit_time_p90_s", r.unit_time_p90_s},
          {"units_per_day", r.units_per_day},
          {"source_share", r.step.source_share},
          {"warnings", r.step.warnings}};
}

std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

std::string Joined(const std::vector<std::string>& texts) {
  std::string out;
  for (const std::string& t : texts) out += (out.empty() ? "" : "; ") + t;
  return out;
}

constexpr const char* kRateColumns =
    "basis,step_time_s,step_p10_s,step_p90_s,unit_time_s,unit_time_p10_s,unit_time_p90_s,"
    "units_per_day,share_measured,share_fitted,share_scaled,share_roofline";

// workload,model,machine,batch,dtype,mode, then kRateColumns.
std::string RateCsv(const WorkloadInfo& info, const MachineRate& r) {
  std::string row = CsvField(info.name) + "," + CsvField(info.model) + "," + CsvField(r.machine) +
                    "," + std::to_string(info.batch) + "," + CsvField(PrecisionName(info.precision)) + "," +
                    ModeName(info.mode) + "," + RateBasisName(r.basis) + "," + Num(r.step_time_s) +
                    "," + Num(r.step.p10_s) + "," + Num(r.step.p90_s) + "," + Num(r.unit_time_s) +
                    "," + Num(r.unit_time_p10_s) + "," + Num(r.unit_time_p90_s) + "," +
                    Num(r.units_per_day);
  for (const char* source : kSources) {
    auto it = r.step.source_share.find(source);
    row += "," + Num(it == r.step.source_share.end() ? 0.0 : it->second);
  }
  return row;
}

}  // namespace

std::string FomToJson(const FomResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const FomRow& row : r.rows) {
    rows.push_back({{"workload", row.workload},
                    {"model", row.info.model},
                    {"batch", row.info.batch},
                    {"dtype", PrecisionName(row.info.precision)},
                    {"mode", ModeName(row.info.mode)},
                    {"unit_time_target_s", row.unit_time_target_s},
                    {"unit_time_baseline_s", row.unit_time_baseline_s},
                    {"rate_target", row.rate_target},
                    {"rate_baseline", row.rate_baseline},
                    {"ratio", row.ratio},
                    {"basis_target", RateBasisName(row.target.basis)},
                    {"basis_baseline", RateBasisName(row.baseline.basis)},
                    {"step_time_target_s", row.target.step_time_s},
                    {"step_time_baseline_s", row.baseline.step_time_s},
                    {"target", RateJson(row.target)},
                    {"baseline", RateJson(row.baseline)},
                    {"warnings", row.warnings}});
  }
  nlohmann::json j = {{"target", r.target_machine}, {"baseline", r.baseline_machine},
                      {"fom", r.fom}, {"h_target", r.h_target}, {"h_baseline", r.h_baseline},
                      {"arithmetic_mean_ratio", r.arithmetic_mean_ratio}, {"workloads", rows}};
  return j.dump(2);
}

std::string FomToCsv(const FomResult& r) {
  std::string csv = std::string("workload,model,machine,batch,dtype,mode,") + kRateColumns +
                    ",role,ratio,warnings\n";
  for (const FomRow& row : r.rows) {
    csv += RateCsv(row.info, row.target) + ",target," + Num(row.ratio) + "," +
           CsvField(Joined(row.warnings)) + "\n";
    csv += RateCsv(row.info, row.baseline) + ",baseline," + Num(row.ratio) + "," +
           CsvField(Joined(row.warnings)) + "\n";
  }
  return csv;
}

std::string RateProvenanceText(const MachineRate& r) {
  if (r.basis != RateBasis::kEstimated) return std::string(RateBasisName(r.basis)) + " figure";
  return "unit time P10-P90 " + FormatTime(r.unit_time_p10_s) + " - " +
         FormatTime(r.unit_time_p90_s) + "; priced by " + SourceShareText(r.step.source_share);
}

std::string FomProvenanceText(const FomResult& r) {
  std::string out = "\nprovenance (unit time band with every kernel at its P10-P90 price; "
                    "share of kernel time by pricing source):\n";
  for (const FomRow& row : r.rows) {
    out += "  " + row.workload + "\n    target   " + row.target.machine + ": " +
           RateProvenanceText(row.target) + "\n    baseline " + row.baseline.machine + ": " +
           RateProvenanceText(row.baseline) + "\n";
    for (const std::string& w : row.warnings) out += "    warning: " + w + "\n";
  }
  return out;
}

std::string WorkloadRatesToJson(const std::vector<WorkloadRate>& rates) {
  nlohmann::json rows = nlohmann::json::array();
  for (const WorkloadRate& w : rates) {
    const MachineRate& r = w.rate;
    const double epoch_s = r.step_time_s * static_cast<double>(r.steps_per_epoch);
    nlohmann::json row = RateJson(r);
    row.update({{"workload", w.info.name}, {"model", w.info.model}, {"machine", w.machine},
                {"batch", w.info.batch}, {"dtype", PrecisionName(w.info.precision)}, {"mode", ModeName(w.info.mode)},
                {"steps_per_epoch", r.steps_per_epoch}, {"epoch_time_s", epoch_s},
                {"concurrent_units", r.concurrent_units}});
    rows.push_back(std::move(row));
  }
  return rows.dump(2);
}

std::string WorkloadRatesToCsv(const std::vector<WorkloadRate>& rates) {
  std::string csv = std::string("workload,model,machine,batch,dtype,mode,") + kRateColumns +
                    ",steps_per_epoch,concurrent_units,warnings\n";
  for (const WorkloadRate& w : rates) {
    csv += RateCsv(w.info, w.rate) + "," + std::to_string(w.rate.steps_per_epoch) + "," +
           std::to_string(w.rate.concurrent_units) + "," + CsvField(Joined(w.rate.step.warnings)) +
           "\n";
  }
  return csv;
}

}  // namespace dlsim
