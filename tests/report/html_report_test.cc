// The HTML report on a small hand-made estimate: sections, escaping of model
// names, exact figures, the charts, and nothing fetched from outside.
#include "dlsim/report/html_report.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace dlsim {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

LayerEstimate Layer(const std::string& name, const std::string& op, double time_s, double flops,
                    double bytes, CostSource source, Bound bound) {
  LayerEstimate l;
  l.name = name;
  l.op_type = op;
  KernelCall call;
  call.flops = flops;
  call.bytes_read = bytes;
  l.calls = {call};
  CallCost cost;
  cost.time_s = cost.p10_s = cost.p90_s = time_s;
  cost.source = source;
  cost.bound = bound;
  l.costs = {cost};
  l.fwd_s = time_s;
  l.flops = flops;
  l.bytes = bytes;
  return l;
}

// Four layers with kernels (2 ms together) and a view; the layer named
// <script> comes from a hostile ONNX file.
Estimate TinyEstimate() {
  Estimate e;
  e.model = "tiny";
  e.machine = "testgpu";
  e.batch = 8;
  e.precision = Precision::kFp32;
  e.mode = Mode::kInference;
  e.layers.push_back(
      Layer("conv1", "Conv", 1e-3, 2e12, 1e9, CostSource::kMeasured, Bound::kCompute));
  e.layers.push_back(Layer("<script>alert(1)</script>", "Relu", 0.25e-3, 1e8, 4e8,
                           CostSource::kRoofline, Bound::kMemory));
  LayerEstimate view;
  view.name = "flatten";
  view.op_type = "Reshape";
  e.layers.push_back(view);
  e.layers.push_back(Layer("fc", "Gemm", 0.5e-3, 4e11, 2e8, CostSource::kFitted, Bound::kCompute));
  e.layers.push_back(
      Layer("cat", "Concat", 0.25e-3, 0, 1e8, CostSource::kRoofline, Bound::kMemory));
  e.gpu_time_s = 2e-3;
  e.critical_path_s = 1.75e-3;
  e.critical_path = {"conv1", "<script>alert(1)</script>", "flatten", "fc"};
  e.eager_s = 3e-3;
  e.host_s = 2.5e-3;
  e.p10_s = 1.8e-3;
  e.p90_s = 2.4e-3;
  e.flops = 2.4001e12;
  e.bytes = 1.7e9;
  e.kernel_count = 4;
  e.parameter_count = 1234567;
  e.source_share = {{"measured", 0.5}, {"fitted", 0.25}, {"roofline", 0.25}};
  e.warnings = {"unknown op Foo <custom> priced as a copy"};
  return e;
}

Machine TestMachine() {
  Machine m;
  m.name = "testgpu";
  m.description = "a test GPU";
  m.source_path = "machines/testgpu.yaml";
  m.device.peak_flops.fp32_vector = 1e13;
  m.device.peak_flops.tf32_matrix = 1e14;
  m.device.peak_flops.fp16_matrix = 2e14;
  m.device.peak_flops.bf16_matrix = 2e14;
  m.device.memory_bw_bytes_per_s = 1e12;
  m.device.memory_bytes = 16e9;
  m.sources["device.peak_tflops"] = "datasheet & <whitepaper>";
  return m;
}

Analysis TinyAnalysis() {
  Analysis a;
  a.baseline = TinyEstimate();
  Advice fusion;
  fusion.kind = "fusion";
  fusion.title = "Fuse <conv> + relu";
  fusion.baseline_s = 2e-3;
  fusion.improved_s = 1.5e-3;
  for (int i = 0; i < 10; ++i)
    fusion.layers.push_back({"group" + std::to_string(i), "fused", 5e-5});
  a.advice.push_back(fusion);
  a.notes = {"layout: no convolution has both NCHW and NHWC measured"};
  return a;
}

TEST(HtmlReport, HasEverySectionButAdviceWithoutAnAnalysis) {
  const std::string html = EstimateToHtml(TinyEstimate(), TestMachine(), nullptr);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id :
       {"summary", "breakdown", "critical-path", "roofline", "sources", "warnings"}) {
    EXPECT_EQ(Count(html, std::string("<section id=\"") + id + "\">"), 1u) << id;
  }
  EXPECT_EQ(Count(html, "id=\"advice\""), 0u);
  EXPECT_EQ(Count(html, "</html>"), 1u);
}

