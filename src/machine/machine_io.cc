// Machine files on disk: loading, the bundled folder, name resolution and
// whole-folder validation. The schema itself is in machine_parse.cc.
#include "dlsim/machine/machine_io.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "machine_parse.h"
#include "yaml_fields.h"

namespace dlsim {

namespace fs = std::filesystem;
using machine_internal::ParseMachine;
using machine_internal::ParseYaml;
using machine_internal::ReadTextFile;

namespace {

bool HasYamlSuffix(const std::string& name) {
  const std::string ext = fs::path(name).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

// The machine in `yaml_text`, as written (no host taken from elsewhere).
Result<Machine> ParseMachineText(const std::string& yaml_text, const std::string& path_for_messages) {
  DLSIM_ASSIGN_OR_RETURN(YAML::Node doc, ParseYaml(yaml_text, path_for_messages));
  // ParseMachine reads through const nodes and strict scalar checks, but a
  // yaml-cpp exception must still never cross the module edge.
  try {
    return ParseMachine(doc, path_for_messages);
  } catch (const YAML::Exception& e) {
    return Internal(path_for_messages + ": yaml-cpp failed: " + e.what());
  }
}

// A machine without a host section takes its scale_from reference's.
Status TakeReferenceHost(Machine* m) {
  const std::string& ref_path = m->calibration.scale_from;
  if (m->host.given || ref_path.empty()) return Status::Ok();
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(ref_path, "machine file"));
  auto ref = ParseMachineText(text, ref_path);
  if (!ref.ok()) return ref.status().WithContext(m->source_path + ": calibration.scale_from");
  if (!ref->host.given) return Status::Ok();
  m->host = ref->host;
  m->host.given = false;
  m->host.taken_from = ref_path;
  return Status::Ok();
}

}  // namespace

Result<Machine> LoadMachineFromString(const std::string& yaml_text,
                                      const std::string& path_for_messages) {
  DLSIM_ASSIGN_OR_RETURN(Machine m, ParseMachineText(yaml_text, path_for_messages));
  DLSIM_RETURN_IF_ERROR(TakeReferenceHost(&m));
  return m;
}

Result<Machine> LoadMachine(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "machine file"));
  return LoadMachineFromString(text, path);
}

Result<HostSpec> LoadHostProfile(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "host profile"));
  DLSIM_ASSIGN_OR_RETURN(YAML::Node doc, ParseYaml(text, path));
  try {
    return machine_internal::ParseHostProfile(doc, path);
  } catch (const YAML::Exception& e) {
    return Internal(path + ": yaml-cpp failed: " + e.what());
  }
}

std::string BundledMachinesDir() {
  const char* env = std::getenv("DLSIM_MACHINES_DIR");
  if (env != nullptr && env[0] != '\0') return env;
#ifdef DLSIM_SOURCE_DIR
  const std::string in_tree = std::string(DLSIM_SOURCE_DIR) + "/machines";
  std::error_code ec;
  if (fs::is_directory(in_tree, ec)) return in_tree;
#endif
  return "machines";
}

std::string ResolveMachinePath(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  if (name_or_path.find('/') != std::string::npos || HasYamlSuffix(name_or_path)) {
    return name_or_path;
  }
  return BundledMachinesDir() + "/" + name_or_path + ".yaml";
}

Result<Machine> LoadMachineByName(const std::string& name_or_path) {
  return LoadMachine(ResolveMachinePath(name_or_path));
}

Result<std::vector<std::string>> ListMachineFiles(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return NotFound(dir + ": machines folder not found");
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (HasYamlSuffix(p.string()) && it->is_regular_file(ec)) {
      names.push_back(p.filename().string());
    }
  }
  if (ec) return IoError(dir + ": cannot list: " + ec.message());
  std::sort(names.begin(), names.end());
  std::vector<std::string> paths;
  for (const auto& n : names) paths.push_back(dir + "/" + n);
  return paths;
}

Result<std::vector<MachineFileCheck>> ValidateMachineFiles(const std::string& dir) {
  DLSIM_ASSIGN_OR_RETURN(std::vector<std::string> files, ListMachineFiles(dir));
  std::vector<MachineFileCheck> checks;
  for (const auto& path : files) {
    MachineFileCheck check;
    check.path = path;
    auto machine = LoadMachine(path);
    if (!machine.ok()) {
      check.status = machine.status();
    } else {
      check.machine = std::move(machine).value();
      const std::string& ref = check.machine.calibration.scale_from;
      if (!ref.empty()) {
        auto reference = LoadMachine(ref);
        if (!reference.ok()) {
          check.status = reference.status().WithContext(path + ": calibration.scale_from");
        }
      }
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

Result<std::vector<MachineFileCheck>> ValidateAllBundledMachines() {
  return ValidateMachineFiles(BundledMachinesDir());
}

}  // namespace dlsim
