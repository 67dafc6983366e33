// libFuzzer target: dlsim::fuzz::SweepGridSpecs (fuzz_entries.h) on arbitrary bytes.
// Seed corpus: fuzz/corpus/sweep_grid_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (!dlsim::fuzz::SweepGridSpecs(input)) __builtin_trap();
  return 0;
}
