// The machine-file skeleton `dlsim-calibrate probe` writes
// (docs/machine-format.md) and the datasheet it is checked against:
// host-only text handling, unit-tested without a GPU.
#ifndef DLSIM_CALIBRATE_MACHINE_YAML_H_
#define DLSIM_CALIBRATE_MACHINE_YAML_H_

#include <map>
#include <string>

namespace dlcal {

// What probe measured and read from the device. Zero means unknown.
struct ProbeFigures {
  std::string device_name, cc, time_utc, software;  // software: "driver 13.0, cuDNN ..."
  int sm_count = 0;
  double boost_clock_mhz = 0;
  double memory_bytes = 0;
  double l2_bytes = 0;
  double theoretical_bw_gbs = 0;  // memory clock x bus width
  double measured_bw_gbs = 0;     // D2D copy, bytes read + written
  double h2d_gbs = 0, d2h_gbs = 0;
  double kernel_launch_us = 0;    // back-to-back empty kernels
  // cuBLAS 8192^3 GEMM rates, TFLOP/s, by precision name (fp32, tf32, fp16, bf16).
  std::map<std::string, double> gemm_tflops;
};

// Reads `key: number` lines (nested keys count by their last name; a
// `_tflops` suffix is dropped, so `fp16_matrix_tflops: 989` and
// `peak_tflops: {...}`-style `fp16_matrix: 989` lines are the same).
// Lines that are not key: number are skipped. False on an unreadable file.
bool ReadDatasheetFile(const std::string& path, std::map<std::string, double>* values,
                       std::string* error);
std::map<std::string, double> ParseDatasheet(const std::string& text);

// Compares one measured figure with its datasheet value: true (contradiction)
// when measured > datasheet * 1.05 or measured < datasheet * 0.5.
bool Contradicts(double measured, double datasheet);

// The YAML skeleton; `datasheet` may be empty. Contradicted datasheet
// values get a "# WARNING: ..." comment line.
std::string MachineYaml(const ProbeFigures& f, const std::map<std::string, double>& datasheet,
                        const std::string& datasheet_path);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_MACHINE_YAML_H_
