// JSON form of fitted models, stored in the database's `fits` table so a
// fit is computed once per GPU and software stack.
#include <cmath>

#include <nlohmann/json.hpp>

#include "dlsim/perfdb/fit.h"

namespace dlsim {
namespace {

using nlohmann::json;
constexpr int kFitFormat = 1;

// JSON has no NaN: NaN is written as null and read back as NaN.
json Number(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

Result<double> ReadNumber(const json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end()) return ParseError(std::string("missing field '") + field + "'");
  if (it->is_null()) return std::nan("");
  if (!it->is_number()) return ParseError(std::string("field '") + field + "' must be a number");
  return it->get<double>();
}

Result<FitClassReport> ReadClass(const json& j) {
  FitClassReport m;
  if (!j.is_object()) return ParseError("a class must be an object");
  if (!j.contains("kind") || !j["kind"].is_string()) return ParseError("field 'kind' missing");
  if (!j.contains("math") || !j["math"].is_string()) return ParseError("field 'math' missing");
  m.kind = j["kind"].get<std::string>();
  m.math = j["math"].get<std::string>();
  auto kind = KernelKindFromName(m.kind);
  if (!kind.ok()) return kind.status().WithContext("field 'kind'");
  DLSIM_ASSIGN_OR_RETURN(m.t0_s, ReadNumber(j, "t0_s"));
  DLSIM_ASSIGN_OR_RETURN(m.s_per_flop, ReadNumber(j, "s_per_flop"));
  DLSIM_ASSIGN_OR_RETURN(m.s_per_byte, ReadNumber(j, "s_per_byte"));
  DLSIM_ASSIGN_OR_RETURN(double n_train, ReadNumber(j, "n_train"));
  DLSIM_ASSIGN_OR_RETURN(double n_test, ReadNumber(j, "n_test"));
  m.n_train = static_cast<int>(n_train);
  m.n_test = static_cast<int>(n_test);
  DLSIM_ASSIGN_OR_RETURN(m.train_median_rel_err, ReadNumber(j, "train_median_rel_err"));
  DLSIM_ASSIGN_OR_RETURN(m.test_median_rel_err, ReadNumber(j, "test_median_rel_err"));
  DLSIM_ASSIGN_OR_RETURN(m.test_p90_rel_err, ReadNumber(j, "test_p90_rel_err"));
  return m;
}

Result<FitReport> ReadReport(const json& j) {
  if (!j.is_object()) return ParseError("fitted models must be a JSON object");
  if (!j.contains("format") || !j["format"].is_number_integer() ||
      j["format"].get<int>() != kFitFormat) {
    return Unsupported("field 'format': expected fitted-model format " +
                       std::to_string(kFitFormat));
  }
  FitReport report;
  if (!j.contains("gpu_name") || !j["gpu_name"].is_string()) {
    return ParseError("field 'gpu_name' missing");
  }
  report.gpu_name = j["gpu_name"].get<std::string>();
  if (!j.contains("sm_count") || !j["sm_count"].is_number_integer()) {
    return ParseError("field 'sm_count' missing or not an integer");
  }
  report.sm_count = j["sm_count"].get<int64_t>();
  if (!j.contains("classes") || !j["classes"].is_array()) {
    return ParseError("field 'classes' missing or not an array");
  }
  for (size_t i = 0; i < j["classes"].size(); ++i) {
    auto m = ReadClass(j["classes"][i]);
    if (!m.ok()) return m.status().WithContext("classes[" + std::to_string(i) + "]");
    report.classes.push_back(std::move(m).value());
  }
  if (j.contains("skipped") && j["skipped"].is_array()) {
    for (const auto& s : j["skipped"]) {
      if (s.is_string()) report.skipped.push_back(s.get<std::string>());
    }
  }
  return report;
}

}  // namespace

std::string FittedModels::ToJson() const {
  nlohmann::ordered_json j;
  j["format"] = kFitFormat;
  j["gpu_name"] = report_.gpu_name;
  j["sm_count"] = report_.sm_count;
  j["classes"] = nlohmann::ordered_json::array();
  for (const FitClassReport& m : report_.classes) {
    nlohmann::ordered_json c;
    c["kind"] = m.kind;
    c["math"] = m.math;
    c["t0_s"] = Number(m.t0_s);
    c["s_per_flop"] = Number(m.s_per_flop);
    c["s_per_byte"] = Number(m.s_per_byte);
    c["n_train"] = m.n_train;
    c["n_test"] = m.n_test;
    c["train_median_rel_err"] = Number(m.train_median_rel_err);
    c["test_median_rel_err"] = Number(m.test_median_rel_err);
    c["test_p90_rel_err"] = Number(m.test_p90_rel_err);
    j["classes"].push_back(std::move(c));
  }
  j["skipped"] = report_.skipped;
  return j.dump();
}

Result<FittedModels> FittedModels::FromJson(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    return ParseError(std::string("fitted models: invalid JSON: ") + e.what());
  }
  auto report = ReadReport(j);
  if (!report.ok()) return report.status().WithContext("fitted models");
  return FittedModels(std::move(report).value());
}

}  // namespace dlsim
