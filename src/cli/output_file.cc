#include "output_file.h"

#include "dlsim/util/output_file.h"

namespace dlsim::cli {

Status WriteTextFile(const std::string& path, const std::string& text) {
  return WriteFileAtomically(path, text);
}

}  // namespace dlsim::cli
