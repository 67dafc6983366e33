// Writers for estimates: a table for people, JSON and CSV for programs.
// The JSON is a contract (docs/json-output.md); nlohmann-json stays in here.
#ifndef DLSIM_REPORT_REPORT_H_
#define DLSIM_REPORT_REPORT_H_

#include <map>
#include <ostream>
#include <string>

#include "dlsim/estimate/estimator.h"

namespace dlsim {

struct ReportOptions {
  bool include_calls = true;  // per-call detail in JSON
  int max_table_rows = 0;     // 0 = every layer
  bool sort_by_time = false;  // table: slowest layers first (else graph order)
  bool quiet = false;         // table: the headline alone
};

// The figure to quote, first: the step run op by op (eager), the same
// captured as a CUDA graph or compiled (the one-stream GPU time), its band,
// whether the host bounds it, and the pricing sources.
void WriteEstimateHeadline(std::ostream& out, const Estimate& estimate);

std::string EstimateToJson(const Estimate& estimate, const ReportOptions& options);
void WriteEstimateTable(std::ostream& out, const Estimate& estimate,
                        const ReportOptions& options);
void WriteEstimateCsv(std::ostream& out, const Estimate& estimate);
// Chrome-trace JSON (Perfetto, chrome://tracing), times in microseconds:
// process "GPU (one stream)" (its kernels back to back on thread "stream 0";
// with data parallelism the gradient collectives on a thread of their own),
// "GPU (critical path)" (each concurrent stream a thread, "stream 0", ...),
// and, when the machine has host dispatch costs, "host" (thread "dispatch")
// and "GPU (eager)" (thread "stream 0"), the step run op by op.
std::string EstimateToChromeTrace(const Estimate& estimate);

// "12.3 GFLOP", "1.50 MB", "3.20 ms" style formatting.
std::string FormatFlops(double flops);
std::string FormatBytes(double bytes);
std::string FormatTime(double seconds);
// A CSV field: quoted (quotes doubled) when it holds a comma, quote or newline.
std::string CsvField(const std::string& text);
// The host an eager estimate was priced for, in words: its CPU and
// framework, and whether its costs were calibrated on it, with where they
// came from; or that the machine models no host.
std::string HostDescription(const HostSpec& host);
// "measured 62 %, fitted 38 %": shares of kernel time by pricing source
// (Estimate::source_share), "-" when none.
std::string SourceShareText(const std::map<std::string, double>& shares);

}  // namespace dlsim

#endif  // DLSIM_REPORT_REPORT_H_
