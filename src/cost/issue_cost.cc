#include "dlsim/cost/issue_cost.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "util/csv.h"

namespace dlsim {
namespace {

constexpr const char* kHeader = "kind,op,arity,cols,dtype,issue_ps_per_elem";

bool IsRowKind(const std::string& kind) { return kind == "layernorm_fwd" || kind == "softmax_fwd"; }
bool IsRowKind(KernelKind kind) { return kind == KernelKind::kLayerNormFwd || kind == KernelKind::kSoftmaxFwd; }

Status ParseCount(const std::string& name, const std::string& text, int* out) {
  double v = 0;
  if (!ParseFiniteDouble(text, &v) || v < 0 || v > 1e9 || v != std::floor(v)) {
    return ParseError(name + " must be a non-negative integer, got '" + text + "'");
  }
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status ParseRow(const std::vector<std::string>& cells, IssueCostTable* table) {
  if (cells.size() != 6) return ParseError("expected 6 comma-separated fields");
  const std::string& kind = cells[0];
  if (kind != "elementwise" && !IsRowKind(kind)) {
    return ParseError("kind must be elementwise, layernorm_fwd or softmax_fwd, got '" + kind + "'");
  }
  int arity = 0, cols = 0;
  DLSIM_RETURN_IF_ERROR(ParseCount("arity", cells[2], &arity));
  DLSIM_RETURN_IF_ERROR(ParseCount("cols", cells[3], &cols));
  if (IsRowKind(kind) && cols == 0) return ParseError("a row kernel needs cols > 0");
  if (kind == "elementwise" && (cells[1].empty() || arity == 0)) {
    return ParseError("an elementwise entry needs an op and an arity > 0");
  }
  double ps = 0;
  if (!ParseFiniteDouble(cells[5], &ps) || ps < 0) {
    return ParseError("issue_ps_per_elem must be a non-negative number, got '" + cells[5] + "'");
  }
  table->Add(kind, cells[1], arity, cols, cells[4], ps);
  return Status::Ok();
}

// The value at `x` of the piecewise-linear curve through `points`, in log(x),
// held flat outside them.
double InterpolateLog(const std::map<int, double>& points, double x) {
  // Table columns are at most 1e9 (ParseCount); a longer row holds the last.
  auto hi = points.lower_bound(static_cast<int>(std::min(std::ceil(x), 1e9)));
  if (hi == points.begin()) return hi->second;
  if (hi == points.end()) return std::prev(hi)->second;
  auto lo = std::prev(hi);
  const double f = std::log(x / lo->first) / std::log(static_cast<double>(hi->first) / lo->first);
  return lo->second + std::clamp(f, 0.0, 1.0) * (hi->second - lo->second);
}

}  // namespace

Result<IssueCostTable> IssueCostTable::Load(const std::string& path) {
  IssueCostTable table;
  DLSIM_ASSIGN_OR_RETURN(
      int rows, ReadCsvTable(path, "an issue-cost table", kHeader,
                             [&](const std::vector<std::string>& cells) { return ParseRow(cells, &table); }));
  if (rows == 0) return ParseError(path + ": no issue costs in the table");
  return table;
}

Result<IssueCostTable> IssueCostTable::ForMachine(const Machine& machine) {
  if (machine.calibration.issue_costs.empty()) return IssueCostTable();
  auto table = Load(machine.calibration.issue_costs);
  if (!table.ok()) return table.status().WithContext(machine.source_path + ": calibration.issue_costs");
  return table;
}

void IssueCostTable::Add(const std::string& kind, const std::string& op, int arity, int cols,
                         const std::string& dtype, double ps_per_elem) {
  if (kind == "elementwise") {
    elementwise_[{op, dtype}][arity] = ps_per_elem;
  } else {
    rows_[{kind, dtype}][cols] = ps_per_elem;
  }
}

double IssueCostTable::ElementwisePs(const std::string& op, int arity, const std::string& dtype) const {
  auto it = elementwise_.find({op, dtype});
  if (it == elementwise_.end()) {
    return dtype == "bf16" ? ElementwisePs(op, arity, "fp16") : 0.0;
  }
  auto a = it->second.find(arity);
  return a != it->second.end() ? a->second : it->second.begin()->second;
}

double IssueCostTable::RowsPs(const std::string& kind, double cols, const std::string& dtype) const {
  auto it = rows_.find({kind, dtype});
  if (it == rows_.end()) return dtype == "bf16" ? RowsPs(kind, cols, "fp16") : 0.0;
  return InterpolateLog(it->second, cols);
}

double IssueCostTable::IssueSeconds(const KernelCall& call) const {
  // Called for every scaled call: GEMMs and convolutions leave at once.
  if (call.kind == KernelKind::kElementwise) {
    const double elems = static_cast<double>(call.IntParam("elems", 0));
    const int arity = static_cast<int>(call.IntParam("arity", 1));
    return elems * ElementwisePs(call.StrParam("op", ""), arity, DTypeName(call.dtype)) * 1e-12;
  }
  if (!IsRowKind(call.kind)) return 0.0;
  const double rows = static_cast<double>(call.IntParam("rows", 0));
  const double cols = static_cast<double>(call.IntParam("cols", 0));
  if (cols <= 0) return 0.0;
  return rows * cols * RowsPs(KernelKindName(call.kind), cols, DTypeName(call.dtype)) * 1e-12;
}

}  // namespace dlsim
