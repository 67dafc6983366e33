// Reading the collective table CSV of `dlsim-calibrate nccl`:
//   # comment lines (the first says where and when it was measured)
//   collective,gpus,bytes,time_us,min_us,max_us,algbw_gbs,busbw_gbs
//   all_reduce,4,1024,22.617,...
#include <cmath>
#include <fstream>

#include "dlsim/parallel/collective.h"
#include "dlsim/util/csv.h"
#include "dlsim/util/input_file.h"

namespace dlsim {
namespace {

constexpr const char* kHeader = "collective,gpus,bytes,time_us";

Status ParseRow(const std::string& line, CollectiveTable* table) {
  const std::vector<std::string> cells = SplitCsvLine(line);
  if (cells.size() < 4) return ParseError("expected at least 4 comma-separated fields");
  DLSIM_ASSIGN_OR_RETURN(Collective c, ParseCollective(cells[0]));
  double gpus = 0, bytes = 0, time_us = 0;
  if (!ParseFiniteDouble(cells[1], &gpus) || gpus < 1 || gpus > 1e6 || gpus != std::floor(gpus)) {
    return ParseError("gpus must be a positive integer, got '" + cells[1] + "'");
  }
  if (!ParseFiniteDouble(cells[2], &bytes) || bytes <= 0) {
    return ParseError("bytes must be a positive number, got '" + cells[2] + "'");
  }
  if (!ParseFiniteDouble(cells[3], &time_us) || time_us <= 0) {
    return ParseError("time_us must be a positive number, got '" + cells[3] + "'");
  }
  table->Add(c, static_cast<int>(gpus), {bytes, time_us * 1e-6});
  return Status::Ok();
}

}  // namespace

Result<CollectiveTable> CollectiveTable::Load(const std::string& path) {
  DLSIM_RETURN_IF_ERROR(CheckInputFile(path, "a collective table", int64_t{64} << 20));
  std::ifstream in(path);
  if (!in) return IoError(path + ": cannot open collective table");
  CollectiveTable table;
  std::string line;
  bool header = false;
  int rows = 0;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      const size_t text = line.find_first_not_of("# ");
      if (table.sources_.empty() && text != std::string::npos) {
        table.sources_.push_back(line.substr(text));
      }
      continue;
    }
    if (!header) {
      if (line.rfind(kHeader, 0) != 0) {
        return ParseError(path + ":" + std::to_string(number) + ": expected the header '" +
                          kHeader + ",...'");
      }
      header = true;
      continue;
    }
    Status s = ParseRow(line, &table);
    if (!s.ok()) return s.WithContext(path + ":" + std::to_string(number));
    ++rows;
  }
  if (rows == 0) return ParseError(path + ": no collective timings in the table");
  return table;
}

}  // namespace dlsim
