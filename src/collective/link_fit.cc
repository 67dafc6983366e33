// Fitting a ring link to measured collective tables (Eigen least squares).
#include <Eigen/Dense>

#include "dlsim/collective/collective.h"

namespace dlsim {
namespace {

struct Sample {
  double steps, volume_bytes, time_s;  // t = launch + steps alpha + volume / B
};

std::vector<Sample> Samples(const CollectiveTable& table) {
  std::vector<Sample> samples;
  for (const auto& [c, gpus] : table.Keys()) {
    if (gpus < 2) continue;
    const double steps = c == Collective::kAllReduce ? 2.0 * (gpus - 1) : gpus - 1.0;
    for (const CollectiveTable::Point& p : *table.Rows(c, gpus)) {
      samples.push_back({steps, steps / gpus * p.bytes, p.time_s});
    }
  }
  return samples;
}

// Weighted least squares over the columns in `use` (launch, alpha, 1/B);
// unused coefficients are 0.
Eigen::Vector3d Solve(const std::vector<Sample>& samples, const bool use[3]) {
  std::vector<int> cols;
  for (int k = 0; k < 3; ++k) {
    if (use[k]) cols.push_back(k);
  }
  Eigen::MatrixXd a(samples.size(), cols.size());
  Eigen::VectorXd y(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    const double x[3] = {1.0, s.steps, s.volume_bytes};
    for (size_t j = 0; j < cols.size(); ++j) a(i, j) = x[cols[j]] / s.time_s;  // relative
    y(i) = 1.0;
  }
  Eigen::VectorXd sol = a.colPivHouseholderQr().solve(y);
  Eigen::Vector3d full = Eigen::Vector3d::Zero();
  for (size_t j = 0; j < cols.size(); ++j) full(cols[j]) = sol(j);
  return full;
}

}  // namespace

bool FitRingLink(const CollectiveTable& table, AlphaBeta* link) {
  const std::vector<Sample> samples = Samples(table);
  if (samples.size() < 3) return false;
  bool use[3] = {true, true, true};
  Eigen::Vector3d coef = Solve(samples, use);
  for (int k = 0; k < 2 && (coef(0) < 0 || coef(1) < 0); ++k) {  // drop a negative term
    use[coef(0) < 0 ? 0 : 1] = false;
    coef = Solve(samples, use);
  }
  if (!(coef(2) > 0)) return false;
  link->launch_s = std::max(0.0, coef(0));
  link->alpha_s = std::max(0.0, coef(1));
  link->bw_bytes_per_s = 1.0 / coef(2);
  return true;
}

}  // namespace dlsim
