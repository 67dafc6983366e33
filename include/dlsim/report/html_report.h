// The self-contained HTML report of an estimate, with `dlsim analyze`'s
// advice when given: one file with inline CSS and inline SVG, no script and
// nothing fetched, so it can be mailed, attached to an issue or opened
// offline. docs/reports.md shows one.
#ifndef DLSIM_REPORT_HTML_REPORT_H_
#define DLSIM_REPORT_HTML_REPORT_H_

#include <string>

#include "dlsim/analyze/analyze.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/machine/machine.h"

namespace dlsim {

struct HtmlReportOptions {
  int max_layer_bars = 30;    // layers in the time breakdown chart, largest first
  int max_advice_layers = 8;  // layers listed under each piece of advice
};

// The page, in sections: summary, time breakdown (layers and op types), the
// critical path, a roofline of the layers under `machine`'s ceilings, the
// advice of `analysis` (null = no such section), the pricing sources and the
// warnings. `machine` is the one `estimate` was made for (its peaks draw the
// roofline; its files and `sources` are cited). Every name from the model is
// HTML-escaped. Deterministic: the same input gives the same bytes.
std::string EstimateToHtml(const Estimate& estimate, const Machine& machine,
                           const Analysis* analysis,
                           const HtmlReportOptions& options = HtmlReportOptions{});

}  // namespace dlsim

#endif  // DLSIM_REPORT_HTML_REPORT_H_
