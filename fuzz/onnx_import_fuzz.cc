// libFuzzer target: dlsim::fuzz::OnnxImport (fuzz_entries.h) on arbitrary bytes.
// Seed corpus: fuzz/corpus/onnx_import_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (!dlsim::fuzz::OnnxImport(input)) __builtin_trap();
  return 0;
}
