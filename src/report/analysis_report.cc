#include "dlsim/report/analysis_report.h"

#include <nlohmann/json.hpp>

namespace dlsim {
namespace {

double Ms(double s) { return s * 1e3; }

}  // namespace

std::string AnalysisToJson(const Analysis& a) {
  const Estimate& e = a.baseline;
  nlohmann::json advice = nlohmann::json::array();
  int rank = 0;
  for (const Advice& adv : a.advice) {
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerAdvice& l : adv.layers) {
      layers.push_back({{"layer", l.layer}, {"detail", l.detail}, {"saved_ms", Ms(l.saved_s)}});
    }
    advice.push_back({{"rank", ++rank}, {"kind", adv.kind}, {"title", adv.title},
                      {"note", adv.note}, {"baseline_ms", Ms(adv.baseline_s)},
                      {"improved_ms", Ms(adv.improved_s)}, {"saved_ms", Ms(adv.saved_s())},
                      {"saved_fraction", adv.baseline_s > 0 ? adv.saved_s() / adv.baseline_s : 0.0},
                      {"layers", layers}});
  }
  const nlohmann::json j = {
      {"model", e.model}, {"machine", e.machine}, {"batch", e.batch}, {"dtype", PrecisionName(e.precision)},
      {"mode", ModeName(e.mode)}, {"gpu_time_ms", Ms(e.gpu_time_s)},
      {"critical_path_ms", Ms(e.critical_path_s)}, {"advice", advice}, {"notes", a.notes}};
  return j.dump(2);
}

}  // namespace dlsim
