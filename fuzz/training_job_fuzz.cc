// libFuzzer target: dlsim::fuzz::TrainingJobYaml (fuzz_entries.h) on arbitrary bytes.
// Seed corpus: fuzz/corpus/training_job_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (!dlsim::fuzz::TrainingJobYaml(input)) __builtin_trap();
  return 0;
}
