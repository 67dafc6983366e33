// Kernel keys (docs/kernel-keys.md) as dlsim-calibrate reads them: parsed
// and checked by src/kernel (key.h, key_params.h), with the measuring family
// of their kind, and job-list files.
#ifndef DLSIM_CALIBRATE_KEY_H_
#define DLSIM_CALIBRATE_KEY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "family.h"

namespace dlcal {

struct Key {
  std::string text;  // the key as recorded: tokens joined by single spaces
  std::string kind;  // "conv_fwd", "gemm", ...
  std::vector<std::pair<std::string, std::string>> params;  // in key order
  std::string dtype, math, layout;
  Family family = Family::kNone;  // which Measure* function times it

  bool Has(const std::string& name) const;
  // Integer parameter; `fallback` when absent or not an integer.
  int64_t Int(const std::string& name, int64_t fallback = 0) const;
  std::string Str(const std::string& name, const std::string& fallback = "") const;
};

// Every kind dlsim-calibrate measures (a family other than kNone), in
// docs/kernel-keys.md's table order.
const std::vector<std::string>& KnownKinds();

// Parses one key line. Fails (with a message) on an unknown kind or one not
// measured here, a token that is not name=value, a missing or unknown dtype,
// missing math/layout, or a missing/non-integer required parameter.
bool ParseKey(const std::string& line, Key* key, std::string* error);

std::string Trim(const std::string& s);

// Reads a job list: one key per line, blank lines and '#' comments skipped,
// duplicates (also across calls) dropped. Appends parsed keys to *keys and
// one message per bad line to *bad_lines. False if the file cannot be read.
bool ReadJobFile(const std::string& path, std::vector<Key>* keys,
                 std::vector<std::string>* bad_lines, std::string* error);

// Appends key texts to *keys, skipping bad and duplicate ones.
void AddKeys(const std::vector<std::string>& lines, const std::string& origin,
             std::vector<Key>* keys, std::vector<std::string>* bad_lines);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_KEY_H_
