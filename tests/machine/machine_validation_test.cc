// Validation of machine YAML text: every bad value is an error naming the
// file and the dotted field.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "dlsim/machine/machine_io.h"
#include "dlsim/kernel/kernel_call.h"

namespace dlsim {
namespace {

const char* kFile = "machines/x.yaml";

// A valid machine; tests replace one line of it.
const std::string kBase = R"(name: x
device:
  name: Test GPU
  compute_capability: "8.0"
  sm_count: 10
  boost_clock_mhz: 1500
  peak_tflops:
    fp32_vector: 10
    fp16_matrix: 100
  memory_gib: 16
  memory_bw_gbs: 500
  l2_mib: 4
host:
  dispatch_us: 8
node:
  gpus_per_node: 4
  scale_up: {kind: nvlink, bw_gbs_per_direction: 100, efficiency: 0.8}
system:
  nodes: 2
  tiers:
    - {name: leaf, kind: ib, bw_gbs_per_direction: 25}
)";

std::string With(const std::string& from, const std::string& to) {
  std::string text = kBase;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The message of loading `text`, which must fail with kInvalidArgument.
std::string ErrorOf(const std::string& text) {
  auto m = LoadMachineFromString(text, kFile);
  EXPECT_FALSE(m.ok());
  if (m.ok()) return "";
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument) << m.status().message();
  return m.status().message();
}

TEST(MachineValidation, BaseIsValid) {
  auto m = LoadMachineFromString(kBase, kFile);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->TotalGpus(), 8);
  EXPECT_DOUBLE_EQ(m->node.scale_up.efficiency, 0.8);
  EXPECT_DOUBLE_EQ(m->system.tiers[0].link.efficiency, 1.0);
}

TEST(MachineValidation, MissingRequiredField) {
  EXPECT_EQ(ErrorOf(With("  memory_bw_gbs: 500\n", "")),
            "machines/x.yaml: device.memory_bw_gbs: required field is missing "
            "(a positive number)");
  EXPECT_EQ(ErrorOf(With("    fp32_vector: 10\n", "")),
            "machines/x.yaml: device.peak_tflops.fp32_vector: required field is missing "
            "(a positive number)");
  EXPECT_EQ(ErrorOf(With("name: x\n", "")),
            "machines/x.yaml: name: required field is missing (a non-empty string)");
}

TEST(MachineValidation, NonNumericNegativeZeroNanInf) {
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: abc")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got 'abc'");
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: -500")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got '-500'");
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: 0")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got '0'");
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: .nan")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got '.nan'");
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: nan")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got 'nan'");
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: .inf")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got '.inf'");
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: 1e999")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got '1e999'");
}

TEST(MachineValidation, WrongTypes) {
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: \"500\"")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got '500'");
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: [500]")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got a sequence");
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs:")),
            "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got null (empty)");
  EXPECT_EQ(ErrorOf(With("sm_count: 10", "sm_count: 10.5")),
            "machines/x.yaml: device.sm_count: must be a positive integer, got '10.5'");
  EXPECT_EQ(ErrorOf(With("  dispatch_us: 8\n", "  dispatch_us: {a: 1}\n")),
            "machines/x.yaml: host.dispatch_us: must be a number >= 0, got a mapping");
  EXPECT_EQ(ErrorOf(With("host:\n  dispatch_us: 8\n", "host: 4\n")),
            "machines/x.yaml: host: must be a mapping of keys, got '4'");
  EXPECT_EQ(ErrorOf(With("compute_capability: \"8.0\"", "compute_capability: eight")),
            "machines/x.yaml: device.compute_capability: must look like \"9.0\" (quote it), "
            "got 'eight'");
  EXPECT_NE(ErrorOf("- a\n- b\n").find("machines/x.yaml: the document must be a mapping"),
            std::string::npos);
}

TEST(MachineValidation, UnknownAndDuplicateKeys) {
  EXPECT_EQ(ErrorOf(With("  l2_mib: 4\n", "  l2_mib: 4\n  l2_mb: 4\n")).substr(0, 45),
            "machines/x.yaml: device.l2_mb: unknown key (a");
  EXPECT_EQ(ErrorOf(kBase + "colour: blue\n").substr(0, 38),
            "machines/x.yaml: colour: unknown key (");
  EXPECT_EQ(ErrorOf(With("efficiency: 0.8", "efficency: 0.8")).substr(0, 57),
            "machines/x.yaml: node.scale_up.efficency: unknown key (a ");
  EXPECT_EQ(ErrorOf(With("  l2_mib: 4\n", "  l2_mib: 4\n  l2_mib: 5\n")),
            "machines/x.yaml: device.l2_mib: duplicate key");
}

