// Kernel-key parsing for dlsim-calibrate. The format is the one of
// include/dlsim/kernel/key.h; this copy exists because the calibration
// program links the CUDA libraries and the C++ standard library only.
#include "key.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_set>

namespace dlcal {
namespace {

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

}  // namespace

bool Key::Has(const std::string& name) const {
  for (const auto& p : params) {
    if (p.first == name) return true;
  }
  return false;
}

int64_t Key::Int(const std::string& name, int64_t fallback) const {
  for (const auto& p : params) {
    int64_t v = 0;
    if (p.first == name) return ParseInt(p.second, &v) ? v : fallback;
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
  static const std::vector<std::string> kinds = {
      "conv_fwd",        "conv_bias_act",   "conv_bwd_data",   "conv_bwd_filter",
      "gemm",            "batched_gemm",    "batchnorm_infer", "batchnorm_train_fwd",
      "batchnorm_bwd",   "pool_fwd",        "pool_bwd",        "softmax_fwd",
      "softmax_bwd",     "layernorm_fwd",   "layernorm_bwd",   "lrn_fwd",
      "rnn_fwd",         "rnn_bwd_data",    "rnn_bwd_weights", "elementwise",
      "reduction",       "copy",            "optimizer"};
  return kinds;
}

std::vector<std::string> RequiredIntParams(const std::string& kind) {
  static const std::vector<std::string> conv = {
      "n", "c", "h", "w", "k", "r", "s", "pad_h", "pad_w", "stride_h", "stride_w",
      "dil_h", "dil_w", "groups"};
  if (kind.rfind("conv_", 0) == 0) return conv;
  if (kind == "gemm") return {"m", "n", "k", "trans_a", "trans_b"};
  if (kind == "batched_gemm") return {"batch", "m", "n", "k", "trans_a", "trans_b"};
  if (kind.rfind("batchnorm_", 0) == 0) return {"n", "c", "h", "w"};
  if (kind == "pool_fwd" || kind == "pool_bwd") {
    return {"n", "c", "h", "w", "r", "s", "pad_h", "pad_w", "stride_h", "stride_w"};
  }
  if (kind.rfind("softmax_", 0) == 0 || kind.rfind("layernorm_", 0) == 0) {
    return {"rows", "cols"};
  }
  if (kind == "lrn_fwd") return {"n", "c", "h", "w", "size"};
  if (kind.rfind("rnn_", 0) == 0) return {"seq", "batch", "input", "hidden", "layers", "dirs"};
  if (kind == "elementwise") return {"elems", "arity"};
  if (kind == "reduction") return {"rows", "cols"};
  if (kind == "copy") return {"elems"};
  if (kind == "optimizer") return {"params", "fused"};
  return {};
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool ParseKey(const std::string& line, Key* key, std::string* error) {
  std::istringstream in(line);
  Key k;
  if (!(in >> k.kind)) {
    *error = "empty kernel key";
    return false;
  }
  bool known = false;
  for (const auto& kind : KnownKinds()) known = known || kind == k.kind;
  if (!known) {
    *error = "unknown kernel kind '" + k.kind + "'";
    return false;
  }
  k.text = k.kind;
  std::string token;
  while (in >> token) {
    size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0) {
      *error = "token '" + token + "' is not name=value";
      return false;
    }
    std::string name = token.substr(0, eq), value = token.substr(eq + 1);
    if (name == "dtype") k.dtype = value;
    else if (name == "math") k.math = value;
    else if (name == "layout") k.layout = value;
    else k.params.emplace_back(name, value);
    k.text += " " + token;
  }
  if (k.dtype != "fp32" && k.dtype != "fp16" && k.dtype != "bf16") {
    *error = k.dtype.empty() ? "missing dtype" : "unknown dtype '" + k.dtype + "'";
    return false;
  }
  if (k.math.empty() || k.layout.empty()) {
    *error = "missing math or layout";
    return false;
  }
  for (const auto& name : RequiredIntParams(k.kind)) {
    int64_t v = 0;
    if (!ParseInt(k.Str(name), &v)) {
      *error = "parameter '" + name + "' is missing or not an integer";
      return false;
    }
  }
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
      bad_lines->push_back(origin + ":" + std::to_string(i + 1) + ": " + error + ": " + line);
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
