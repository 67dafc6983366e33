// JSON of an analysis (dlsim analyze --format json, docs/analyze.md): the
// baseline's headline figures, the advice ranked, and the notes.
#ifndef DLSIM_REPORT_ANALYSIS_REPORT_H_
#define DLSIM_REPORT_ANALYSIS_REPORT_H_

#include <string>

#include "dlsim/analyze/analyze.h"

namespace dlsim {

// Indented by 2.
std::string AnalysisToJson(const Analysis& analysis);

}  // namespace dlsim

#endif  // DLSIM_REPORT_ANALYSIS_REPORT_H_