TEST(HtmlReport, EscapesNamesFromTheModel) {
  const std::string html = EstimateToHtml(TinyEstimate(), TestMachine(), nullptr);
  EXPECT_EQ(Count(html, "<script"), 0u);
  // In SVG: the bar's label and the tooltips of bar, path strip and circle.
  EXPECT_EQ(Count(html, "&lt;script&gt;alert(1)&lt;/script&gt;"), 4u);
  // In HTML text, breakable after '/': the full table and the critical-path list.
  EXPECT_EQ(Count(html, "&lt;script&gt;alert(1)&lt;/<wbr>script&gt;"), 2u);
  EXPECT_NE(html.find("unknown op Foo &lt;custom&gt; priced as a copy"), std::string::npos);
  EXPECT_NE(html.find("datasheet &amp; &lt;whitepaper&gt;"), std::string::npos);
}

TEST(HtmlReport, SummaryHasTheExactFigures) {
  const std::string html = EstimateToHtml(TinyEstimate(), TestMachine(), nullptr);
  EXPECT_NE(html.find("<h1>tiny on testgpu</h1>"), std::string::npos);
  EXPECT_NE(html.find("<td>2.000 ms, 4000 samples/s</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>1.800 ms \u2013 2.400 ms</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>1.750 ms (87.5 % of one stream)</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>3.000 ms (host dispatch 2.500 ms: host-bound)</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>4 kernels, 1,234,567 parameters</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>8, fp32, inference</td>"), std::string::npos);
  EXPECT_NE(html.find("memory footprint (peak)"), std::string::npos) << "inference too";
}

