#include "dlsim/util/option_rules.h"

namespace dlsim {

Status RefuseGivenOptions(const OptionGiven& given, std::initializer_list<const char*> options,
                          const std::string& with, const std::string& reason) {
  for (const char* name : options) {
    if (given(name)) {
      return InvalidArgument(std::string(name) + " does not apply with " + with + " (" + reason + ")");
    }
  }
  return Status::Ok();
}

}  // namespace dlsim
