// The least-squares core of the fitted models, private to src/perfdb.
#ifndef DLSIM_SRC_PERFDB_FIT_SOLVER_H_
#define DLSIM_SRC_PERFDB_FIT_SOLVER_H_

#include <vector>

namespace dlsim::perfdb_internal {

// Non-negative coefficients c minimising sum_i ((x_i . c - y_i) / y_i)^2,
// i.e. the squared relative error of a linear model. `rows` are the feature
// vectors x_i (all of one length p <= 12), `y` the positive targets. Exact for
// small p: every subset of free columns is solved by unconstrained least
// squares and the best subset whose solution is non-negative wins (the
// active-set optimum of Lawson & Hanson's NNLS is one of those subsets).
std::vector<double> FitNonNegativeRelative(const std::vector<std::vector<double>>& rows,
                                           const std::vector<double>& y);

}  // namespace dlsim::perfdb_internal

#endif  // DLSIM_SRC_PERFDB_FIT_SOLVER_H_
