#include "dlsim/estimate/sweep_grid.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>

namespace dlsim {
namespace {

bool IsIntegerField(const std::string& field) {
  return field == "device.sm_count" || field == "node.gpus_per_node" || field == "system.nodes";
}

// "memory_bw" -> "device.memory_bw"; "" when unknown.
std::string CanonicalField(const std::string& name) {
  for (const std::string& f : SupportedSweepFields()) {
    if (f == name || f.substr(f.find('.') + 1) == name) return f;
  }
  return "";
}

std::string FieldList() {
  std::string out;
  for (const std::string& f : SupportedSweepFields()) out += (out.empty() ? "" : ", ") + f;
  return out;
}

// `name` is the field as the user wrote it, for messages.
Result<SweepValue> ParseValue(const std::string& field, const std::string& name,
                              const std::string& text) {
  SweepValue v;
  v.text = text;
  v.multiplier = !text.empty() && (text[0] == 'x' || text[0] == 'X');
  const std::string number = v.multiplier ? text.substr(1) : text;
  const std::string where = "--grid " + name + ": value '" + text + "'";
  char* end = nullptr;
  v.value = number.empty() ? 0 : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size()) {
    return InvalidArgument(where + " is not a number or xFACTOR");
  }
  if (!std::isfinite(v.value) || v.value <= 0) {
    return InvalidArgument(where + " must be positive and finite");
  }
  if (!v.multiplier && IsIntegerField(field) && v.value != std::floor(v.value)) {
    return InvalidArgument(where + " must be a whole number");
  }
  return v;
}

// Scales a whole-number field; the result must stay a whole number >= 1.
Status SetInteger(const std::string& field, const SweepValue& v, int* target) {
  const double x = v.multiplier ? *target * v.value : v.value;
  if (x < 1 || x != std::floor(x) || x > 1e9) {
    return InvalidArgument(field + "=" + v.text + ": gives " + std::to_string(x) +
                           ", not a whole number >= 1");
  }
  *target = static_cast<int>(x);
  return Status::Ok();
}

// The factor that turns `reference` into the value asked for.
Result<double> Factor(const std::string& field, const SweepValue& v, double reference) {
  if (v.multiplier) return v.value;
  if (reference <= 0) {
    return InvalidArgument(field + "=" + v.text + ": the base machine has no figure to set");
  }
  return v.value / reference;
}

}  // namespace

size_t SweepGrid::VariantCount() const {
  size_t n = 1;
  for (const SweepAxis& a : axes) {
    if (__builtin_mul_overflow(n, a.values.size(), &n)) return SIZE_MAX;
  }
  return n;
}

const std::vector<std::string>& SupportedSweepFields() {
  static const std::vector<std::string> kFields = {
      "device.memory_bw",   "device.matrix_peak", "device.vector_peak", "device.sm_count",
      "node.gpus_per_node", "system.nodes",       "node.nic_bw",        "host.dispatch"};
  return kFields;
}

Result<SweepAxis> ParseSweepAxis(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument("--grid '" + spec + "': expected FIELD=V1,V2,... (fields: " +
                           FieldList() + ")");
  }
  SweepAxis axis;
  const std::string name = spec.substr(0, eq);
  axis.field = CanonicalField(name);
  if (axis.field.empty()) {
    return InvalidArgument("--grid " + name + ": unknown field (fields: " + FieldList() + ")");
  }
  axis.label = axis.field.substr(axis.field.find('.') + 1);
  const std::string list = spec.substr(eq + 1) + ",";
  std::set<std::string> seen;
  for (size_t start = 0, comma; (comma = list.find(',', start)) != std::string::npos;
       start = comma + 1) {
    const std::string text = list.substr(start, comma - start);
    if (text.empty()) return InvalidArgument("--grid " + name + ": empty value in '" + spec + "'");
    if (!seen.insert(text).second) {
      return InvalidArgument("--grid " + name + ": value '" + text + "' given twice");
    }
    DLSIM_ASSIGN_OR_RETURN(SweepValue v, ParseValue(axis.field, name, text));
    axis.values.push_back(v);
  }
  return axis;
}

