#include "csv.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "dlsim/util/input_file.h"

namespace dlsim {

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  return cells;
}

bool ParseFiniteDouble(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*out);
}

Result<int> ReadCsvTable(const std::string& path, const std::string& what, const std::string& header,
                         const std::function<Status(const std::vector<std::string>&)>& row,
                         std::vector<std::string>* comments) {
  DLSIM_RETURN_IF_ERROR(CheckInputFile(path, what, int64_t{64} << 20));
  std::ifstream in(path);
  if (!in) return IoError(path + ": cannot open " + what);
  std::string line;
  bool seen_header = false;
  int rows = 0;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(number);
    if (line[0] == '#') {
      const size_t text = line.find_first_not_of("# ");
      if (comments != nullptr && text != std::string::npos) comments->push_back(line.substr(text));
      continue;
    }
    if (!seen_header) {
      if (line.rfind(header, 0) != 0) return ParseError(where + ": expected the header '" + header + "'");
      seen_header = true;
      continue;
    }
    Status s = row(SplitCsvLine(line));
    if (!s.ok()) return s.WithContext(where);
    ++rows;
  }
  return rows;
}

}  // namespace dlsim
