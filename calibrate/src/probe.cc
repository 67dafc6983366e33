// `dlsim-calibrate probe`: the few figures a machine file needs, measured
// with the same harness as `run`, written as a machine YAML skeleton.
#include <cstdio>
#include <fstream>

#include "families.h"
#include "key.h"
#include "machine_yaml.h"
#include "records.h"
#include "runner.h"
#include "session.h"

namespace dlcal {
namespace {

// Median ms of a key's fastest result, 0 when it failed (and says why).
double MedianMs(Context& ctx, const std::string& text) {
  Key key;
  std::string error;
  if (!ParseKey(text, &key, &error)) {
    std::fprintf(stderr, "probe: bad key '%s': %s\n", text.c_str(), error.c_str());
    return 0;
  }
  std::vector<AlgoResult> results;
  Status st = MeasureKey(key, ctx, &results);
  for (const auto& r : results) {
    if (r.fastest) return r.stats.median_ms;
  }
  if (!st.ok()) {
    std::fprintf(stderr, "probe: %s: %s\n", text.c_str(), st.message().c_str());
  }
  for (const auto& r : results) {
    if (!r.status.ok()) {
      std::fprintf(stderr, "probe: %s: %s\n", text.c_str(), r.status.message().c_str());
    }
  }
  return 0;
}

}  // namespace

int ProbeCommand(const ProbeOptions& opts) {
  std::map<std::string, double> datasheet;
  std::string error;
  if (!opts.datasheet.empty() && !ReadDatasheetFile(opts.datasheet, &datasheet, &error)) {
    std::fprintf(stderr, "dlsim-calibrate: %s\n", error.c_str());
    return kExitError;
  }
  Session session;
  Status st = session.Open(opts.device, false, opts.timing);
  if (!st.ok()) {
    std::fprintf(stderr, "dlsim-calibrate: %s\n", st.message().c_str());
    return kExitError;
  }
  Context& ctx = session.ctx();
  const DeviceInfo& info = session.info();
  ProbeFigures f;
  f.device_name = info.name;
  f.cc = info.cc;
  f.time_utc = UtcNow();
  f.software = "driver " + info.driver + ", CUDA " + info.cuda + ", cuDNN " + info.cudnn +
               ", cuBLAS " + info.cublas;
  f.sm_count = info.sms;
  f.boost_clock_mhz = info.clock_mhz;
  f.memory_bytes = info.mem_bytes;
  f.l2_bytes = info.l2_bytes;
  f.theoretical_bw_gbs = info.TheoreticalBandwidth() / 1e9;

  const std::string tail = " dtype=fp32 math=fp32 layout=-";
  const double copy_elems = double(1 << 28);  // 1 GiB of fp32
  double ms = MedianMs(ctx, "copy op=d2d elems=268435456" + tail);
  if (ms > 0) f.measured_bw_gbs = 2 * copy_elems * 4 / (ms * 1e-3) / 1e9;
  ms = MedianMs(ctx, "copy op=h2d elems=67108864" + tail);
  if (ms > 0) f.h2d_gbs = double(1 << 28) / (ms * 1e-3) / 1e9;
  ms = MedianMs(ctx, "copy op=d2h elems=67108864" + tail);
  if (ms > 0) f.d2h_gbs = double(1 << 28) / (ms * 1e-3) / 1e9;
  ms = MedianMs(ctx, "elementwise op=empty_kernel elems=0 arity=0" + tail);
  if (ms > 0) f.kernel_launch_us = ms * 1e3;
  const std::pair<const char*, const char*> gemms[] = {
      {"fp32", "dtype=fp32 math=fp32"}, {"tf32", "dtype=fp32 math=tf32"},
      {"fp16", "dtype=fp16 math=fp16"}, {"bf16", "dtype=bf16 math=bf16"}};
  const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  for (const auto& [name, types] : gemms) {
    ms = MedianMs(ctx, std::string("gemm m=8192 n=8192 k=8192 trans_a=0 trans_b=0 ") + types +
                           " layout=-");
    if (ms > 0) f.gemm_tflops[name] = flops / (ms * 1e-3) / 1e12;
  }

  std::string yaml = MachineYaml(f, datasheet, opts.datasheet);
  std::ofstream out(opts.out);
  if (!out || !(out << yaml) || !out.flush()) {
    std::fprintf(stderr, "dlsim-calibrate: cannot write '%s'\n", opts.out.c_str());
    return kExitError;
  }
  std::printf("%s: %s, %d SMs, L2 %.0f MiB\n", opts.out.c_str(), f.device_name.c_str(),
              f.sm_count, f.l2_bytes / (1 << 20));
  std::printf("  D2D copy %.0f GB/s (read+write), H2D %.1f GB/s, D2H %.1f GB/s, launch %.2f us\n",
              f.measured_bw_gbs, f.h2d_gbs, f.d2h_gbs, f.kernel_launch_us);
  for (const auto& [name, rate] : f.gemm_tflops) {
    std::printf("  GEMM 8192^3 %s: %.1f TFLOP/s\n", name.c_str(), rate);
  }
  size_t warnings = 0, pos = 0;
  while ((pos = yaml.find("# WARNING", pos)) != std::string::npos) ++warnings, ++pos;
  if (warnings) std::printf("  %zu datasheet value(s) contradicted: see WARNING lines\n", warnings);
  return kExitOk;
}

}  // namespace dlcal