TEST(HtmlReport, ChartsAreInlineSvgAndNothingIsFetched) {
  const std::string html = EstimateToHtml(TinyEstimate(), TestMachine(), nullptr);
  // Layers, op types, critical-path strip, roofline, pricing sources.
  EXPECT_EQ(Count(html, "<svg "), 5u);
  EXPECT_EQ(Count(html, "</svg>"), 5u);
  EXPECT_EQ(Count(html, "http"), Count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  for (const char* external : {" src=", "<link", "url(", "@import"}) {
    EXPECT_EQ(Count(html, external), 0u) << external;
  }
}

TEST(HtmlReport, BreakdownAndCriticalPathFigures) {
  const std::string html = EstimateToHtml(TinyEstimate(), TestMachine(), nullptr);
  EXPECT_NE(html.find("The 4 layers with the most GPU time, of 4 layers with kernels; together "
                      "2.000 ms (100.0 %)"),
            std::string::npos);
  EXPECT_NE(html.find(">1.000 ms (50.0 %)</text>"), std::string::npos) << "conv1's bar";
  EXPECT_NE(html.find(">1.000 ms (50.0 %), 1 layer</text>"), std::string::npos) << "Conv's bar";
  // The view on the path has no kernel and is not listed.
  EXPECT_NE(html.find("3 tasks with kernels lie on the path (1.750 ms); the rest of the kernel "
                      "time, 250.0 us, could overlap"),
            std::string::npos);
  EXPECT_EQ(Count(html, "<ol class=\"path\"><li>conv1 <span class=\"muted\">1.000 ms</span></li>"),
            1u);
  const std::string full_table = html.substr(html.find("<details>"));
  EXPECT_EQ(Count(full_table.substr(0, full_table.find("</details>")), "<tr><td"), 4u);
}

TEST(HtmlReport, RooflineHasTheLayersWithFlopsAndTheCeilings) {
  const std::string html = EstimateToHtml(TinyEstimate(), TestMachine(), nullptr);
  EXPECT_EQ(Count(html, "<circle "), 3u) << "Concat has no FLOPs";
  EXPECT_NE(html.find("3 of 4 layers with kernels are shown; the 1 without FLOPs"),
            std::string::npos);
  EXPECT_NE(html.find("Kernel time by bound: compute 75.0 %, memory 25.0 %."), std::string::npos);
  for (const char* label :
       {">FP32 10.00 TFLOP/s<", ">TF32 tensor 100.00 TFLOP/s<", ">FP16/BF16 tensor 200.00 TFLOP/s<",
        ">memory 1.00 TB/s (datasheet)<"}) {
    EXPECT_NE(html.find(label), std::string::npos) << label;
  }
  EXPECT_NE(html.find("<title>conv1 (Conv): 2000.0 FLOP/byte, 2.00 PFLOP/s, 1.000 ms, "
                      "compute-bound, measured</title>"),
            std::string::npos);
}

TEST(HtmlReport, SourcesShareAndFiles) {
  const std::string html = EstimateToHtml(TinyEstimate(), TestMachine(), nullptr);
  EXPECT_NE(
      html.find("<tr><td>measured</td><td class=\"num\">50.0 %</td><td class=\"num\">1</td></tr>"),
      std::string::npos);
  EXPECT_NE(
      html.find("<tr><td>roofline</td><td class=\"num\">25.0 %</td><td class=\"num\">2</td></tr>"),
      std::string::npos);
  EXPECT_NE(html.find("<td>machines/testgpu.yaml</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>none: calls are priced from the specs</td>"), std::string::npos);
  EXPECT_EQ(html.find("algorithm database"), std::string::npos) << "analyze only";
}

TEST(HtmlReport, AdviceRankedWithLayersAndNotes) {
  const Analysis a = TinyAnalysis();
  const std::string html = EstimateToHtml(a.baseline, TestMachine(), &a);
  EXPECT_EQ(Count(html, "<section id=\"advice\">"), 1u);
  EXPECT_EQ(Count(html, "<svg "), 6u) << "plus the chart of savings";
  EXPECT_NE(html.find("1. [fusion] Fuse &lt;conv&gt; + relu</h3>"), std::string::npos);
  EXPECT_NE(html.find("saves <b>500.0 us (25.0 %)</b>: 2.000 ms \u2192 1.500 ms"),
            std::string::npos);
  EXPECT_EQ(Count(html, "<td class=\"name\">group"), 8u) << "max_advice_layers";
  EXPECT_NE(html.find("and 2 more layers"), std::string::npos);
  EXPECT_NE(html.find("<li>layout: no convolution has both NCHW and NHWC measured</li>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>none</td>"), std::string::npos) << "algorithm database";
}

TEST(HtmlReport, AnalysisWithoutAdviceSaysSo) {
  Analysis a = TinyAnalysis();
  a.advice.clear();
  const std::string html = EstimateToHtml(a.baseline, TestMachine(), &a);
  EXPECT_NE(html.find("<p>No advice saves time.</p>"), std::string::npos);
  EXPECT_EQ(Count(html, "<svg "), 5u);
}

TEST(HtmlReport, TrainingShowsTheMemoryFootprint) {
  Estimate e = TinyEstimate();
  e.mode = Mode::kTraining;
  e.memory.weights_bytes = 4e9;
  e.memory.activations_bytes = 4e9;
  const std::string html = EstimateToHtml(e, TestMachine(), nullptr);
  EXPECT_NE(html.find("<td>8.00 GB of 16.00 GB device memory (50.0 %)</td>"), std::string::npos);
  EXPECT_NE(html.find("(forward and backward)"), std::string::npos);
}

TEST(HtmlReport, SameInputSameBytes) {
  const Analysis a = TinyAnalysis();
  EXPECT_EQ(EstimateToHtml(a.baseline, TestMachine(), &a),
            EstimateToHtml(a.baseline, TestMachine(), &a));
}

TEST(HtmlReport, EmptyEstimateStillRenders) {
  Estimate e;
  const std::string html = EstimateToHtml(e, Machine{}, nullptr);
  EXPECT_EQ(Count(html, "<svg "), 5u);
  EXPECT_FALSE(std::regex_search(html, std::regex("\\b(nan|inf)\\b"))) << "0 / 0 somewhere";
}

}  // namespace
}  // namespace dlsim
