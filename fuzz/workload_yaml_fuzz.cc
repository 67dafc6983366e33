// libFuzzer target: dlsim::fuzz::WorkloadYaml (fuzz_entries.h) on arbitrary bytes.
// Seed corpus: fuzz/corpus/workload_yaml_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (!dlsim::fuzz::WorkloadYaml(input)) __builtin_trap();
  return 0;
}
