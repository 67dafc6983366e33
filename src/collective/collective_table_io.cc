// Reading the collective table CSV of `dlsim-calibrate nccl`:
//   # comment lines (the first says where and when it was measured)
//   collective,gpus,bytes,time_us,min_us,max_us,algbw_gbs,busbw_gbs
//   all_reduce,4,1024,22.617,...
#include <cmath>

#include "dlsim/collective/collective.h"
#include "util/csv.h"

namespace dlsim {
namespace {

constexpr const char* kHeader = "collective,gpus,bytes,time_us";

Status ParseRow(const std::vector<std::string>& cells, CollectiveTable* table) {
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
  CollectiveTable table;
  std::vector<std::string> comments;
  DLSIM_ASSIGN_OR_RETURN(
      int rows, ReadCsvTable(path, "a collective table", kHeader,
                             [&](const std::vector<std::string>& cells) { return ParseRow(cells, &table); },
                             &comments));
  if (rows == 0) return ParseError(path + ": no collective timings in the table");
  if (!comments.empty()) table.sources_.push_back(comments.front());
  return table;
}

}  // namespace dlsim
