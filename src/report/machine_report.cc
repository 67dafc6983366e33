#include "dlsim/report/machine_report.h"

#include <nlohmann/json.hpp>

namespace dlsim {
namespace {

nlohmann::json MachineJson(const Machine& m, const SourcedFigure& bw) {
  const PeakFlops& p = m.device.peak_flops;
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

}  // namespace

std::string MachinesToJson(const std::vector<MachineListing>& machines) {
  nlohmann::json list = nlohmann::json::array();
  for (const MachineListing& m : machines) list.push_back(MachineJson(m.machine, m.memory_bw));
  return list.dump(2);
}

}  // namespace dlsim
