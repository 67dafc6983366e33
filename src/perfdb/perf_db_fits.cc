// The `fits` table: fitted models cached per (GPU, software stack).
#include "dlsim/perfdb/fit.h"
#include "dlsim/perfdb/perf_db.h"
#include "sqlite_util.h"

namespace dlsim {

using perfdb_internal::Statement;

Status PerfDb::StoreFit(const std::string& gpu_name, const FittedModels& models) {
  auto ids = LatestStackIds(gpu_name);
  if (!ids.ok()) return ids.status();
  auto q = Statement::Prepare(db_.get(), path_,
                              "INSERT OR REPLACE INTO fits (gpu_id, stack_id, models) "
                              "VALUES (?1, ?2, ?3)");
  if (!q.ok()) return q.status();
  q->BindInt(1, ids->first);
  q->BindInt(2, ids->second);
  q->BindText(3, models.ToJson());
  return q->Run();
}

Result<std::optional<FittedModels>> PerfDb::LoadFit(const std::string& gpu_name) const {
  DLSIM_ASSIGN_OR_RETURN(auto ids, LatestStackIds(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(
      Statement q,
      Statement::Prepare(db_.get(), path_,
                         "SELECT models FROM fits WHERE gpu_id = ?1 AND stack_id = ?2"));
  q.BindInt(1, ids.first);
  q.BindInt(2, ids.second);
  DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return std::optional<FittedModels>();
  auto models = FittedModels::FromJson(q.Text(0));
  if (!models.ok()) return models.status().WithContext(path_ + ": table fits");
  return std::optional<FittedModels>(std::move(models).value());
}

}  // namespace dlsim
