#include "dlsim/estimate/sweep.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

namespace dlsim {
namespace {

// Rates of every workload on one machine, and their harmonic mean.
Status PriceVariant(const std::vector<Workload>& workloads, const Machine& machine,
                    const StepTimeFn& step_time, SweepVariant* out) {
  out->name = machine.name;
  out->rates.clear();
  std::vector<double> rates, low, high;
  double weight = 0;
  out->source_share.clear();
  for (const Workload& w : workloads) {
    auto rate = RateOnMachine(w, machine, step_time);
    if (!rate.ok()) return rate.status();  // names the workload and machine
    const double units = static_cast<double>(rate->concurrent_units);
    rates.push_back(rate->units_per_day);
    low.push_back(UnitsPerDay(rate->unit_time_p90_s, units));
    high.push_back(UnitsPerDay(std::max(rate->unit_time_p10_s, 1e-30), units));
    for (const auto& [source, share] : rate->step.source_share) {
      out->source_share[source] += share * rate->unit_time_s;
    }
    weight += rate->unit_time_s;
    out->rates.push_back(std::move(rate).value());
  }
  for (auto& [source, share] : out->source_share) share = weight > 0 ? share / weight : 0;
  auto h = HarmonicMean(rates);
  if (!h.ok()) return h.status().WithContext(machine.name);
  out->h_rate = *h;
  DLSIM_ASSIGN_OR_RETURN(out->h_rate_low, HarmonicMean(low));
  DLSIM_ASSIGN_OR_RETURN(out->h_rate_high, HarmonicMean(high));
  return Status::Ok();
}

Status PricePoint(const std::vector<Workload>& workloads, const Machine& base,
                  const SweepGrid& grid, const StepTimeFn& step_time, size_t index,
                  SweepVariant* out) {
  out->point = SweepPoint(grid, index);
  DLSIM_ASSIGN_OR_RETURN(Machine m, MakeVariant(base, grid, out->point));
  return PriceVariant(workloads, m, step_time, out);
}

int ThreadCount(const SweepOptions& options, size_t jobs) {
  int n = options.threads > 0 ? options.threads
                              : static_cast<int>(std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp<size_t>(n > 0 ? n : 1, 1, std::max<size_t>(jobs, 1)));
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

}  // namespace

Result<SweepResult> RunSweep(const std::vector<Workload>& workloads, const Machine& base,
                             const SweepGrid& grid, const StepTimeFn& step_time,
                             const SweepOptions& options) {
  if (workloads.empty()) return InvalidArgument("sweep: no workloads");
  size_t rows = 0;
  if (__builtin_mul_overflow(grid.VariantCount(), workloads.size(), &rows) ||
      rows > kMaxSweepRows) {
    return InvalidArgument("sweep: " + std::to_string(grid.VariantCount()) + " variants x " +
                           std::to_string(workloads.size()) + " workloads is more than the limit of " +
                           std::to_string(kMaxSweepRows) + " rows; sweep fewer values");
  }
  std::vector<Workload> estimated = workloads;
  for (Workload& w : estimated) w.measured.clear();
  SweepResult r;
  r.base_machine = base.name;
  for (const Workload& w : estimated) {
    r.workloads.push_back(w.name);
    r.workload_info.push_back(InfoOf(w));
  }
  Machine reference = AsSweepReference(base);
  reference.name = base.name + "[base]";
  DLSIM_RETURN_IF_ERROR(PriceVariant(estimated, reference, step_time, &r.base));
  r.base.fom = 1;

  const size_t n = grid.VariantCount();
  r.variants.resize(n);
  std::vector<Status> errors(n);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      errors[i] = PricePoint(estimated, base, grid, step_time, i, &r.variants[i]);
    }
  };
  std::vector<std::thread> threads;
  for (int t = ThreadCount(options, n); t > 0; --t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  for (const Status& s : errors) DLSIM_RETURN_IF_ERROR(s);
  for (SweepVariant& v : r.variants) v.fom = v.h_rate / r.base.h_rate;
  r.sensitivity = SweepSensitivity(grid, r.variants);
  return r;
}

std::vector<FieldSensitivity> SweepSensitivity(const SweepGrid& grid,
                                               const std::vector<SweepVariant>& variants) {
  std::vector<FieldSensitivity> out;
  for (size_t a = 0; a < grid.axes.size(); ++a) {
    const size_t k = grid.axes[a].values.size();
    std::vector<double> sum(k, 0);
    std::vector<size_t> count(k, 0);
    for (const SweepVariant& v : variants) {
      sum[v.point[a]] += v.fom;
      ++count[v.point[a]];
    }
    FieldSensitivity s;
    s.field = grid.axes[a].field;
    for (size_t j = 0; j < k; ++j) s.mean_fom_by_value.push_back(count[j] ? sum[j] / count[j] : 0);
    auto [lo, hi] = std::minmax_element(s.mean_fom_by_value.begin(), s.mean_fom_by_value.end());
    s.fom_range = *hi - *lo;
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const FieldSensitivity& x, const FieldSensitivity& y) {
    return x.fom_range > y.fom_range;
  });
  return out;
}

std::string SweepCsv(const SweepGrid& grid, const SweepResult& result) {
  std::string csv = "variant";
  for (const SweepAxis& a : grid.axes) csv += "," + CsvField(a.label);
  csv += ",workload,model,machine,batch,dtype,mode,step_time_s,step_p10_s,step_p90_s,unit_time_s,"
         "unit_time_p10_s,unit_time_p90_s,units_per_day,fom,h_rate_low,h_rate_high,share_measured,"
         "share_fitted,share_scaled,share_roofline,warnings\n";
  for (const SweepVariant& v : result.variants) {
    std::string head = CsvField(v.name);
    for (size_t a = 0; a < grid.axes.size(); ++a) {
      head += "," + CsvField(grid.axes[a].values[v.point[a]].text);
    }
    for (size_t w = 0; w < v.rates.size(); ++w) {
      const MachineRate& m = v.rates[w];
      const WorkloadInfo& info = result.workload_info[w];
      csv += head + "," + CsvField(result.workloads[w]) + "," + CsvField(info.model) + "," +
             CsvField(result.base_machine) + "," + std::to_string(info.batch) + "," +
             CsvField(PrecisionName(info.precision)) + "," + ModeName(info.mode) + "," + Num(m.step_time_s) + "," +
             Num(m.step.p10_s) + "," + Num(m.step.p90_s) + "," + Num(m.unit_time_s) + "," +
             Num(m.unit_time_p10_s) + "," + Num(m.unit_time_p90_s) + "," + Num(m.units_per_day) +
             "," + Num(v.fom) + "," + Num(v.h_rate_low) + "," + Num(v.h_rate_high);
      for (const char* source : {"measured", "fitted", "scaled", "roofline"}) {
        auto it = m.step.source_share.find(source);
        csv += "," + Num(it == m.step.source_share.end() ? 0.0 : it->second);
      }
      std::string warnings;
      for (const std::string& text : m.step.warnings) warnings += (warnings.empty() ? "" : "; ") + text;
      csv += "," + CsvField(warnings) + "\n";
    }
  }
  return csv;
}

}  // namespace dlsim
