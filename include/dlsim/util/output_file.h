// Writing output files so that a failure never leaves a cut-off file and
// never destroys the previous good one (issue 24).
#ifndef DLSIM_UTIL_OUTPUT_FILE_H_
#define DLSIM_UTIL_OUTPUT_FILE_H_

#include <string>

#include "dlsim/util/status.h"

namespace dlsim {

// Writes `bytes` to `path` all or nothing: into a temporary file in the same
// folder ("PATH.tmp.XXXXXX"), every write, the fsync and the close checked,
// then renamed over `path` (keeping an existing file's permissions). On any
// failure the temporary file is removed, `path` is left as it was, and the
// IoError names `path` and the system's reason ("No space left on device").
// A `path` that exists and is not a regular file (/dev/stdout, /dev/null, a
// FIFO) is written in place, every write and the close checked, so that
// /dev/full is an error and a device is never replaced by a file.
Status WriteFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace dlsim

#endif  // DLSIM_UTIL_OUTPUT_FILE_H_
