// Writers for profile comparisons (dlsim compare): a table for people, JSON
// and CSV for programs. docs/compare.md describes the fields.
#ifndef DLSIM_REPORT_COMPARE_REPORT_H_
#define DLSIM_REPORT_COMPARE_REPORT_H_

#include <ostream>
#include <string>

#include "dlsim/profile/compare.h"

namespace dlsim {

// `max_rows` limits the per-layer table (0 = every layer).
void WriteComparisonTable(std::ostream& out, const Comparison& cmp, int max_rows);
std::string ComparisonToJson(const Comparison& cmp);
// One row per layer: layer,op_type,estimated_ms,measured_ms,ratio,...
void WriteComparisonCsv(std::ostream& out, const Comparison& cmp);

}  // namespace dlsim

#endif  // DLSIM_REPORT_COMPARE_REPORT_H_
