// Private to src/machine: YAML document -> validated Machine (schema in
// docs/machine-format.md). File handling lives in machine_io.cc.
#ifndef DLSIM_SRC_MACHINE_MACHINE_PARSE_H_
#define DLSIM_SRC_MACHINE_MACHINE_PARSE_H_

#include <yaml-cpp/yaml.h>

#include <string>

#include "dlsim/machine/machine.h"
#include "dlsim/util/status.h"

namespace dlsim::machine_internal {

// Validates `doc` and converts it to SI units. `file` names the file in
// messages and is the base of relative calibration paths. Never throws.
Result<Machine> ParseMachine(const YAML::Node& doc, const std::string& file);
// A host profile: a document whose only key is `host`, the machine file's
// section (what dlsim-calibrate host writes). Never throws.
Result<HostSpec> ParseHostProfile(const YAML::Node& doc, const std::string& file);

}  // namespace dlsim::machine_internal

#endif  // DLSIM_SRC_MACHINE_MACHINE_PARSE_H_
