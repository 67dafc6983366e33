// Removing every record of given keys (all GPUs, stacks, algorithms and
// statuses) in one transaction, and dropping the stored fits they fed.
#include "dlsim/perfdb/perf_db.h"
#include "sqlite_util.h"

namespace dlsim {

using perfdb_internal::Exec;
using perfdb_internal::Statement;
using perfdb_internal::Transaction;

Result<int64_t> PerfDb::DeleteKeys(const std::set<std::string>& keys) {
  Transaction txn(db_.get(), path_);
  DLSIM_RETURN_IF_ERROR(txn.Begin());
  // A temporary table of the keys, so that one pass over the records does.
  DLSIM_RETURN_IF_ERROR(Exec(db_.get(), path_,
                             "CREATE TEMP TABLE IF NOT EXISTS excluded (key TEXT PRIMARY KEY); "
                             "DELETE FROM temp.excluded"));
  DLSIM_ASSIGN_OR_RETURN(Statement add, Statement::Prepare(db_.get(), path_,
                                                           "INSERT OR IGNORE INTO temp.excluded VALUES (?1)"));
  for (const std::string& key : keys) {
    add.BindText(1, key);
    DLSIM_RETURN_IF_ERROR(add.Run());
    add.Reset();
  }
  DLSIM_RETURN_IF_ERROR(Exec(db_.get(), path_,
                             "DELETE FROM measurements WHERE key IN (SELECT key FROM temp.excluded)"));
  const int64_t deleted = sqlite3_changes(db_.get());
  DLSIM_RETURN_IF_ERROR(Exec(db_.get(), path_, "DELETE FROM fits"));
  DLSIM_RETURN_IF_ERROR(txn.Commit());
  DLSIM_RETURN_IF_ERROR(Exec(db_.get(), path_, "VACUUM"));
  return deleted;
}

}  // namespace dlsim
