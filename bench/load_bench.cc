// Memory under load (issue 7): estimating a 10,000-node graph (inference and
// training) and a sweep of 100,000 machine variants must each stay within
// 2 GiB. Prints wall time and peak RSS after each step; the figures go to
// docs/reliability.md. Like every benchmark it never fails on the figures.
// Usage: load_bench [--nodes N] [--variants-per-axis K] [--threads T]
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/estimate/sweep.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/model/onnx_import.h"

namespace {

using dlsim::bench::NowS;
using dlsim::bench::PeakRssMib;

void AddNode(onnx::GraphProto* g, const std::string& op, const std::string& name,
             const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& in : inputs) n->add_input(in);
  n->add_output(output);
}

void AddWeight(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  // No data: dlsim needs initializer dims only; this keeps the file small.
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = t->add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
}

// A residual MLP of `nodes` nodes: blocks of MatMul -> Add(bias) -> Relu ->
// Add(residual), hidden size 1024, input [batch, 1024].
std::string ResidualMlp(int nodes) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("residual_mlp");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  tt->mutable_shape()->add_dim()->set_dim_value(1024);
  std::string h = "x";
  for (int b = 0; b < nodes / 4; ++b) {
    const std::string s = std::to_string(b);
    AddWeight(g, "w" + s, {1024, 1024});
    AddWeight(g, "b" + s, {1024});
    AddNode(g, "MatMul", "mm" + s, {h, "w" + s}, "mm" + s);
    AddNode(g, "Add", "bias" + s, {"mm" + s, "b" + s}, "bias" + s);
    AddNode(g, "Relu", "relu" + s, {"bias" + s}, "relu" + s);
    AddNode(g, "Add", "res" + s, {"relu" + s, h}, "res" + s);
    h = "res" + s;
  }
  g->add_output()->set_name(h);
  return model.SerializeAsString();
}

int EstimateLargeGraph(int nodes, const dlsim::CostModel& cost) {
  const std::string bytes = ResidualMlp(nodes);
  for (bool training : {false, true}) {
    const double t0 = NowS();
    dlsim::ImportOptions io;
    io.batch = 64;
    auto graph = dlsim::LoadOnnxModelFromBytes(bytes, "/tmp/load_bench/residual_mlp.onnx", io);
    if (!graph.ok()) return std::fprintf(stderr, "%s\n", graph.status().ToString().c_str()), 1;
    const double t1 = NowS();
    dlsim::EstimateOptions eo;
    eo.lowering.training = training;
    auto est = dlsim::EstimateModel(*graph, cost, eo);
    if (!est.ok()) return std::fprintf(stderr, "%s\n", est.status().ToString().c_str()), 1;
    std::printf("graph  %zu nodes (%zu B of ONNX), %s: import %.2f s, estimate %.2f s, "
                "peak RSS %.1f MiB\n",
                graph->nodes.size(), bytes.size(), training ? "training" : "inference", t1 - t0,
                NowS() - t1, PeakRssMib());
  }
  return 0;
}

dlsim::Workload Synthetic(const std::string& name, int64_t batch) {
  dlsim::Workload w;
  w.name = name;
  w.model = dlsim::ModelRef{};  // never loaded: the step time is a stub
  w.batch = batch;
  w.dataset.train_samples = 1281167;
  w.epochs = 90;
  w.gpus_per_unit = 8;
  return w;
}

dlsim::Result<dlsim::StepEstimate> Stub(const dlsim::Workload& w, const dlsim::Machine& m) {
  const auto& d = m.device;
  return dlsim::PlainStep(w.batch * (1e9 / d.EffectiveMemoryBw() + 1e12 / d.peak_flops.bf16_matrix +
                                     1e9 / d.peak_flops.fp32_vector) + 300 * m.host.dispatch_s);
}

std::string Values(const char* prefix, int n, double step) {
  std::string s = prefix;
  for (int i = 0; i < n; ++i) s += (i ? ",x" : "x") + std::to_string(1 + i * step);
  return s;
}

std::string Counts(const char* prefix, int n) {
  std::string s = prefix;
  for (int i = 1; i <= n; ++i) s += (i > 1 ? "," : "") + std::to_string(i);
  return s;
}

// K^5 variants (K = 10: 100,000) x 3 workloads, with the CSV.
int LargeSweep(int k, const dlsim::Machine& base, int threads) {
  auto grid = dlsim::ParseSweepGrid({Values("memory_bw=", k, 0.25), Values("matrix_peak=", k, 0.5),
                                     Values("vector_peak=", k, 0.5), Values("dispatch=", k, 0.1),
                                     Counts("nodes=", k)});
  if (!grid.ok()) return std::fprintf(stderr, "%s\n", grid.status().message().c_str()), 1;
  dlsim::SweepOptions options;
  options.threads = threads;
  const std::vector<dlsim::Workload> workloads = {Synthetic("a", 64), Synthetic("b", 128),
                                                  Synthetic("c", 256)};
  const double t0 = NowS();
  auto r = dlsim::RunSweep(workloads, base, *grid, Stub, options);
  if (!r.ok()) return std::fprintf(stderr, "%s\n", r.status().message().c_str()), 1;
  const double t1 = NowS();
  const size_t csv_bytes = dlsim::SweepCsv(*grid, *r).size();
  std::printf("sweep  %zu variants x %zu workloads: %.2f s, csv %.2f s (%.1f MiB), "
              "peak RSS %.1f MiB\n",
              r->variants.size(), workloads.size(), t1 - t0, NowS() - t1, csv_bytes / 1048576.0,
              PeakRssMib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 10000, k = 10, threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--variants-per-axis")) k = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
  }
  auto machine = dlsim::LoadMachineByName("h100");
  if (!machine.ok()) return std::fprintf(stderr, "%s\n", machine.status().ToString().c_str()), 1;
  auto cost = dlsim::CostModel::ForMachine(*machine);
  if (!cost.ok()) return std::fprintf(stderr, "%s\n", cost.status().ToString().c_str()), 1;
  std::printf("start  peak RSS %.1f MiB (h100 machine and its cost model opened)\n",
              PeakRssMib());
  int rc = EstimateLargeGraph(nodes, *cost);
  rc |= LargeSweep(k, *machine, threads);
  std::printf("limit  2048 MiB: %s\n", PeakRssMib() <= 2048 ? "within" : "EXCEEDED");
  return rc;
}
