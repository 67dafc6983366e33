// Reading a measured GPU timeline: a PyTorch profiler / Kineto Chrome-trace
// JSON ({"traceEvents": [...]}, or a bare event array). Only what the
// comparison needs survives: the device kernels, in start order, with their
// launch time on the host when the trace has the runtime call (linked by the
// "correlation" id) and the framework op that launched them when the trace
// has cpu_op events around the launch. nlohmann-json stays in src/profile.
#ifndef DLSIM_PROFILE_TRACE_H_
#define DLSIM_PROFILE_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/util/status.h"

namespace dlsim {

struct TraceKernel {
  std::string name;          // demangled kernel name as the profiler wrote it
  double start_s = 0;        // from the first kernel's start
  double duration_s = 0;
  int64_t stream = 0;
  int64_t correlation = -1;  // -1 when absent
  bool has_launch = false;   // the trace has the host runtime call that launched it
  double launch_s = 0;       // its start (same origin; may be negative)
  std::string cpu_op;        // enclosing framework op ("aten::conv2d"), "" when absent
  double end_s() const { return start_s + duration_s; }
};

struct ProfileTrace {
  std::string origin;  // the file (or label) it came from, for messages
  std::string device;  // deviceProperties[0].name when present
  std::vector<TraceKernel> kernels;  // sorted by start time
  double kernel_time_s() const;
  double span_s() const;  // first kernel start to last kernel end
};

// Parses trace text; `origin` names it in error messages. Errors: ParseError
// for text that is not JSON (with the byte offset) or not a trace (no event
// array, a kernel without a numeric ts/dur), InvalidArgument when the trace
// holds no kernel events (a CPU-only profile).
Result<ProfileTrace> ParseChromeTrace(const std::string& text, const std::string& origin);
// Reads and parses a file: a regular file of at most 1 GiB (CheckInputFile
// errors: NotFound, InvalidArgument for a device or FIFO, OutOfRange).
Result<ProfileTrace> ReadChromeTrace(const std::string& path);

}  // namespace dlsim

#endif  // DLSIM_PROFILE_TRACE_H_
