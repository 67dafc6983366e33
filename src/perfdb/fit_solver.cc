// Subset-enumeration NNLS on relative residuals, with Eigen. Times span five
// orders of magnitude, so absolute least squares would fit only the largest
// kernels; dividing each row by its target makes every residual relative.
#include "fit_solver.h"

#include <Eigen/Dense>
#include <limits>

#include "dlsim/util/status.h"

namespace dlsim::perfdb_internal {

std::vector<double> FitNonNegativeRelative(const std::vector<std::vector<double>>& rows,
                                           const std::vector<double>& y) {
  DLSIM_CHECK(!rows.empty() && rows.size() == y.size());
  const int n = static_cast<int>(rows.size());
  const int p = static_cast<int>(rows[0].size());
  DLSIM_CHECK(p >= 1 && p <= 12);
  Eigen::MatrixXd a(n, p);
  for (int i = 0; i < n; ++i) {
    DLSIM_CHECK(y[i] > 0 && static_cast<int>(rows[i].size()) == p);
    for (int j = 0; j < p; ++j) a(i, j) = rows[i][j] / y[i];
  }
  // Scale columns to unit norm so FLOPs (~1e12) and the constant (1) are
  // equally well conditioned; zero columns stay out of every subset.
  Eigen::VectorXd scale = a.colwise().norm().transpose();
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);

  std::vector<double> best(p, 0.0);
  double best_residual = std::numeric_limits<double>::infinity();
  for (int mask = 1; mask < (1 << p); ++mask) {
    std::vector<int> cols;
    for (int j = 0; j < p; ++j) {
      if ((mask >> j & 1) && scale[j] > 0) cols.push_back(j);
    }
    if (cols.size() != static_cast<size_t>(__builtin_popcount(mask))) continue;
    Eigen::MatrixXd sub(n, static_cast<int>(cols.size()));
    for (size_t c = 0; c < cols.size(); ++c) sub.col(c) = a.col(cols[c]) / scale[cols[c]];
    Eigen::VectorXd coef = sub.colPivHouseholderQr().solve(ones);
    if ((coef.array() < 0).any() || !coef.allFinite()) continue;
    const double residual = (sub * coef - ones).squaredNorm();
    if (residual < best_residual) {
      best_residual = residual;
      std::fill(best.begin(), best.end(), 0.0);
      for (size_t c = 0; c < cols.size(); ++c) best[cols[c]] = coef[c] / scale[cols[c]];
    }
  }
  return best;
}

}  // namespace dlsim::perfdb_internal
