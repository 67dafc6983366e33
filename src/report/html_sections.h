// The sections of the HTML report (private to src/report): each returns one
// <section> element as text, every name escaped. html_report.cc puts them
// together with the page's CSS.
#ifndef DLSIM_SRC_REPORT_HTML_SECTIONS_H_
#define DLSIM_SRC_REPORT_HTML_SECTIONS_H_

#include <map>
#include <string>

#include "dlsim/analyze/analyze.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/machine/machine.h"

namespace dlsim::html {

// The page's style sheet (html_report.cc), shared by every HTML page dlsim writes.
extern const char kCss[];
// A page's doctype, head (title "dlsim: TITLE", the style sheet) and <body>.
std::string PageHead(const std::string& title);

// Op type -> CSS colour, shared by the charts so one op type has one colour:
// the nine op types with the most time get distinct palette colours, the
// rest grey (OpColor).
using OpColors = std::map<std::string, std::string>;
OpColors ColorOpTypes(const Estimate& e);
std::string OpColor(const OpColors& colors, const std::string& op_type);
// An HTML legend of the coloured op types, most time first.
std::string OpLegend(const Estimate& e, const OpColors& colors);

// A layer name for HTML text: escaped, with a line-break opportunity
// (<wbr>) after each '/', so "/layer2/layer2.0/conv1/Conv" wraps between parts.
std::string Name(const std::string& name);
// "12.3 %" of part in whole (0 when whole is 0).
std::string Percent(double part, double whole);
// <tr><th>key</th><td>value</td></tr>, both escaped.
std::string Row(const std::string& key, const std::string& value);
// <td>text</td>, escaped.
std::string Cell(const std::string& text);
// x with `digits` decimals ("%.*f").
std::string Fixed(double x, int digits);

std::string SummarySection(const Estimate& e, const Machine& machine);
std::string BreakdownSection(const Estimate& e, const OpColors& colors, int max_layers);
std::string CriticalPathSection(const Estimate& e, const OpColors& colors);
std::string RooflineSection(const Estimate& e, const Machine& machine, const OpColors& colors);
std::string AdviceSection(const Analysis& analysis, int max_layers);
std::string SourcesSection(const Estimate& e, const Machine& machine, bool analysis);
std::string WarningsSection(const Estimate& e);

}  // namespace dlsim::html

#endif  // DLSIM_SRC_REPORT_HTML_SECTIONS_H_
