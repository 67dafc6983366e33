// The two pieces every small CSV table of dlsim's needs (collective tables,
// issue costs): fields of one line, and a number that must be finite.
#ifndef DLSIM_SRC_UTIL_CSV_H_
#define DLSIM_SRC_UTIL_CSV_H_

#include <functional>
#include <string>
#include <vector>

#include "dlsim/util/status.h"

namespace dlsim {

// The comma-separated fields of `line` (no quoting: dlsim's tables need none).
std::vector<std::string> SplitCsvLine(const std::string& line);

// True and `*out` set when `text` is wholly a finite number.
bool ParseFiniteDouble(const std::string& text, double* out);

// Reads the table at `path` (a regular file of at most 64 MiB, named `what`
// in errors): lines starting with '#' are comments, appended to `comments`
// when given (without the '#'); the first other line must begin with
// `header`; every later non-empty line is passed to `row` as its fields.
// Errors name path:line. Returns the number of rows.
Result<int> ReadCsvTable(const std::string& path, const std::string& what, const std::string& header,
                         const std::function<Status(const std::vector<std::string>&)>& row,
                         std::vector<std::string>* comments = nullptr);

}  // namespace dlsim

#endif  // DLSIM_SRC_UTIL_CSV_H_
