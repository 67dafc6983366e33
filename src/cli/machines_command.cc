// dlsim machines: list and validate the bundled (or a given folder's) machines.
#include <cstdio>
#include <iostream>
#include <vector>

#include "commands.h"
#include "dlsim/cost/roofline.h"
#include "dlsim/machine/achievable.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/report/machine_report.h"
#include "format_option.h"

namespace dlsim::cli {
namespace {

struct MachinesArgs {
  std::string dir;
  FormatOption format;
};

// The memory bandwidth pricing uses and where it comes from: the measured
// figure, else (on a scaled machine) the datasheet at the reference's achieved
// share (WithAchievedMemoryBw), else the datasheet.
SourcedFigure MemoryBwUsed(const Machine& m) {
  const DeviceSpec& d = m.device;
  if (d.measured_memory_bw_bytes_per_s > 0) return {d.measured_memory_bw_bytes_per_s, "measured"};
  if (!m.calibration.scale_from.empty()) {
    auto ref = LoadMachine(m.calibration.scale_from);
    if (ref.ok()) {
      const double used = WithAchievedMemoryBw(d, ref->device).EffectiveMemoryBw();
      if (used != d.memory_bw_bytes_per_s && d.memory_bw_bytes_per_s > 0) {
        char text[96];
        std::snprintf(text, sizeof(text), "datasheet x %.3f (the reference's achieved share)",
                      used / d.memory_bw_bytes_per_s);
        return {used, text};
      }
    }
  }
  return {d.memory_bw_bytes_per_s, "datasheet"};
}

int RunMachines(const MachinesArgs& args) {
  const Result<OutputFormat> format = args.format.Parse();
  if (!format.ok()) return ReportError(format.status());
  auto checks = args.dir.empty() ? ValidateAllBundledMachines() : ValidateMachineFiles(args.dir);
  if (!checks.ok()) return ReportError(checks.status());
  int bad = 0;
  std::vector<MachineListing> list;
  if (*format == OutputFormat::kTable) {
    std::printf("%-14s %-32s %5s %9s %10s %10s %10s %8s  %-11s %s\n", "machine", "device", "SMs",
                "mem GB", "BW GB/s", "fp16 TF/s", "GEMM32 TF/s", "GPUs", "calibration",
                "FP32 GEMM share (source), clock; bandwidth source");
  }
  for (const MachineFileCheck& c : *checks) {
    if (!c.status.ok()) {
      ++bad;
      std::cerr << "dlsim: error: " << c.status.message() << "\n";
      continue;
    }
    const Machine& m = c.machine;
    if (*format == OutputFormat::kJson) {
      list.push_back({m, MemoryBwUsed(m)});
      continue;
    }
    const bool scaled = !m.calibration.scale_from.empty();
    std::string cal = !m.calibration.perf_db.empty() ? (scaled ? "db+scaled" : "database")
                      : scaled ? "scaled" : "roofline";
    const SourcedFigure share = Fp32GemmShare(m.device);
    const SourcedFigure bw = MemoryBwUsed(m);
    std::printf("%-14s %-32.32s %5d %9.0f %10.0f %10.1f %10.1f %8d  %-11s %.3f (%s), %.0f of %.0f MHz; %s\n",
                m.name.c_str(), m.device.name.c_str(), m.device.sm_count,
                m.device.memory_bytes / 1e9, bw.value / 1e9,
                m.device.peak_flops.fp16_matrix / 1e12, Fp32GemmFlops(m.device) / 1e12,
                m.TotalGpus(), cal.c_str(), share.value, share.source.c_str(),
                m.device.boost_clock_mhz * ClockFactor(m.device), m.device.boost_clock_mhz,
                bw.source.c_str());
  }
  if (*format == OutputFormat::kJson) std::cout << MachinesToJson(list) << "\n";
  std::cerr << checks->size() - bad << " valid, " << bad << " invalid\n";
  return bad == 0 ? 0 : 1;
}

}  // namespace

void RegisterMachinesCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<MachinesArgs>();
  auto* cmd = app.add_subcommand("machines", "list and validate machine files");
  cmd->add_option("--dir", args->dir, "folder of machine YAML files (default: the bundled ones)");
  AddFormatOption(cmd, &args->format, {OutputFormat::kTable, OutputFormat::kJson});
  cmd->callback([args, exit_code] { *exit_code = RunMachines(*args); });
}

}  // namespace dlsim::cli
