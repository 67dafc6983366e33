#include "sqlite_util.h"

#include <cmath>

namespace dlsim::perfdb_internal {

Status SqliteError(sqlite3* db, const std::string& path, int rc, const std::string& what) {
  const int primary = rc & 0xff;
  std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (primary == SQLITE_NOTADB) {
    return ParseError(path + ": not a SQLite database (" + detail + ")");
  }
  if (primary == SQLITE_CORRUPT) {
    return ParseError(path + ": the database file is corrupt (" + detail + ")");
  }
  if (primary == SQLITE_CANTOPEN) {
    return IoError(path + ": cannot open the database file (" + detail + ")");
  }
  if (primary == SQLITE_READONLY || primary == SQLITE_IOERR || primary == SQLITE_FULL) {
    return IoError(path + ": " + what + ": " + detail);
  }
  return Internal(path + ": " + what + ": " + detail);
}

Status Exec(sqlite3* db, const std::string& path, const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  if (err != nullptr) sqlite3_free(err);
  if (rc != SQLITE_OK) return SqliteError(db, path, rc, "executing SQL");
  return Status::Ok();
}

Result<Statement> Statement::Prepare(sqlite3* db, const std::string& path,
                                     const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteError(db, path, rc, "preparing a query");
  }
  return Statement(db, path, stmt);
}

Statement::Statement(Statement&& o) noexcept
    : db_(o.db_), path_(std::move(o.path_)), stmt_(o.stmt_) {
  o.stmt_ = nullptr;
}

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

void Statement::BindText(int index, const std::string& value) {
  sqlite3_bind_text(stmt_, index, value.c_str(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
}

void Statement::BindInt(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }

void Statement::BindDouble(int index, double value) {
  if (std::isnan(value)) {
    sqlite3_bind_null(stmt_, index);
  } else {
    sqlite3_bind_double(stmt_, index, value);
  }
}

void Statement::BindNull(int index) { sqlite3_bind_null(stmt_, index); }

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, path_, rc, "running a query");
}

Status Statement::Run() {
  for (;;) {
    auto row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::Int(int col) const { return sqlite3_column_int64(stmt_, col); }

double Statement::Double(int col) const {
  if (IsNull(col)) return std::nan("");
  return sqlite3_column_double(stmt_, col);
}

std::string Statement::Text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

bool Statement::IsNull(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

bool Statement::IsNumber(int col) const {
  const int type = sqlite3_column_type(stmt_, col);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

Status Transaction::Begin() {
  DLSIM_RETURN_IF_ERROR(Exec(db_, path_, "BEGIN IMMEDIATE"));
  open_ = true;
  return Status::Ok();
}

Status Transaction::Commit() {
  DLSIM_RETURN_IF_ERROR(Exec(db_, path_, "COMMIT"));
  open_ = false;
  return Status::Ok();
}

}  // namespace dlsim::perfdb_internal
