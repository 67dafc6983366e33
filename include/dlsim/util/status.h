// Status and Result<T>: how dlsim reports expected failures (bad model, bad
// YAML, unknown op). Bugs are DLSIM_CHECK failures, which abort with file:line.
// Only main() turns a Status into text on stderr and an exit code.
#ifndef DLSIM_UTIL_STATUS_H_
#define DLSIM_UTIL_STATUS_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace dlsim {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // a user-supplied value is wrong (flag, field, dim)
  kNotFound,         // a file, tensor, machine or record does not exist
  kParseError,       // a file could not be parsed (ONNX, YAML, JSON, CSV)
  kUnsupported,      // valid input dlsim does not handle (unknown op with --strict)
  kOutOfRange,       // a value outside its allowed range (memory exceeded, overflow)
  kIoError,          // reading or writing a file failed
  kInternal,         // a third-party library failed unexpectedly
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "context: message", so that a failure
  // deep in a parser names the file (and node, field) it came from.
  Status WithContext(const std::string& context) const;

  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return Status(StatusCode::kInvalidArgument, std::move(m));
}
inline Status NotFound(std::string m) {
  return Status(StatusCode::kNotFound, std::move(m));
}
inline Status ParseError(std::string m) {
  return Status(StatusCode::kParseError, std::move(m));
}
inline Status Unsupported(std::string m) {
  return Status(StatusCode::kUnsupported, std::move(m));
}
inline Status OutOfRange(std::string m) {
  return Status(StatusCode::kOutOfRange, std::move(m));
}
inline Status IoError(std::string m) {
  return Status(StatusCode::kIoError, std::move(m));
}
inline Status Internal(std::string m) {
  return Status(StatusCode::kInternal, std::move(m));
}

// Holds either a T or a non-OK Status.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok()) {
      std::fprintf(stderr, "dlsim: Result built from an OK Status\n");
      std::abort();
    }
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

[[noreturn]] void CheckFailed(const char* file, int line, const char* expr,
                              const std::string& message);

}  // namespace dlsim

// Aborts with file:line when a programming invariant is broken.
#define DLSIM_CHECK(cond)                                         \
  do {                                                            \
    if (!(cond)) ::dlsim::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)

#define DLSIM_CHECK_MSG(cond, msg)                                     \
  do {                                                                 \
    if (!(cond)) ::dlsim::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

#define DLSIM_CONCAT_INNER(a, b) a##b
#define DLSIM_CONCAT(a, b) DLSIM_CONCAT_INNER(a, b)

#define DLSIM_RETURN_IF_ERROR(expr)          \
  do {                                       \
    ::dlsim::Status dlsim_status_ = (expr);  \
    if (!dlsim_status_.ok()) return dlsim_status_; \
  } while (0)

#define DLSIM_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()

// DLSIM_ASSIGN_OR_RETURN(auto graph, LoadOnnxModel(path, options));
#define DLSIM_ASSIGN_OR_RETURN(lhs, expr) \
  DLSIM_ASSIGN_OR_RETURN_IMPL(DLSIM_CONCAT(dlsim_result_, __LINE__), lhs, expr)

#endif  // DLSIM_UTIL_STATUS_H_
