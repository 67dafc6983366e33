// The output formats the sub-commands print (--format): parsed once, by one
// function, against the formats a command supports; the writers (report.h,
// compare_report.h, parallel_report.h, ...) are chosen on the enum.
#ifndef DLSIM_REPORT_OUTPUT_FORMAT_H_
#define DLSIM_REPORT_OUTPUT_FORMAT_H_

#include <string>
#include <vector>

#include "dlsim/util/status.h"

namespace dlsim {

enum class OutputFormat {
  kTable,  // for people
  kJson,   // one JSON document (docs/json-output.md for estimates)
  kCsv,    // rows with a header line
  kJsonl,  // one JSON object per line (database records)
};

// "table", "json", "csv", "jsonl".
const char* OutputFormatName(OutputFormat format);
// The formats in words, as help and errors list them: "table, json or csv".
std::string OutputFormatList(const std::vector<OutputFormat>& formats);
// `text` if it names one of `allowed`; else InvalidArgument naming the option,
// the allowed formats and the value: "--format must be table or json, got 'xml'".
Result<OutputFormat> ParseOutputFormat(const std::string& text,
                                       const std::vector<OutputFormat>& allowed);

}  // namespace dlsim

#endif  // DLSIM_REPORT_OUTPUT_FORMAT_H_
