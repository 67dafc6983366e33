// LoadAlgorithmTable: calibration.algorithm_db as a timing table.
#include <filesystem>

#include "dlsim/analyze/analyze.h"
#include "dlsim/perfdb/perf_db.h"

namespace dlsim {

Result<std::optional<TimingTable>> LoadAlgorithmTable(const Machine& machine,
                                                      const std::string& path,
                                                      std::vector<std::string>* notes) {
  const std::string& file = path.empty() ? machine.calibration.algorithm_db : path;
  if (file.empty()) {
    notes->push_back("no algorithm database (calibration.algorithm_db) for " + machine.name +
                     ": algorithm choice and layout use the performance database only");
    return std::optional<TimingTable>();
  }
  if (!std::filesystem::exists(file)) {
    notes->push_back("algorithm database " + file + " not found: algorithm choice and layout " +
                     "use the performance database only");
    return std::optional<TimingTable>();
  }
  auto db = PerfDb::Open(file, OpenMode::kReadOnly);
  if (!db.ok()) return db.status().WithContext("algorithm database " + file);
  const std::string gpu = machine.calibration.db_gpu.empty() ? machine.device.name
                                                              : machine.calibration.db_gpu;
  auto table = db->LoadTimings(gpu);
  if (!table.ok()) return table.status().WithContext("algorithm database " + file);
  return std::optional<TimingTable>(std::move(table).value());
}

}  // namespace dlsim
