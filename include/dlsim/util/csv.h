// The two pieces every small CSV table of dlsim's needs (collective tables,
// issue costs): fields of one line, and a number that must be finite.
#ifndef DLSIM_UTIL_CSV_H_
#define DLSIM_UTIL_CSV_H_

#include <string>
#include <vector>

namespace dlsim {

// The comma-separated fields of `line` (no quoting: dlsim's tables need none).
std::vector<std::string> SplitCsvLine(const std::string& line);

// True and `*out` set when `text` is wholly a finite number.
bool ParseFiniteDouble(const std::string& text, double* out);

}  // namespace dlsim

#endif  // DLSIM_UTIL_CSV_H_
