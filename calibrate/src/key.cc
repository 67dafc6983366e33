// Kernel keys for dlsim-calibrate: the format, the kinds and the parameters
// each requires are src/kernel's (compiled into dlcal_host,
// host_targets.cmake); this adds the storage types calibration measures,
// each kind's measuring family (family.h), and job lists.
#include "key.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "dlsim/kernel/key.h"
#include "kernel/key_params.h"

namespace dlcal {
bool Key::Has(const std::string& name) const {
  for (const auto& p : params) {
    if (p.first == name) return true;
  }
  return false;
}

int64_t Key::Int(const std::string& name, int64_t fallback) const {
  for (const auto& p : params) {
    int64_t v = 0;
    if (p.first == name) return dlsim::ParseKeyInt(p.second, &v) ? v : fallback;
  }
  return fallback;
}

std::string Key::Str(const std::string& name, const std::string& fallback) const {
  for (const auto& p : params) {
    if (p.first == name) return p.second;
  }
  return fallback;
}

const std::vector<std::string>& KnownKinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> out;
    for (dlsim::KernelKind kind : dlsim::AllKernelKinds()) {
      if (FamilyOf(kind) != Family::kNone) out.push_back(dlsim::KernelKindName(kind));
    }
    return out;
  }();
  return kinds;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool ParseKey(const std::string& line, Key* key, std::string* error) {
  auto parsed = dlsim::ParseKernelKey(line);
  if (!parsed.ok()) {
    *error = parsed.status().message();
    return false;
  }
  Key k;
  // The key as recorded: its tokens, in their order, joined by single spaces.
  std::istringstream in(line);
  std::string token;
  while (in >> token) k.text += (k.text.empty() ? "" : " ") + token;
  k.kind = dlsim::KernelKindName(parsed->kind);
  k.family = FamilyOf(parsed->kind);
  const std::string where = "kernel key '" + k.text + "': ";
  if (k.family == Family::kNone) {
    *error = where + "kind " + k.kind + " is not measured here (calibrate/torch_calibrate.py)";
    return false;
  }
  if (parsed->dtype != "fp32" && parsed->dtype != "fp16" && parsed->dtype != "bf16") {
    *error = where + "unknown dtype '" + parsed->dtype + "'";
    return false;
  }
  const dlsim::Status params = dlsim::CheckRequiredParams(*parsed);
  if (!params.ok()) {
    *error = params.message();
    return false;
  }
  k.params = std::move(parsed->params);
  k.dtype = parsed->dtype;
  k.math = parsed->math;
  k.layout = parsed->layout;
  *key = std::move(k);
  return true;
}

void AddKeys(const std::vector<std::string>& lines, const std::string& origin,
             std::vector<Key>* keys, std::vector<std::string>* bad_lines) {
  std::unordered_set<std::string> seen;
  for (const auto& k : *keys) seen.insert(k.text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = Trim(lines[i]);
    if (line.empty() || line[0] == '#') continue;
    Key key;
    std::string error;
    if (!ParseKey(line, &key, &error)) {
      bad_lines->push_back(origin + ":" + std::to_string(i + 1) + ": " + error);  // quotes the key
      continue;
    }
    if (seen.insert(key.text).second) keys->push_back(std::move(key));
  }
}

bool ReadJobFile(const std::string& path, std::vector<Key>* keys,
                 std::vector<std::string>* bad_lines, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open job list '" + path + "'";
    return false;
  }
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  AddKeys(lines, path, keys, bad_lines);
  return true;
}

}  // namespace dlcal
