#include "dlsim/report/output_format.h"

namespace dlsim {

const char* OutputFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable: return "table";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kCsv: return "csv";
    case OutputFormat::kJsonl: return "jsonl";
  }
  return "table";
}

std::string OutputFormatList(const std::vector<OutputFormat>& formats) {
  std::string list;
  size_t i = 0;
  for (OutputFormat f : formats) {
    if (i > 0) list += i + 1 == formats.size() ? " or " : ", ";
    list += OutputFormatName(f);
    ++i;
  }
  return list;
}

Result<OutputFormat> ParseOutputFormat(const std::string& text,
                                       const std::vector<OutputFormat>& allowed) {
  for (OutputFormat f : allowed) {
    if (text == OutputFormatName(f)) return f;
  }
  return InvalidArgument("--format must be " + OutputFormatList(allowed) + ", got '" + text + "'");
}

}  // namespace dlsim
