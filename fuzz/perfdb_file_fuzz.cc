// libFuzzer target: dlsim::fuzz::PerfDbFile (fuzz_entries.h) on arbitrary
// bytes taken as a performance database file (issue 24).
// Seed corpus: fuzz/corpus/perfdb_file_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (!dlsim::fuzz::PerfDbFile(input)) __builtin_trap();
  return 0;
}