// Issue 24: a typo among the dispatch kinds is an error naming it, and every
// kernel kind (the ops module's names), with or without a dtype, is accepted.
TEST(MachineValidation, DispatchKindsAreChecked) {
  EXPECT_EQ(ErrorOf(With("  dispatch_us: 8\n",
                         "  dispatch_us: 8\n  dispatch_us_by_kind: {conv_fwdd: 12}\n"))
                .substr(0, 76),
            "machines/x.yaml: host.dispatch_us_by_kind.conv_fwdd: unknown kind (a typo? g");
  EXPECT_NE(ErrorOf(With("  dispatch_us: 8\n",
                         "  dispatch_us: 8\n  dispatch_us_by_kind: {gemm.fp17: 12}\n"))
                .find("host.dispatch_us_by_kind.gemm.fp17: unknown kind"),
            std::string::npos);
  std::string kinds;
  for (int k = 0; k <= static_cast<int>(KernelKind::kOptimizer); ++k) {
    const std::string name = KernelKindName(static_cast<KernelKind>(k));
    kinds += "    " + name + ": 1\n    " + name + ".fp16: 2\n";
  }
  kinds += "    backward: 3\n    none: 4\n    optimizer_per_tensor: 5\n    ddp_per_tensor: 6\n"
           "    rnn_per_kernel: 7\n";
  auto m = LoadMachineFromString(
      With("  dispatch_us: 8\n", "  dispatch_us: 8\n  dispatch_us_by_kind:\n" + kinds), kFile);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->host.dispatch_s_by_kind.size(), 2 * (static_cast<size_t>(KernelKind::kOptimizer) + 1) + 5);
  EXPECT_DOUBLE_EQ(m->host.dispatch_s_by_kind.at("conv_bwd_filter.fp16"), 2e-6);
  EXPECT_DOUBLE_EQ(m->host.dispatch_s_by_kind.at("rnn_per_kernel"), 7e-6);
}

// Issue 24: 60k keys under sources: (and under dispatch_us_by_kind) are read
// in linear time and the first bad one is named; 1e-300 is refused.
TEST(MachineValidation, LargeMappingsAndTinyNumbers) {
  std::string sources = "sources:\n";
  for (int i = 0; i < 60000; ++i) sources += "  device.k" + std::to_string(i) + ": cited\n";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ErrorOf(kBase + sources), "machines/x.yaml: sources.device.k0: names no field or section of this file");
  std::string kinds = "  dispatch_us: 8\n  dispatch_us_by_kind:\n";
  for (int i = 0; i < 60000; ++i) kinds += "    gemm" + std::to_string(i) + ": 1\n";
  EXPECT_EQ(ErrorOf(With("  dispatch_us: 8\n", kinds)).substr(0, 67),
            "machines/x.yaml: host.dispatch_us_by_kind.gemm0: unknown kind (a ty");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30);
  EXPECT_EQ(ErrorOf(With("l2_mib: 4", "l2_mib: 1e-300")),
            "machines/x.yaml: device.l2_mib: absurdly small value 1e-300 (the smallest accepted "
            "is 1e-06)");
  EXPECT_EQ(ErrorOf(With("dispatch_us: 8", "dispatch_us: 1e-300")),
            "machines/x.yaml: host.dispatch_us: absurdly small value 1e-300 (the smallest "
            "accepted is 1e-06, or 0)");
}

TEST(MachineValidation, RangesAndCrossChecks) {
  EXPECT_EQ(ErrorOf(With("memory_bw_gbs: 500", "memory_bw_gbs: 5e9")),
            "machines/x.yaml: device.memory_bw_gbs: absurd value 5000000000 (the limit is "
            "1000000)");
  EXPECT_EQ(ErrorOf(With("efficiency: 0.8", "efficiency: 1.5")),
            "machines/x.yaml: node.scale_up.efficiency: must be a fraction in (0, 1], got '1.5'");
  EXPECT_EQ(ErrorOf(With("{name: leaf, kind: ib, bw_gbs_per_direction: 25}",
                         "{name: leaf, kind: ib, bw_gbs_per_direction: -25}")),
            "machines/x.yaml: system.tiers[0].bw_gbs_per_direction: must be a positive "
            "number, got '-25'");
  EXPECT_EQ(ErrorOf(With("  boost_clock_mhz: 1500\n",
                         "  boost_clock_mhz: 1500\n  sustained_clock_mhz: 1600\n")),
            "machines/x.yaml: device.sustained_clock_mhz: exceeds boost_clock_mhz 1500");
  EXPECT_EQ(ErrorOf(With("  memory_gib: 16\n", "  memory_gib: 16\n  measured_memory_bw_gbs: 600\n")),
            "machines/x.yaml: device.measured_memory_bw_gbs: exceeds the datasheet "
            "memory_bw_gbs 500 by more than 5%");
  EXPECT_EQ(ErrorOf(With("  gpus_per_node: 4\n", "  gpus_per_node: 4\n  nics_per_node: 2\n")),
            "machines/x.yaml: node.nic: required section is missing (nics_per_node is given)");
}

