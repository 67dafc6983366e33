// Every option applies or is refused (issue 25), for the command line and
// the Python module alike: an option given where it would have no effect is
// an error naming it, what it was given with and why, e.g. "--tf32 does not
// apply with --dtype fp16 (...)". Options are named as the command line
// spells them; who calls says which were given.
#ifndef DLSIM_UTIL_OPTION_RULES_H_
#define DLSIM_UTIL_OPTION_RULES_H_

#include <functional>
#include <initializer_list>
#include <string>

#include "dlsim/util/status.h"

namespace dlsim {

// Whether the option `name` ("--batch") was given.
using OptionGiven = std::function<bool(const std::string& name)>;

// kInvalidArgument "--X does not apply with WITH (REASON)" for the first of
// `options` given; Ok when none was.
Status RefuseGivenOptions(const OptionGiven& given, std::initializer_list<const char*> options,
                          const std::string& with, const std::string& reason);

}  // namespace dlsim

#endif  // DLSIM_UTIL_OPTION_RULES_H_
