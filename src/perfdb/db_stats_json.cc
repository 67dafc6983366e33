// JSON form of database statistics, for `dlsim db stats --format json`.
#include <nlohmann/json.hpp>

#include "dlsim/perfdb/perf_db.h"

namespace dlsim {

std::string DbStatsToJson(const DbStats& stats) {
  nlohmann::ordered_json j;
  j["records"] = stats.records;
  j["per_gpu"] = stats.per_gpu;
  j["per_kind"] = stats.per_kind;
  j["per_status"] = stats.per_status;
  j["software_stacks"] = nlohmann::ordered_json::array();
  for (const SoftwareStack& s : stats.stacks) {
    j["software_stacks"].push_back(
        {{"driver", s.driver}, {"cuda", s.cuda}, {"cudnn", s.cudnn}, {"cublas", s.cublas}});
  }
  j["fits"] = stats.fits;
  return j.dump(2);
}

}  // namespace dlsim
