// Writing the report files a command asks for (--html, --trace, --csv).
#ifndef DLSIM_CLI_OUTPUT_FILE_H_
#define DLSIM_CLI_OUTPUT_FILE_H_

#include <string>

#include "dlsim/util/status.h"

namespace dlsim::cli {

// Writes `text` to `path` all or nothing (WriteFileAtomically): a failed
// write is an IoError naming the path and the system's reason, and leaves
// the previous file as it was.
Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace dlsim::cli

#endif  // DLSIM_CLI_OUTPUT_FILE_H_
