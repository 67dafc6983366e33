#include "machine_yaml.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace dlcal {
namespace {

std::string Num(double v) {
  char buf[32];
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e12) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

std::string Slug(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "gpu" : out;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::map<std::string, double> ParseDatasheet(const std::string& text) {
  std::map<std::string, double> values;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    size_t b = key.find_first_not_of(" \t-"), e = key.find_last_not_of(" \t");
    if (b == std::string::npos) continue;
    key = key.substr(b, e - b + 1);
    size_t vb = value.find_first_not_of(" \t\r");
    if (vb == std::string::npos) continue;
    value = value.substr(vb);
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str()) continue;
    while (*end == ' ' || *end == '\t' || *end == '\r') ++end;
    if (*end != '\0' || !std::isfinite(v)) continue;
    const std::string suffix = "_tflops";
    if (key.size() > suffix.size() &&
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
      key.resize(key.size() - suffix.size());
    }
    values[key] = v;
  }
  return values;
}

bool ReadDatasheetFile(const std::string& path, std::map<std::string, double>* values,
                       std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open datasheet '" + path + "'";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  *values = ParseDatasheet(ss.str());
  return true;
}

bool Contradicts(double measured, double datasheet) {
  if (!(measured > 0) || !(datasheet > 0)) return false;
  return measured > datasheet * 1.05 || measured < datasheet * 0.5;
}

std::string MachineYaml(const ProbeFigures& f, const std::map<std::string, double>& ds,
                        const std::string& ds_path) {
  std::ostringstream y;
  auto get = [&](const char* k) {
    auto it = ds.find(k);
    return it == ds.end() ? 0.0 : it->second;
  };
  // A datasheet line, a measured comparison and a warning when they disagree.
  auto check = [&](const std::string& indent, const char* key, double measured,
                   const std::string& what) {
    double d = get(key);
    if (Contradicts(measured, d)) {
      y << indent << "# WARNING: datasheet " << key << " = " << Num(d) << " but measured "
        << what << " = " << Num(measured)
        << (measured > d ? " (above the datasheet by over 5%)" : " (under half the datasheet)")
        << "\n";
    }
  };
  const double gib = f.memory_bytes / double(1ull << 30);
  const double l2_mib = f.l2_bytes / double(1 << 20);
  y << "# Machine skeleton written by dlsim-calibrate probe at " << f.time_utc << "\n"
    << "# on " << f.device_name << " (" << f.software << ").\n"
    << "# Schema: docs/machine-format.md. Complete the TODOs from the datasheet, then check\n"
    << "# it with `dlsim machines`.\n";
  y << "name: " << Slug(f.device_name) << "\n"
    << "description: " << f.device_name << ", probed by dlsim-calibrate\n\n"
    << "device:\n"
    << "  name: " << f.device_name << "\n"
    << "  compute_capability: " << Quote(f.cc) << "\n";
  check("  ", "sm_count", f.sm_count, "sm_count");
  y << "  sm_count: " << f.sm_count << "\n";
  check("  ", "boost_clock_mhz", f.boost_clock_mhz, "max SM clock");
  y << "  boost_clock_mhz: " << Num(f.boost_clock_mhz) << "\n";
  y << "  peak_tflops:                 # dense; datasheet figures where given\n";
  const std::pair<const char*, const char*> units[] = {
      {"fp32_vector", "fp32"}, {"tf32_matrix", "tf32"}, {"fp16_matrix", "fp16"},
      {"bf16_matrix", "bf16"}};
  for (const auto& [unit, prec] : units) {
    auto it = f.gemm_tflops.find(prec);
    double measured = it == f.gemm_tflops.end() ? 0 : it->second;
    check("    ", unit, measured, std::string("GEMM ") + prec + " TFLOP/s");
    if (get(unit) > 0) {
      y << "    " << unit << ": " << Num(get(unit)) << "\n";
    } else if (measured > 0) {
      y << "    " << unit << ": " << Num(std::round(measured * 10) / 10)
        << "    # TODO: datasheet peak; this is the measured GEMM rate (a lower bound)\n";
    }
  }
  for (const char* unit : {"fp64_vector", "fp64_matrix", "fp16_vector", "bf16_vector",
                           "fp8_matrix"}) {
    if (get(unit) > 0) y << "    " << unit << ": " << Num(get(unit)) << "\n";
  }
  check("  ", "memory_gib", gib, "memory_gib");
  y << "  memory_gib: " << Num(get("memory_gib") > 0 ? get("memory_gib") : std::ceil(gib))
    << (get("memory_gib") > 0 ? "" : "    # the driver reports " + Num(std::round(gib * 10) / 10))
    << "\n";
  double bw = get("memory_bw_gbs");
  std::string bw_note;
  if (bw <= 0) {
    bw = f.theoretical_bw_gbs;
    bw_note = "    # TODO: datasheet; this is memory clock x bus width";
    if (bw < f.measured_bw_gbs) {
      bw = std::ceil(f.measured_bw_gbs);
      bw_note = "    # TODO: datasheet; this is the measured copy rate";
    }
  }
  check("  ", "memory_bw_gbs", f.measured_bw_gbs, "D2D copy bandwidth");
  y << "  memory_bw_gbs: " << Num(std::round(bw)) << bw_note << "\n";
  if (f.measured_bw_gbs > 0) {
    y << "  measured_memory_bw_gbs: " << Num(std::round(f.measured_bw_gbs)) << "\n";
  }
  check("  ", "l2_mib", l2_mib, "L2 MiB");
  y << "  l2_mib: " << Num(std::round(l2_mib * 100) / 100) << "\n";
  check("  ", "kernel_launch_us", f.kernel_launch_us, "kernel_launch_us");
  if (f.kernel_launch_us > 0) {
    y << "  kernel_launch_us: " << Num(std::round(f.kernel_launch_us * 100) / 100) << "\n";
  }
  double h2d = std::min(f.h2d_gbs, f.d2h_gbs > 0 ? f.d2h_gbs : f.h2d_gbs);
  if (h2d > 0) {
    y << "  host_device_bw_gbs: " << Num(std::round(h2d * 10) / 10)
      << "    # measured, pinned; h2d " << Num(std::round(f.h2d_gbs * 10) / 10) << ", d2h "
      << Num(std::round(f.d2h_gbs * 10) / 10) << "\n";
  }
  y << "\n# Measured cuBLAS GEMM 8192^3 on random data, TFLOP/s:";
  for (const auto& [prec, rate] : f.gemm_tflops) y << " " << prec << " " << Num(std::round(rate * 10) / 10) << ";";
  y << "\n\nsources:\n";
  const std::string probe = "measured " + f.time_utc + " by dlsim-calibrate probe on " +
                            f.device_name + " (" + f.software + ")";
  y << "  device.sm_count: cudaGetDeviceProperties on the probed device\n";
  if (f.measured_bw_gbs > 0) {
    y << "  device.measured_memory_bw_gbs: " << probe
      << ", cudaMemcpyAsync device-to-device of 1 GiB, bytes read plus written\n";
  }
  if (f.kernel_launch_us > 0) {
    y << "  device.kernel_launch_us: " << probe
      << ", empty kernels back to back in a CUDA graph\n";
  }
  if (h2d > 0) y << "  device.host_device_bw_gbs: " << probe << ", pinned cudaMemcpyAsync\n";
  y << "  device.peak_tflops: "
    << (ds_path.empty() ? "TODO: datasheet (values above are measured GEMM rates)"
                        : "datasheet " + ds_path + " (missing units: measured GEMM rates)")
    << "\n";
  return y.str();
}

}  // namespace dlcal
