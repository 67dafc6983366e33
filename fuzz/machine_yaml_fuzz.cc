// libFuzzer target: dlsim::fuzz::MachineYaml (fuzz_entries.h) on arbitrary bytes.
// Seed corpus: fuzz/corpus/machine_yaml_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (!dlsim::fuzz::MachineYaml(input)) __builtin_trap();
  return 0;
}
