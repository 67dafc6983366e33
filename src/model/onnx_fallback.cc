// ONNX's own shape inference, run once on a copy of the model for the ops
// dlsim has no rule for, in a child process: libonnx 1.12 crashes on some
// malformed models (a Conv whose weight has too few dims reads past the end
// in onnx::convPoolShapeInference: found by fuzz/onnx_import_fuzz, kept in
// fuzz/regressions/), and a crash there must be an error, not a dead dlsim.
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <exception>

#include "import_steps.h"
#include "onnx_proto_convert.h"

namespace dlsim {
namespace {

void FixInputDims(onnx::GraphProto* g, const Graph& graph) {
  for (auto& input : *g->mutable_input()) {
    const Tensor* t = graph.FindTensor(input.name());
    if (t == nullptr || !t->is_graph_input) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : t->dims) shape->add_dim()->set_dim_value(d);
  }
}

void Collect(const onnx::ValueInfoProto& info, FallbackShapes* out) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
  const auto& tt = info.type().tensor_type();
  Tensor t;
  t.name = info.name();
  t.dtype = DTypeFromOnnx(tt.elem_type());
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return;
    t.dims.push_back(d.dim_value());
  }
  (*out)[t.name] = std::move(t);
}

constexpr int kChildError = 3;       // exit code: the message follows on the pipe
constexpr unsigned kChildTimeoutS = 60;  // an endless loop in libonnx ends here

// Runs in the child: infers, writes the inferred value_info and outputs (a
// GraphProto, not the whole model with its weights) or an error message to
// `fd`, and exits without running destructors or atexit handlers.
[[noreturn]] void InferInChild(onnx::ModelProto* copy, int fd) {
  // A crash must kill the child plainly, not run a sanitizer's or fuzzer's
  // report in it.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, SIG_DFL);
  alarm(kChildTimeoutS);
  std::string out;
  int code = 0;
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0,
                                        /*data_prop=*/true);
    onnx::shape_inference::InferShapes(*copy, onnx::OpSchemaRegistry::Instance(), options);
    onnx::GraphProto shapes;
    *shapes.mutable_value_info() = copy->graph().value_info();
    *shapes.mutable_output() = copy->graph().output();
    out = shapes.SerializeAsString();
  } catch (const std::exception& e) {
    out = e.what();
    code = kChildError;
  }
  for (size_t done = 0; done < out.size();) {
    const ssize_t n = write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(1);
    done += static_cast<size_t>(n);
  }
  _exit(code);
}

// Reads everything the child writes, then reaps it. Forking is safe from a
// multithreaded process (sweeps load models on worker threads) because the
// child only allocates (glibc keeps malloc usable after fork), reads the
// schema registry initialised before the fork, and writes to the pipe.
Result<onnx::GraphProto> InferIsolated(onnx::ModelProto* copy, const std::string& file) {
  onnx::OpSchemaRegistry::Instance();  // initialise the registry before forking
  int fds[2];
  if (pipe(fds) != 0) return IoError(file + ": ONNX shape inference: pipe failed");
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return IoError(file + ": ONNX shape inference: fork failed");
  }
  if (pid == 0) {
    close(fds[0]);
    InferInChild(copy, fds[1]);
  }
  close(fds[1]);
  std::string bytes;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    return ParseError(file + ": ONNX shape inference (run for the ops dlsim has no rule for) "
                      "died with signal " + std::to_string(WTERMSIG(status)) +
                      " on this model: a malformed node?");
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == kChildError) return Internal(file + ": ONNX shape inference failed: " + bytes);
  onnx::GraphProto shapes;
  if (code != 0 || !shapes.ParseFromString(bytes)) {
    return Internal(file + ": ONNX shape inference ended with exit code " +
                    std::to_string(code));
  }
  return shapes;
}

}  // namespace

Result<FallbackShapes> RunOnnxShapeInference(const onnx::ModelProto& model, const Graph& graph,
                                             const std::string& file) {
  onnx::ModelProto copy = model;
  FixInputDims(copy.mutable_graph(), graph);
  copy.mutable_graph()->clear_value_info();
  DLSIM_ASSIGN_OR_RETURN(onnx::GraphProto inferred, InferIsolated(&copy, file));
  FallbackShapes shapes;
  for (const auto& info : inferred.value_info()) Collect(info, &shapes);
  for (const auto& info : inferred.output()) Collect(info, &shapes);
  return shapes;
}

}  // namespace dlsim
