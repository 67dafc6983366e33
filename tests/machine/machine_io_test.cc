#include "dlsim/machine/machine_io.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace dlsim {
namespace {

const std::string kData = std::string(DLSIM_TEST_DATA_DIR) + "/machines";
const std::string kBundled = std::string(DLSIM_SOURCE_DIR) + "/machines";

std::string Normal(const std::string& p) {
  return std::filesystem::path(p).lexically_normal().string();
}

TEST(BundledMachines, AllLoadAndValidate) {
  auto checks = ValidateMachineFiles(kBundled);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  // a100 a100-pcie-40gb a100-pcie-80gb a100-sxm-40gb b200 gb200-nvl72 h100 h100-pcie h200
  // h200-measured k20x l4 l40s machine-a p100 p100-pcie-16gb p4 t4 titan v100 v100-pcie-32gb
  ASSERT_EQ(checks->size(), 21u);
  for (const auto& c : *checks) {
    EXPECT_TRUE(c.status.ok()) << c.path << ": " << c.status.ToString();
  }
}

// The low-power cards carry the sustained clock fitted on NeuSight's kernel
// tables (bench/generations/fit_kernels.py) and the bandwidth measured there.
TEST(BundledMachines, PowerLimitedCardsCarryTheirSustainedClock) {
  auto t4 = LoadMachine(kBundled + "/t4.yaml");
  ASSERT_TRUE(t4.ok()) << t4.status().ToString();
  EXPECT_EQ(t4->device.sustained_clock_mhz, 843);
  EXPECT_EQ(t4->device.fp32_lanes_per_sm, 64);
  EXPECT_EQ(t4->device.measured_memory_bw_bytes_per_s, 242e9);
  auto l4 = LoadMachine(kBundled + "/l4.yaml");
  ASSERT_TRUE(l4.ok()) << l4.status().ToString();
  EXPECT_EQ(l4->device.sustained_clock_mhz, 787);
  EXPECT_EQ(l4->device.fp32_lanes_per_sm, 128);
  EXPECT_EQ(l4->calibration.scale_from, Normal(kBundled + "/h100.yaml"));
  // The P4's GEMMs run as fast against the H100 as its lanes and boost clock say.
  auto p4 = LoadMachine(kBundled + "/p4.yaml");
  ASSERT_TRUE(p4.ok()) << p4.status().ToString();
  EXPECT_EQ(p4->device.sustained_clock_mhz, 0);
}

// GPUs a buyer compares today, written from datasheets and marked unmeasured:
// no measured bandwidth, no sustained clock, scaled from the H100.
TEST(BundledMachines, DatasheetOnlyMachinesLoad) {
  auto a100 = LoadMachine(kBundled + "/a100-sxm-40gb.yaml");
  ASSERT_TRUE(a100.ok()) << a100.status().ToString();
  EXPECT_EQ(a100->device.sm_count, 108);
  EXPECT_DOUBLE_EQ(a100->device.memory_bw_bytes_per_s, 1555e9);
  EXPECT_DOUBLE_EQ(a100->device.memory_bytes, 40.0 * 1073741824);
  EXPECT_EQ(a100->device.fp32_lanes_per_sm, 64);
  EXPECT_EQ(a100->node.gpus_per_node, 8);
  auto h100p = LoadMachine(kBundled + "/h100-pcie.yaml");
  ASSERT_TRUE(h100p.ok()) << h100p.status().ToString();
  EXPECT_EQ(h100p->device.sm_count, 114);
  EXPECT_EQ(h100p->device.boost_clock_mhz, 1755);
  EXPECT_DOUBLE_EQ(h100p->device.peak_flops.fp32_vector, 51e12);
  EXPECT_DOUBLE_EQ(h100p->device.peak_flops.bf16_matrix, 756.5e12);
  EXPECT_DOUBLE_EQ(h100p->device.memory_bw_bytes_per_s, 2000e9);
  auto l40s = LoadMachine(kBundled + "/l40s.yaml");
  ASSERT_TRUE(l40s.ok()) << l40s.status().ToString();
  EXPECT_EQ(l40s->device.sm_count, 142);
  EXPECT_DOUBLE_EQ(l40s->device.peak_flops.fp32_vector, 91.6e12);
  EXPECT_DOUBLE_EQ(l40s->device.peak_flops.fp16_matrix, 362e12);
  EXPECT_DOUBLE_EQ(l40s->device.memory_bw_bytes_per_s, 864e9);
  EXPECT_DOUBLE_EQ(l40s->device.l2_bytes, 96.0 * 1048576);
  auto b200 = LoadMachine(kBundled + "/b200.yaml");
  ASSERT_TRUE(b200.ok()) << b200.status().ToString();
  EXPECT_EQ(b200->device.sm_count, 148);
  EXPECT_DOUBLE_EQ(b200->device.peak_flops.bf16_matrix, 2250e12);
  EXPECT_DOUBLE_EQ(b200->device.memory_bw_bytes_per_s, 7700e9);
  EXPECT_DOUBLE_EQ(b200->device.l2_bytes, 126.0 * 1048576);
  EXPECT_EQ(b200->node.gpus_per_node, 8);
  auto gb200 = LoadMachine(kBundled + "/gb200-nvl72.yaml");
  ASSERT_TRUE(gb200.ok()) << gb200.status().ToString();
  EXPECT_DOUBLE_EQ(gb200->device.peak_flops.bf16_matrix, 2500e12);
  EXPECT_EQ(gb200->node.gpus_per_node, 72);
  for (const auto* m : {&*a100, &*h100p, &*l40s, &*b200, &*gb200}) {
    EXPECT_EQ(m->device.measured_memory_bw_bytes_per_s, 0) << m->name;
    EXPECT_EQ(m->device.sustained_clock_mhz, 0) << m->name;
    EXPECT_EQ(m->calibration.scale_from, Normal(kBundled + "/h100.yaml")) << m->name;
  }
}

TEST(BundledMachines, H100Values) {
  auto m = LoadMachine(kBundled + "/h100.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->name, "h100");
  EXPECT_EQ(m->device.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(m->device.compute_capability, "9.0");
  EXPECT_EQ(m->device.sm_count, 132);
  EXPECT_DOUBLE_EQ(m->device.memory_bw_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(m->device.measured_memory_bw_bytes_per_s, 3.0e12);
  EXPECT_DOUBLE_EQ(m->device.EffectiveMemoryBw(), 3.0e12);
  EXPECT_DOUBLE_EQ(m->device.l2_bytes, 50.0 * 1048576);
  EXPECT_EQ(m->calibration.l2_resident_factor.size(), 11u);
  EXPECT_DOUBLE_EQ(m->calibration.l2_resident_factor.at("groupnorm_fwd"), 0.626);
  EXPECT_DOUBLE_EQ(m->calibration.l2_resident_factor.at("batchnorm_train_fwd"), 0.454);
  EXPECT_DOUBLE_EQ(m->device.memory_bytes, 80.0 * 1073741824);
  EXPECT_DOUBLE_EQ(m->device.peak_flops.bf16_matrix, 989.5e12);
  EXPECT_DOUBLE_EQ(m->device.peak_flops.fp32_vector, 67e12);
  EXPECT_DOUBLE_EQ(m->device.peak_flops.fp8_matrix, 1979e12);
  EXPECT_DOUBLE_EQ(m->host.dispatch_s, 30.8e-6);
  EXPECT_DOUBLE_EQ(m->host.dispatch_s_by_kind.at("conv_fwd"), 34.3e-6);
  EXPECT_DOUBLE_EQ(m->host.dispatch_s_by_kind.at("batchnorm_infer.fp16"), 25.9e-6);
  EXPECT_DOUBLE_EQ(m->host.dispatch_s_by_kind.at("rnn_fwd"), 40e-6);
  EXPECT_DOUBLE_EQ(m->host.dispatch_s_by_kind.at("rnn_per_kernel"), 6.9e-6);
  EXPECT_DOUBLE_EQ(m->node.scale_up.bw_bytes_per_s, 450e9);
  EXPECT_EQ(m->TotalGpus(), 8);
  // The bundled database (a missing one would be recorded, not an error).
  EXPECT_EQ(m->calibration.perf_db, Normal(std::string(DLSIM_SOURCE_DIR) +
                                           "/calibration/h100.sqlite"));
  EXPECT_EQ(m->calibration.perf_db_as_written, "../calibration/h100.sqlite");
  EXPECT_EQ(m->calibration.db_gpu, "NVIDIA H100 80GB HBM3");
  // What the database lacks comes from the H200's, scaled.
  EXPECT_EQ(m->calibration.scale_from, Normal(kBundled + "/h200-measured.yaml"));
  EXPECT_NE(m->sources.at("device.measured_memory_bw_gbs").find("2026-11"), std::string::npos);
}

TEST(BundledMachines, H200ScalesFromH100WithoutADatabase) {
  auto m = LoadMachine(kBundled + "/h200.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->calibration.perf_db.empty());
  EXPECT_EQ(m->calibration.scale_from, Normal(kBundled + "/h100.yaml"));
  EXPECT_DOUBLE_EQ(m->device.memory_bw_bytes_per_s, 4.8e12);
  EXPECT_DOUBLE_EQ(m->device.measured_memory_bw_bytes_per_s, 4.3e12);
  EXPECT_DOUBLE_EQ(m->device.l2_bytes, 60.0 * 1048576);
}

TEST(BundledMachines, SystemsAndOlderGpus) {
  auto titan = LoadMachine(kBundled + "/titan.yaml");
  ASSERT_TRUE(titan.ok()) << titan.status().ToString();
  EXPECT_EQ(titan->system.nodes, 18688);
  EXPECT_EQ(titan->TotalGpus(), 18688);
  auto k20x = LoadMachine(kBundled + "/k20x.yaml");
  ASSERT_TRUE(k20x.ok());
  EXPECT_EQ(k20x->system.nodes, 18688);
  EXPECT_DOUBLE_EQ(k20x->device.l2_bytes, 1.5 * 1048576);
  auto a = LoadMachine(kBundled + "/machine-a.yaml");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->TotalGpus(), 94000);
  auto v100 = LoadMachine(kBundled + "/v100.yaml");
  ASSERT_TRUE(v100.ok());
  EXPECT_EQ(v100->system.nodes, 4608);
  EXPECT_EQ(v100->node.gpus_per_node, 6);
  ASSERT_EQ(v100->system.tiers.size(), 1u);
  EXPECT_DOUBLE_EQ(v100->system.tiers[0].link.bw_bytes_per_s, 12.5e9);
  auto t4 = LoadMachine(kBundled + "/t4.yaml");
  ASSERT_TRUE(t4.ok());
  EXPECT_DOUBLE_EQ(t4->device.peak_flops.fp16_matrix, 65e12);
  EXPECT_EQ(t4->node.nics_per_node, 0);
}

// A scaled machine with no host section takes its reference's host fit;
// one with a host section keeps its own.
TEST(BundledMachines, ScaledMachineWithoutHostTakesTheReferencesHost) {
  auto h100 = LoadMachine(kBundled + "/h100.yaml");
  auto a100 = LoadMachine(kBundled + "/a100.yaml");
  ASSERT_TRUE(h100.ok() && a100.ok());
  EXPECT_TRUE(h100->host.given);
  EXPECT_TRUE(h100->host.taken_from.empty());
  EXPECT_FALSE(a100->host.given);
  EXPECT_EQ(Normal(a100->host.taken_from), Normal(kBundled + "/h100.yaml"));
  EXPECT_DOUBLE_EQ(a100->host.dispatch_s, h100->host.dispatch_s);
  EXPECT_EQ(a100->host.dispatch_s_by_kind, h100->host.dispatch_s_by_kind);
  auto h200 = LoadMachine(kBundled + "/h200.yaml");
  ASSERT_TRUE(h200.ok());
  EXPECT_TRUE(h200->host.given);
  EXPECT_TRUE(h200->host.taken_from.empty());
  EXPECT_NE(h200->host.dispatch_s, h100->host.dispatch_s);
}

TEST(MachineFiles, MinimalUsesDefaults) {
  auto m = LoadMachine(kData + "/minimal.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->node.gpus_per_node, 1);
  EXPECT_EQ(m->system.nodes, 1);
  EXPECT_EQ(m->device.devices_per_package, 1);
  EXPECT_EQ(m->host.framework, "pytorch");
  EXPECT_DOUBLE_EQ(m->host.dispatch_s, 0);
  EXPECT_DOUBLE_EQ(m->device.measured_memory_bw_bytes_per_s, 0);
  EXPECT_DOUBLE_EQ(m->device.peak_flops.fp16_matrix, 0);
  EXPECT_EQ(m->calibration.db_gpu, "Test GPU");
  EXPECT_EQ(m->source_path, kData + "/minimal.yaml");
}

TEST(MachineFiles, RelativeCalibrationPathsResolveAgainstTheFile) {
  auto m = LoadMachine(kData + "/relative_paths.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->calibration.perf_db,
            Normal(std::string(DLSIM_TEST_DATA_DIR) + "/perfdb/does-not-exist.sqlite"));
  EXPECT_EQ(m->calibration.scale_from, Normal(kData + "/minimal.yaml"));
}

TEST(MachineFiles, BadFilesNameTheFileAndField) {
  auto neg = LoadMachine(kData + "/bad_negative_bw.yaml");
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(neg.status().message(), kData + "/bad_negative_bw.yaml: device.memory_bw_gbs: "
                                            "must be a positive number, got '-3'");
  auto typo = LoadMachine(kData + "/bad_unknown_key.yaml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("bad_unknown_key.yaml: device.peak_tflops.fp16_matrx: "
                                         "unknown key"),
            std::string::npos)
      << typo.status().message();
  auto syntax = LoadMachine(kData + "/bad_syntax.yaml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.status().code(), StatusCode::kParseError);
  EXPECT_NE(syntax.status().message().find("bad_syntax.yaml:"), std::string::npos);
  auto ref = LoadMachine(kData + "/bad_missing_scale_from.yaml");
  ASSERT_FALSE(ref.ok());
  EXPECT_NE(ref.status().message().find("calibration.scale_from: reference machine file not "
                                        "found"),
            std::string::npos)
      << ref.status().message();
  auto kind = LoadMachine(kData + "/bad_l2_resident_kind.yaml");
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("calibration.l2_resident_factor.conv_fwd: not a memory-bound "
                                         "kernel kind"),
            std::string::npos)
      << kind.status().message();
  auto missing = LoadMachine(kData + "/no-such-file.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no-such-file.yaml"), std::string::npos);
}

TEST(HostProfiles, LoadTheHostSectionWithWhatItWasMeasuredOn) {
  const std::string path = std::string(DLSIM_TEST_DATA_DIR) + "/hosts/calibrated.yaml";
  auto h = LoadHostProfile(path);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->framework, "pytorch");
  EXPECT_EQ(h->framework_version, "2.11.0+cu130");
  EXPECT_EQ(h->cpu, "Test CPU @ 3.0GHz");
  EXPECT_TRUE(h->calibrated);
  EXPECT_EQ(h->profile_path, path);
  EXPECT_DOUBLE_EQ(h->dispatch_s, 10e-6);
  EXPECT_DOUBLE_EQ(h->dispatch_s_by_kind.at("conv_fwd"), 40e-6);
  EXPECT_DOUBLE_EQ(h->dispatch_s_by_kind.at("gemm"), 20e-6);
  EXPECT_DOUBLE_EQ(h->dispatch_s_by_kind.at("none"), 2e-6);
  EXPECT_EQ(h->dispatch_s_by_kind.size(), 3u);
}

TEST(HostProfiles, BadProfilesNameTheFileAndField) {
  const std::string dir = std::string(DLSIM_TEST_DATA_DIR) + "/hosts/";
  auto kind = LoadHostProfile(dir + "bad_kind.yaml");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(kind.status().message().find("bad_kind.yaml: host.dispatch_us_by_kind.gemmm: unknown kind"),
            std::string::npos)
      << kind.status().message();
  auto machine = LoadHostProfile(dir + "not_a_host.yaml");
  ASSERT_FALSE(machine.ok());
  EXPECT_NE(machine.status().message().find("not_a_host.yaml: host: required"), std::string::npos)
      << machine.status().message();
  auto missing = LoadHostProfile(dir + "no-such-file.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

// What calibrate/host_calibrate.py wrote on the GPU machines loads as it is.
TEST(HostProfiles, TheCalibrationScriptsOutputLoads) {
  const std::filesystem::path dir = std::filesystem::path(DLSIM_SOURCE_DIR) / "bench/corpus/data_eager";
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    auto h = LoadHostProfile(entry.path().string());
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    EXPECT_TRUE(h->calibrated) << entry.path();
    EXPECT_EQ(h->framework_version, "2.11.0+cu130") << entry.path();
    EXPECT_EQ(h->dispatch_s_by_kind.size(), 18u) << entry.path();
    ++loaded;
  }
  EXPECT_EQ(loaded, 4);
}

TEST(HostProfiles, BundledMachinesSayTheirHostIsNotCalibratedHere) {
  auto m = LoadMachine(kBundled + "/h100.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE(m->host.calibrated);
  EXPECT_TRUE(m->host.profile_path.empty());
}

TEST(MachineFiles, FolderValidationReportsEachFile) {
  auto checks = ValidateMachineFiles(kData);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 7u);
  int ok = 0;
  for (const auto& c : *checks) ok += c.status.ok() ? 1 : 0;
  EXPECT_EQ(ok, 2);  // minimal.yaml, relative_paths.yaml
  EXPECT_EQ((*checks)[0].path, kData + "/bad_l2_resident_kind.yaml");
  auto none = ListMachineFiles(kData + "/nope");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
}

TEST(MachinePaths, BundledDirAndNameResolution) {
  unsetenv("DLSIM_MACHINES_DIR");
  EXPECT_EQ(BundledMachinesDir(), kBundled);
  EXPECT_EQ(ResolveMachinePath("h100"), kBundled + "/h100.yaml");
  EXPECT_EQ(ResolveMachinePath("some/dir/x.yaml"), "some/dir/x.yaml");
  EXPECT_EQ(ResolveMachinePath("x.yaml"), "x.yaml");
  setenv("DLSIM_MACHINES_DIR", kData.c_str(), 1);
  EXPECT_EQ(BundledMachinesDir(), kData);
  EXPECT_EQ(ResolveMachinePath("minimal"), kData + "/minimal.yaml");
  auto m = LoadMachineByName("minimal");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  unsetenv("DLSIM_MACHINES_DIR");
}

}  // namespace
}  // namespace dlsim
