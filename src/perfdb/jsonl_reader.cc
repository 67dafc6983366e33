// Reading a JSON-lines file of measurement records. dlsim-calibrate fsyncs
// each record before starting the next, so a killed run leaves at most one
// partial line, at the end: that one is a warning, anything else an error.
#include <fstream>

#include "dlsim/perfdb/record.h"
#include "dlsim/util/input_file.h"

namespace dlsim {
namespace {

std::string Trim(const std::string& s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

struct NumberedLine {
  int number;
  std::string text;
};

// A killed writer leaves the start of a record as dlsim-calibrate writes
// it ({"schema": 1, ...); any other unfinished last line is garbage, an error
// (a file of one garbage line used to import 0 records and succeed).
bool LooksLikeCutRecord(const std::string& text) {
  static const std::string kStart = "{\"schema\"";
  return text.compare(0, kStart.size(), kStart) == 0 ||
         (text.size() < kStart.size() && kStart.compare(0, text.size(), text) == 0);
}

}  // namespace

Result<JsonlContents> ReadRecordsJsonl(const std::string& path) {
  // A regular file only (not /dev/zero or a FIFO), and one whose lines fit
  // in memory: a day of calibration writes tens of MB.
  DLSIM_RETURN_IF_ERROR(CheckInputFile(path, "a measurement file", int64_t{1} << 30));
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open measurement file");
  std::vector<NumberedLine> lines;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    std::string trimmed = Trim(text);
    if (!trimmed.empty()) lines.push_back({number, std::move(trimmed)});
  }
  if (in.bad()) return IoError(path + ": read failed");

  JsonlContents contents;
  contents.records.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const NumberedLine& line = lines[i];
    auto record = ParseRecordJson(line.text);
    if (record.ok()) {
      contents.records.push_back(std::move(record).value());
      continue;
    }
    const bool last = i + 1 == lines.size();
    const std::string where = path + ":" + std::to_string(line.number);
    if (last && line.text.back() != '}' && LooksLikeCutRecord(line.text)) {
      contents.warnings.push_back(where +
                                  ": truncated final record ignored (no closing brace; "
                                  "was the calibration run killed?)");
      continue;
    }
    return record.status().WithContext(where);
  }
  return contents;
}

}  // namespace dlsim
