// Small RAII wrappers over the SQLite C API, private to src/perfdb. Every
// failure becomes a Status naming the database file.
#ifndef DLSIM_SRC_PERFDB_SQLITE_UTIL_H_
#define DLSIM_SRC_PERFDB_SQLITE_UTIL_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "dlsim/util/status.h"

namespace dlsim::perfdb_internal {

// "path: <what>: <sqlite message>", with plain words for a file that is not
// a database or is corrupt.
Status SqliteError(sqlite3* db, const std::string& path, int rc, const std::string& what);

// Runs SQL without results (one or more statements).
Status Exec(sqlite3* db, const std::string& path, const std::string& sql);

class Statement {
 public:
  static Result<Statement> Prepare(sqlite3* db, const std::string& path,
                                   const std::string& sql);
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite. A NaN double binds NULL.
  void BindText(int index, const std::string& value);
  void BindInt(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindNull(int index);

  // True when a row is ready, false when done.
  Result<bool> Step();
  // Steps to completion, ignoring rows.
  Status Run();
  // Clears bindings and rewinds for another execution.
  void Reset();

  // Columns are 0-based. NULL reads as 0, NaN or "".
  int64_t Int(int col) const;
  double Double(int col) const;
  std::string Text(int col) const;
  bool IsNull(int col) const;
  // True when the column holds an INTEGER or REAL (not TEXT, BLOB or NULL).
  bool IsNumber(int col) const;

 private:
  Statement(sqlite3* db, const std::string& path, sqlite3_stmt* stmt)
      : db_(db), path_(path), stmt_(stmt) {}
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_;
};

// BEGIN IMMEDIATE on construction via Begin(); rolls back on destruction
// unless Commit() succeeded.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {}
  ~Transaction();
  Status Begin();
  Status Commit();

 private:
  sqlite3* db_;
  std::string path_;
  bool open_ = false;
};

}  // namespace dlsim::perfdb_internal

#endif  // DLSIM_SRC_PERFDB_SQLITE_UTIL_H_