Result<SweepGrid> ParseSweepGrid(const std::vector<std::string>& specs) {
  SweepGrid grid;
  for (const std::string& spec : specs) {
    DLSIM_ASSIGN_OR_RETURN(SweepAxis axis, ParseSweepAxis(spec));
    for (const SweepAxis& a : grid.axes) {
      if (a.field == axis.field) return InvalidArgument("--grid " + axis.field + ": given twice");
    }
    grid.axes.push_back(std::move(axis));
  }
  const size_t n = grid.VariantCount();  // saturating: 10^30 points is SIZE_MAX
  if (n > kMaxSweepRows) {
    return InvalidArgument("--grid: " +
                           (n == SIZE_MAX ? std::string("more than 2^64") : std::to_string(n)) +
                           " variants, more than the limit of " + std::to_string(kMaxSweepRows) +
                           " (variants x workloads); sweep fewer values");
  }
  return grid;
}

Status ApplySweepValue(const std::string& field, const SweepValue& v, Machine* m) {
  DeviceSpec& d = m->device;
  PeakFlops& p = d.peak_flops;
  if (field == "device.sm_count") return SetInteger(field, v, &d.sm_count);
  if (field == "node.gpus_per_node") return SetInteger(field, v, &m->node.gpus_per_node);
  if (field == "system.nodes") return SetInteger(field, v, &m->system.nodes);
  if (field == "device.memory_bw") {
    DLSIM_ASSIGN_OR_RETURN(double f, Factor(field, v, d.memory_bw_bytes_per_s));
    d.memory_bw_bytes_per_s *= f;
    d.measured_memory_bw_bytes_per_s *= f;
  } else if (field == "device.matrix_peak") {
    DLSIM_ASSIGN_OR_RETURN(double f, Factor(field, v, p.bf16_matrix));
    for (double* x : {&p.tf32_matrix, &p.fp16_matrix, &p.bf16_matrix, &p.fp8_matrix}) *x *= f;
  } else if (field == "device.vector_peak") {
    DLSIM_ASSIGN_OR_RETURN(double f, Factor(field, v, p.fp32_vector));
    for (double* x : {&p.fp32_vector, &p.fp16_vector, &p.bf16_vector}) *x *= f;
  } else if (field == "node.nic_bw") {
    DLSIM_ASSIGN_OR_RETURN(double f, Factor(field, v, m->node.nic.bw_bytes_per_s));
    m->node.nic.bw_bytes_per_s *= f;
  } else if (field == "host.dispatch") {
    DLSIM_ASSIGN_OR_RETURN(double f, Factor(field, v, m->host.dispatch_s));
    m->host.dispatch_s *= f;
    for (auto& [kind, s] : m->host.dispatch_s_by_kind) s *= f;
  } else {
    return InvalidArgument("unknown sweep field '" + field + "'");
  }
  return Status::Ok();
}

std::vector<size_t> SweepPoint(const SweepGrid& grid, size_t index) {
  std::vector<size_t> point(grid.axes.size());
  for (size_t i = grid.axes.size(); i-- > 0;) {
    const size_t n = grid.axes[i].values.size();
    point[i] = index % n;
    index /= n;
  }
  return point;
}

std::string VariantName(const std::string& base_name, const SweepGrid& grid,
                        const std::vector<size_t>& point) {
  std::string name = base_name + "[";
  for (size_t i = 0; i < grid.axes.size(); ++i) {
    name += (i ? "," : "") + grid.axes[i].label + "=" + grid.axes[i].values[point[i]].text;
  }
  return name + "]";
}

Machine AsSweepReference(const Machine& base) {
  Machine m = base;
  if (!base.calibration.perf_db.empty()) {
    m.calibration.perf_db.clear();
    m.calibration.perf_db_as_written.clear();
    m.calibration.scale_from = base.source_path;
  }
  return m;
}

Result<Machine> MakeVariant(const Machine& base, const SweepGrid& grid,
                            const std::vector<size_t>& point) {
  Machine m = AsSweepReference(base);
  for (size_t i = 0; i < grid.axes.size(); ++i) {
    DLSIM_RETURN_IF_ERROR(ApplySweepValue(grid.axes[i].field, grid.axes[i].values[point[i]], &m));
  }
  m.name = VariantName(base.name, grid, point);
  return m;
}

}  // namespace dlsim
