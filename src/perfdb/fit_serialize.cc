// JSON form of fitted models, stored in the database's `fits` table so a
// fit is computed once per GPU and software stack. Format 2 added the
// neighbour correction: each class's measured keys and times, from which a
// class's feature rows are built when it first prices a key; format 3 the
// rate floor (min_s_per_flop); format 4 the channels-per-group features of
// grouped convolutions (fit_neighbours.cc, FeatureParams), which move the
// neighbours, and so the predictions, of stored models; format 5 the
// kind-specific terms (s_per_term: an RNN's serial steps per algorithm);
// format 6 the small-h RNN terms per direction and per weight, and the RNN
// algorithm as a neighbour category, which move stored models' predictions;
// format 7 the boosted correction: per kind its feature layout and XGBoost's
// JSON model, per class the held-out errors that chose between the two
// corrections (fit_boosted.h) and the band from keys of unseen models.
#include <algorithm>
#include <cmath>
#include <memory>

#include <nlohmann/json.hpp>

#include "dlsim/perfdb/fit.h"
#include "fit_boosted.h"
#include "fit_neighbours.h"

namespace dlsim {
namespace {

using nlohmann::json;
using perfdb_internal::KeyEncoder;
using perfdb_internal::LazyBooster;
using perfdb_internal::LazyNeighbourSet;
using perfdb_internal::MeasuredKey;
constexpr int kFitFormat = 7;

// JSON has no NaN: NaN is written as null and read back as NaN.
json Number(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

Result<double> ReadNumber(const json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end()) return ParseError(std::string("missing field '") + field + "'");
  if (it->is_null()) return std::nan("");
  if (!it->is_number()) return ParseError(std::string("field '") + field + "' must be a number");
  return it->get<double>();
}

// A count (n_train, n_test, n_band): a whole number in [0, 2^31). A stored
// fit is a file's text: 1e300 would be converted to int out of range.
Result<int> ReadCount(const json& j, const char* field) {
  DLSIM_ASSIGN_OR_RETURN(double v, ReadNumber(j, field));
  if (!(v >= 0 && v < 2147483648.0) || v != std::floor(v)) {
    return ParseError(std::string("field '") + field + "' must be a count (a whole number >= 0)");
  }
  return static_cast<int>(v);
}

// "s_per_term": [number, ...], non-negative like every coefficient.
Result<std::vector<double>> ReadTerms(const json& j) {
  auto it = j.find("s_per_term");
  if (it == j.end() || !it->is_array()) {
    return ParseError("field 's_per_term' missing or not an array");
  }
  std::vector<double> terms;
  for (const json& v : *it) {
    if (!v.is_number() || !(v.get<double>() >= 0)) {
      return ParseError("field 's_per_term' must hold non-negative numbers");
    }
    terms.push_back(v.get<double>());
  }
  return terms;
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
  DLSIM_ASSIGN_OR_RETURN(m.s_per_term, ReadTerms(j));
  DLSIM_ASSIGN_OR_RETURN(m.min_s_per_flop, ReadNumber(j, "min_s_per_flop"));
  DLSIM_ASSIGN_OR_RETURN(m.n_train, ReadCount(j, "n_train"));
  DLSIM_ASSIGN_OR_RETURN(m.n_test, ReadCount(j, "n_test"));
  DLSIM_ASSIGN_OR_RETURN(m.train_median_rel_err, ReadNumber(j, "train_median_rel_err"));
  DLSIM_ASSIGN_OR_RETURN(m.test_median_rel_err, ReadNumber(j, "test_median_rel_err"));
  DLSIM_ASSIGN_OR_RETURN(m.test_p90_rel_err, ReadNumber(j, "test_p90_rel_err"));
  DLSIM_ASSIGN_OR_RETURN(m.base_test_median_rel_err, ReadNumber(j, "base_test_median_rel_err"));
  DLSIM_ASSIGN_OR_RETURN(m.base_test_p90_rel_err, ReadNumber(j, "base_test_p90_rel_err"));
  DLSIM_ASSIGN_OR_RETURN(m.boosted_test_median_rel_err,
                         ReadNumber(j, "boosted_test_median_rel_err"));
  DLSIM_ASSIGN_OR_RETURN(m.boosted_test_p90_rel_err, ReadNumber(j, "boosted_test_p90_rel_err"));
  auto correction = j.find("correction");
  if (correction == j.end() || !correction->is_string() ||
      (*correction != "boosted" && *correction != "neighbours")) {
    return ParseError("field 'correction' must be \"boosted\" or \"neighbours\"");
  }
  m.correction = *correction == "boosted" ? FitCorrection::kBoosted : FitCorrection::kNeighbours;
  DLSIM_ASSIGN_OR_RETURN(m.n_band, ReadCount(j, "n_band"));
  DLSIM_ASSIGN_OR_RETURN(m.band_log_p10, ReadNumber(j, "band_log_p10"));
  DLSIM_ASSIGN_OR_RETURN(m.band_log_p90, ReadNumber(j, "band_log_p90"));
  DLSIM_ASSIGN_OR_RETURN(m.band_median_rel_err, ReadNumber(j, "band_median_rel_err"));
  return m;
}

// "measured": [[key, time_s], ...]
Result<std::vector<MeasuredKey>> ReadMeasured(const json& j) {
  auto it = j.find("measured");
  if (it == j.end() || !it->is_array()) return ParseError("field 'measured' missing or not an array");
  std::vector<MeasuredKey> out;
  for (size_t i = 0; i < it->size(); ++i) {
    const json& e = (*it)[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number() ||
        !(e[1].get<double>() > 0)) {
      return ParseError("measured[" + std::to_string(i) +
                        "] must be [key, time_s] with a positive time");
    }
    out.push_back({e[0].get<std::string>(), e[1].get<double>()});
  }
  return out;
}

// "boosters": {kind: {"numeric": [name...], "categories": {name: [value...]},
// "model": XGBoost JSON}}; the model is parsed when the kind first prices.
Result<std::map<std::string, std::shared_ptr<const LazyBooster>>> ReadBoosters(const json& j) {
  std::map<std::string, std::shared_ptr<const LazyBooster>> out;
  auto it = j.find("boosters");
  if (it == j.end() || !it->is_object()) return ParseError("field 'boosters' missing or not an object");
  for (const auto& [kind, b] : it->items()) {
    const std::string where = "boosters." + kind;
    if (!KernelKindFromName(kind).ok()) return ParseError(where + ": unknown kernel kind");
    if (!b.is_object() || !b.contains("numeric") || !b["numeric"].is_array() ||
        !b.contains("categories") || !b["categories"].is_object() || !b.contains("model") ||
        !b["model"].is_string()) {
      return ParseError(where + ": needs 'numeric' (array), 'categories' (object), 'model' (string)");
    }
    std::vector<std::string> numeric;
    std::map<std::string, std::vector<std::string>> categories;
    try {
      numeric = b["numeric"].get<std::vector<std::string>>();
      categories = b["categories"].get<std::map<std::string, std::vector<std::string>>>();
    } catch (const json::exception&) {
      return ParseError(where + ": 'numeric' and 'categories' must hold strings");
    }
    for (auto& [name, values] : categories) std::sort(values.begin(), values.end());
    out[kind] = std::make_shared<const LazyBooster>(
        KeyEncoder(std::move(numeric), std::move(categories)), b["model"].get<std::string>());
  }
  return out;
}

struct ReadModels {
  FitReport report;
  std::map<std::string, std::shared_ptr<const LazyBooster>> boosters;
  int neighbours_k = 0;
  std::vector<std::vector<MeasuredKey>> measured;  // per class
};

Status CheckFormat(const json& j) {
  if (!j.contains("format") || !j["format"].is_number_integer()) {
    return ParseError("field 'format' missing or not an integer");
  }
  const int format = j["format"].get<int>();
  if (format != kFitFormat) {
    return Unsupported("field 'format': fitted-model format " + std::to_string(format) +
                       ", this build reads format " + std::to_string(kFitFormat) +
                       " (refit with dlsim db fit)");
  }
  return Status::Ok();
}

Result<ReadModels> ReadReport(const json& j) {
  if (!j.is_object()) return ParseError("fitted models must be a JSON object");
  DLSIM_RETURN_IF_ERROR(CheckFormat(j));
  ReadModels read;
  FitReport& report = read.report;
  if (!j.contains("gpu_name") || !j["gpu_name"].is_string()) {
    return ParseError("field 'gpu_name' missing");
  }
  report.gpu_name = j["gpu_name"].get<std::string>();
  if (!j.contains("sm_count") || !j["sm_count"].is_number_integer()) {
    return ParseError("field 'sm_count' missing or not an integer");
  }
  report.sm_count = j["sm_count"].get<int64_t>();
  if (!j.contains("neighbours_k") || !j["neighbours_k"].is_number_integer() ||
      j["neighbours_k"].get<int>() < 0) {
    return ParseError("field 'neighbours_k' missing or not a non-negative integer");
  }
  read.neighbours_k = j["neighbours_k"].get<int>();
  if (!j.contains("classes") || !j["classes"].is_array()) {
    return ParseError("field 'classes' missing or not an array");
  }
  for (size_t i = 0; i < j["classes"].size(); ++i) {
    const std::string where = "classes[" + std::to_string(i) + "]";
    auto m = ReadClass(j["classes"][i]);
    if (!m.ok()) return m.status().WithContext(where);
    auto measured = ReadMeasured(j["classes"][i]);
    if (!measured.ok()) return measured.status().WithContext(where);
    m->n_neighbours = static_cast<int>(measured->size());
    report.classes.push_back(std::move(m).value());
    read.measured.push_back(std::move(measured).value());
  }
  DLSIM_ASSIGN_OR_RETURN(read.boosters, ReadBoosters(j));
  for (size_t i = 0; i < report.classes.size(); ++i) {
    const FitClassReport& m = report.classes[i];
    if (m.correction == FitCorrection::kBoosted && read.boosters.count(m.kind) == 0) {
      return ParseError("classes[" + std::to_string(i) + "] (" + m.kind + "/" + m.math +
                        "): correction 'boosted' but no boosters." + m.kind);
    }
  }
  if (j.contains("skipped") && j["skipped"].is_array()) {
    for (const auto& s : j["skipped"]) {
      if (s.is_string()) report.skipped.push_back(s.get<std::string>());
    }
  }
  return read;
}

}  // namespace

std::string FittedModels::ToJson() const {
  nlohmann::ordered_json j;
  j["format"] = kFitFormat;
  j["gpu_name"] = report_.gpu_name;
  j["sm_count"] = report_.sm_count;
  j["neighbours_k"] = neighbours_k_;
  j["classes"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < report_.classes.size(); ++i) {
    const FitClassReport& m = report_.classes[i];
    nlohmann::ordered_json c;
    c["kind"] = m.kind;
    c["math"] = m.math;
    c["t0_s"] = Number(m.t0_s);
    c["s_per_flop"] = Number(m.s_per_flop);
    c["s_per_byte"] = Number(m.s_per_byte);
    c["s_per_term"] = m.s_per_term;
    c["min_s_per_flop"] = Number(m.min_s_per_flop);
    c["n_train"] = m.n_train;
    c["n_test"] = m.n_test;
    c["train_median_rel_err"] = Number(m.train_median_rel_err);
    c["test_median_rel_err"] = Number(m.test_median_rel_err);
    c["test_p90_rel_err"] = Number(m.test_p90_rel_err);
    c["base_test_median_rel_err"] = Number(m.base_test_median_rel_err);
    c["base_test_p90_rel_err"] = Number(m.base_test_p90_rel_err);
    c["boosted_test_median_rel_err"] = Number(m.boosted_test_median_rel_err);
    c["boosted_test_p90_rel_err"] = Number(m.boosted_test_p90_rel_err);
    c["correction"] = FitCorrectionName(m.correction);
    c["n_band"] = m.n_band;
    c["band_log_p10"] = Number(m.band_log_p10);
    c["band_log_p90"] = Number(m.band_log_p90);
    c["band_median_rel_err"] = Number(m.band_median_rel_err);
    c["measured"] = nlohmann::ordered_json::array();
    for (const MeasuredKey& k : neighbours_[i]->measured()) {
      c["measured"].push_back(nlohmann::ordered_json::array({k.key, k.time_s}));
    }
    j["classes"].push_back(std::move(c));
  }
  j["boosters"] = nlohmann::ordered_json::object();
  for (const auto& [kind, b] : boosters_) {
    j["boosters"][kind] = {{"numeric", b->encoder().numeric()},
                           {"categories", b->encoder().categories()},
                           {"model", b->saved()}};
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
  auto read = ReadReport(j);
  if (!read.ok()) return read.status().WithContext("fitted models");
  std::vector<NeighbourPtr> neighbours;
  for (size_t i = 0; i < read->report.classes.size(); ++i) {
    neighbours.push_back(std::make_shared<const LazyNeighbourSet>(
        std::move(read->measured[i]), read->report.classes[i], read->report.sm_count,
        read->neighbours_k));
  }
  return FittedModels(std::move(read->report), read->neighbours_k, std::move(neighbours),
                      std::move(read->boosters));
}

}  // namespace dlsim
