// Opening files from strangers: only regular files of a bounded size are
// read, so a path to /dev/zero, a FIFO or a 100 GB file gives an error, not
// a hang or an exhausted memory.
#ifndef DLSIM_UTIL_INPUT_FILE_H_
#define DLSIM_UTIL_INPUT_FILE_H_

#include <cstdint>
#include <string>

#include "dlsim/util/status.h"

namespace dlsim {

// Ok when `path` is a regular file (symlinks followed) of at most
// `max_bytes`. NotFound when absent; InvalidArgument for a folder, device,
// FIFO or socket; OutOfRange when larger. Messages start with `path` and
// name the file as `what` ("ONNX file", "measurement file").
Status CheckInputFile(const std::string& path, const std::string& what, int64_t max_bytes);

// Reads a whole file after CheckInputFile.
Result<std::string> ReadInputFile(const std::string& path, const std::string& what,
                                  int64_t max_bytes);

}  // namespace dlsim

#endif  // DLSIM_UTIL_INPUT_FILE_H_
