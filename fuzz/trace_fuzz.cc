// libFuzzer target: dlsim::fuzz::Trace (fuzz_entries.h), the Chrome-trace
// reader of `dlsim compare --profile`, on arbitrary bytes.
// Seed corpus: fuzz/corpus/trace_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (!dlsim::fuzz::Trace(input)) __builtin_trap();
  return 0;
}
