// GPU smoke test (ctest label "gpu"): exits 77 (skipped) without a GPU;
// otherwise measures one GEMM, one convolution and one pointwise kernel and
// checks that the times are positive and plausible.
#include <cstdio>
#include <string>
#include <vector>

#include "families.h"
#include "key.h"
#include "records.h"
#include "session.h"

namespace {

using namespace dlcal;

int g_failures = 0;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

std::vector<AlgoResult> Measure(Session& s, const std::string& text) {
  Key key;
  std::string error;
  std::vector<AlgoResult> results;
  if (!ParseKey(text, &key, &error)) {
    std::fprintf(stderr, "bad key %s: %s\n", text.c_str(), error.c_str());
    ++g_failures;
    return results;
  }
  Status st = MeasureKey(key, s.ctx(), &results);
  if (!st.ok()) std::fprintf(stderr, "%s: %s\n", text.c_str(), st.message().c_str());
  std::printf("%s", KeyRecords(s.info(), key.text, results, st, UtcNow()).c_str());
  return results;
}

}  // namespace

int main() {
  if (CudaDeviceCount() == 0) {
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
  Session s;
  TimingConfig timing;
  timing.budget_ms = 300;
  Status st = s.Open(0, true, timing);
  if (!st.ok()) {
    std::fprintf(stderr, "cannot open the GPU: %s\n", st.message().c_str());
    return 1;
  }
  if (!s.cupti_error().empty()) std::printf("CUPTI unavailable: %s\n", s.cupti_error().c_str());

  auto gemm = Measure(s, "gemm m=2048 n=2048 k=2048 trans_a=0 trans_b=1 dtype=fp32 math=fp32 "
                         "layout=-");
  CHECK(gemm.size() == 1);
  if (gemm.size() == 1) {
    const AlgoResult& r = gemm[0];
    CHECK(r.status.ok() && r.has_times && r.fastest);
    CHECK(r.stats.median_ms > 0 && r.stats.min_ms > 0 && r.stats.min_ms <= r.stats.median_ms);
    double rate = 2.0 * 2048 * 2048 * 2048 / (r.stats.median_ms * 1e-3);
    std::printf("GEMM 2048^3 fp32: %.3f ms, %.2f TFLOP/s\n", r.stats.median_ms, rate / 1e12);
    CHECK(rate < 1.2e15);  // faster than any GPU's fp32 (or even fp16) peak: timing is wrong
    CHECK(rate > 1e11);
  }

  auto conv = Measure(s, "conv_fwd n=8 c=64 h=28 w=28 k=64 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 "
                         "stride_w=1 dil_h=1 dil_w=1 groups=1 dtype=fp32 math=tf32 layout=nchw");
  int ok = 0, fastest = 0, heuristic = 0;
  for (const auto& r : conv) {
    if (r.status.ok() && r.has_times) {
      ++ok;
      CHECK(r.stats.median_ms > 0);
    }
    fastest += r.fastest;
    heuristic += r.heuristic;
  }
  CHECK(ok >= 1);
  CHECK(fastest == 1);
  CHECK(heuristic == 1);

  // The same convolution through the graph API's engine configurations.
  s.ctx().conv_engines = true;
  auto engines = Measure(s, "conv_bwd_data n=8 c=64 h=28 w=28 k=64 r=3 s=3 pad_h=1 pad_w=1 "
                            "stride_h=1 stride_w=1 dil_h=1 dil_w=1 groups=2 dtype=fp16 "
                            "math=fp16 layout=nhwc");
  s.ctx().conv_engines = false;
  ok = fastest = heuristic = 0;
  for (const auto& r : engines) {
    if (r.status.ok() && r.has_times) {
      ++ok;
      CHECK(r.stats.median_ms > 0);
      CHECK(r.algo.rfind("eng", 0) == 0);
    }
    fastest += r.fastest;
    heuristic += r.heuristic;
  }
  CHECK(ok >= 1);
  CHECK(fastest == 1);
  CHECK(heuristic == 1);

  auto add = Measure(s, "elementwise op=add elems=1048576 arity=2 dtype=fp16 math=fp16 layout=-");
  CHECK(add.size() == 1 && add[0].status.ok() && add[0].stats.median_ms > 0);

  if (g_failures) {
    std::fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("GPU smoke test passed\n");
  return 0;
}
