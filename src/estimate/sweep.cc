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
  std::vector<double> rates;
  for (const Workload& w : workloads) {
    auto rate = RateOnMachine(w, machine, step_time);
    if (!rate.ok()) return rate.status();  // names the workload and machine
    rates.push_back(rate->units_per_day);
    out->rates.push_back(std::move(rate).value());
  }
  auto h = HarmonicMean(rates);
  if (!h.ok()) return h.status().WithContext(machine.name);
  out->h_rate = *h;
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
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
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
  for (const Workload& w : estimated) r.workloads.push_back(w.name);
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
  for (const SweepAxis& a : grid.axes) csv += "," + a.label;
  csv += ",workload,step_time_s,unit_time_s,units_per_day,fom\n";
  for (const SweepVariant& v : result.variants) {
    std::string head = CsvField(v.name);
    for (size_t a = 0; a < grid.axes.size(); ++a) head += "," + grid.axes[a].values[v.point[a]].text;
    for (size_t w = 0; w < v.rates.size(); ++w) {
      const MachineRate& m = v.rates[w];
      csv += head + "," + CsvField(result.workloads[w]) + "," + Num(m.step_time_s) + "," +
             Num(m.unit_time_s) + "," + Num(m.units_per_day) + "," + Num(v.fom) + "\n";
    }
  }
  return csv;
}

}  // namespace dlsim