TEST(MachineValidation, FabricAndNvls) {
  const std::string fat_tree =
      With("  nodes: 2\n", "  nodes: 2\n  fabric: {topology: fat_tree, switch_ports: 64, "
                           "oversubscription: 2, hop_latency_us: 0.5}\n");
  auto m = LoadMachineFromString(With("efficiency: 0.8}", "efficiency: 0.8}\n  nvls: true"),
                                 kFile);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->node.nvls);
  EXPECT_EQ(m->system.fabric.topology, FabricTopology::kFullBisection);
  auto f = LoadMachineFromString(fat_tree, kFile);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->system.fabric.topology, FabricTopology::kFatTree);
  EXPECT_EQ(f->system.fabric.switch_ports, 64);
  EXPECT_DOUBLE_EQ(f->system.fabric.oversubscription, 2);
  EXPECT_DOUBLE_EQ(f->system.fabric.hop_latency_s, 0.5e-6);
  EXPECT_EQ(f->system.fabric.DomainNodes(8), 4);
  EXPECT_EQ(ErrorOf(With("  nodes: 2\n", "  nodes: 2\n  fabric: {topology: fat_tree}\n")),
            "machines/x.yaml: system.fabric.switch_ports: required field is missing (a positive "
            "integer)");
  EXPECT_EQ(ErrorOf(With("  nodes: 2\n", "  nodes: 2\n  fabric: {topology: dragonfly, "
                                         "nodes_per_group: 8, switch_ports: 64}\n")),
            "machines/x.yaml: system.fabric.switch_ports: applies to fat_tree and "
            "rail_optimized only, not dragonfly");
  auto fat_tree_with = [&](const std::string& from, const std::string& to) {
    std::string text = fat_tree;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_EQ(ErrorOf(fat_tree_with("oversubscription: 2", "oversubscription: 0.5")),
            "machines/x.yaml: system.fabric.oversubscription: must be at least 1 (first tier's "
            "bandwidth over the upper tier's)");
  EXPECT_NE(ErrorOf(fat_tree_with("topology: fat_tree", "topology: torus"))
                .find("machines/x.yaml: system.fabric.topology:"),
            std::string::npos);
}

TEST(MachineValidation, SourcesAreCheckedAndMeasuredNumbersNeedOne) {
  const std::string measured = With("  memory_gib: 16\n",
                                    "  memory_gib: 16\n  measured_memory_bw_gbs: 450\n");
  EXPECT_NE(ErrorOf(measured).find("machines/x.yaml: device.measured_memory_bw_gbs: a measured "
                                   "value needs a sources entry"),
            std::string::npos);
  auto ok = LoadMachineFromString(
      measured + "sources:\n  device.measured_memory_bw_gbs: measured 2026-11, PyTorch 2.11\n",
      kFile);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_DOUBLE_EQ(ok->device.EffectiveMemoryBw(), 450e9);
  EXPECT_EQ(ErrorOf(kBase + "sources:\n  device.memroy_bw_gbs: datasheet\n"),
            "machines/x.yaml: sources.device.memroy_bw_gbs: names no field or section of this "
            "file");
}

TEST(MachineValidation, SyntaxErrorIsAParseErrorWithLine) {
  auto m = LoadMachineFromString("name: x\ndevice: {name: [\n", kFile);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kParseError);
  EXPECT_EQ(m.status().message().rfind("machines/x.yaml:", 0), 0u) << m.status().message();
}

}  // namespace
}  // namespace dlsim

namespace dlsim {
namespace {

// The hypothetical-GPU example of docs/machine-format.md, as if it sat in
// machines/.
TEST(MachineValidation, DocumentedHypotheticalGpuLoads) {
  const std::string text = R"(name: h100-next
description: Hypothetical H100 successor, 1.5x bandwidth, 1.25x tensor throughput
device:
  name: Hypothetical H100-next
  compute_capability: "9.0"
  sm_count: 132
  boost_clock_mhz: 1980
  peak_tflops:
    fp32_vector: 67
    tf32_matrix: 618
    bf16_matrix: 1237
    fp16_matrix: 1237
  memory_gib: 144
  memory_bw_gbs: 5000
  l2_mib: 50
node:
  gpus_per_node: 8
  scale_up: {kind: nvlink5, bw_gbs_per_direction: 900, efficiency: 0.8}
calibration:
  scale_from: h100.yaml          # no perf_db of its own
sources:
  device: hypothetical design point, not a product
)";
  const std::string dir = std::string(DLSIM_SOURCE_DIR) + "/machines";
  auto m = LoadMachineFromString(text, dir + "/h100-next.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->calibration.scale_from, dir + "/h100.yaml");
  EXPECT_TRUE(m->calibration.perf_db.empty());
  EXPECT_DOUBLE_EQ(m->device.peak_flops.bf16_matrix, 1237e12);
}

}  // namespace
}  // namespace dlsim
