// A small status type for dlsim-calibrate: every measuring step returns one,
// so a failing configuration becomes a record, never a crash.
#ifndef DLSIM_CALIBRATE_STATUS_H_
#define DLSIM_CALIBRATE_STATUS_H_

#include <string>
#include <utility>

namespace dlcal {

// kUnsupported: the library refuses the configuration (record "unsupported").
// kFailed: anything else went wrong (record "failed").
// kFatal: the CUDA context is broken; the process must restart to go on.
enum class Code { kOk, kUnsupported, kFailed, kFatal };

class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }
  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // The record status string for a non-ok status.
  const char* RecordStatus() const {
    return code_ == Code::kUnsupported ? "unsupported" : (code_ == Code::kOk ? "ok" : "failed");
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status Unsupported(std::string m) { return Status(Code::kUnsupported, std::move(m)); }
inline Status Failed(std::string m) { return Status(Code::kFailed, std::move(m)); }

#define CAL_RETURN_IF_ERROR(expr)       \
  do {                                  \
    ::dlcal::Status cal_st_ = (expr);   \
    if (!cal_st_.ok()) return cal_st_;  \
  } while (0)

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_STATUS_H_
