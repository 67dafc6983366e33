// dlsim machines: list and validate the bundled (or a given folder's) machines.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "dlsim/cost/roofline.h"
#include "dlsim/machine/achievable.h"
#include "dlsim/machine/machine_io.h"

namespace dlsim::cli {
namespace {

struct MachinesArgs {
  std::string dir;
  std::string format = "table";
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

nlohmann::json MachineJson(const Machine& m) {
  const PeakFlops& p = m.device.peak_flops;
  const SourcedFigure bw = MemoryBwUsed(m);
  const SourcedFigure lanes = Fp32LanesPerSm(m.device);
  const SourcedFigure share = Fp32GemmShare(m.device);
  return {{"name", m.name},
          {"device", m.device.name},
          {"sm_count", m.device.sm_count},
          {"memory_bytes", m.device.memory_bytes},
          {"memory_bw_bytes_per_s", bw.value},
          {"memory_bw_source", bw.source},
          {"fp32_flops", p.fp32_vector},
          {"sustained_clock_mhz", m.device.sustained_clock_mhz},
          {"fp32_lanes_per_sm", lanes.value},
          {"fp32_lanes_per_sm_source", lanes.source},
          {"fp32_gemm_share", share.value},
          {"fp32_gemm_share_source", share.source},
          {"fp32_gemm_flops", Fp32GemmFlops(m.device)},
          {"tf32_matrix_flops", p.tf32_matrix},
          {"fp16_matrix_flops", p.fp16_matrix},
          {"bf16_matrix_flops", p.bf16_matrix},
          {"gpus_per_node", m.node.gpus_per_node},
          {"nodes", m.system.nodes},
          {"perf_db", m.calibration.perf_db},
          {"scale_from", m.calibration.scale_from}};
}

int RunMachines(const MachinesArgs& args) {
  if (args.format != "table" && args.format != "json") {
    return ReportError(InvalidArgument("--format must be table or json, got '" + args.format + "'"));
  }
  auto checks = args.dir.empty() ? ValidateAllBundledMachines() : ValidateMachineFiles(args.dir);
  if (!checks.ok()) return ReportError(checks.status());
  int bad = 0;
  nlohmann::json list = nlohmann::json::array();
  if (args.format == "table") {
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
    if (args.format == "json") {
      list.push_back(MachineJson(m));
      continue;
    }
    std::string cal = !m.calibration.perf_db.empty() ? "database"
                      : !m.calibration.scale_from.empty() ? "scaled" : "roofline";
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
  if (args.format == "json") std::cout << list.dump(2) << "\n";
  std::cerr << checks->size() - bad << " valid, " << bad << " invalid\n";
  return bad == 0 ? 0 : 1;
}

}  // namespace

void RegisterMachinesCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<MachinesArgs>();
  auto* cmd = app.add_subcommand("machines", "list and validate machine files");
  cmd->add_option("--dir", args->dir, "folder of machine YAML files (default: the bundled ones)");
  cmd->add_option("--format", args->format, "table or json")->capture_default_str();
  cmd->callback([args, exit_code] { *exit_code = RunMachines(*args); });
}

}  // namespace dlsim::cli
