// Host-only tests of dlsim-calibrate: key parsing, job lists, JSON, the
// record store's resume logic, statistics, sweeps, budget and the machine
// skeleton. No GPU, no test framework: each CHECK prints file:line.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "json.h"
#include "key.h"
#include "machine_yaml.h"
#include "progress.h"
#include "record_store.h"
#include "records.h"
#include "run_loop.h"
#include "stats.h"
#include "sweeps.h"

namespace {

int g_failures = 0;

#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                         \
    }                                                                       \
  } while (0)
#define CHECK_NEAR(a, b, tol) CHECK(std::fabs((a) - (b)) <= (tol))

using namespace dlcal;

std::string TempPath(const std::string& name) {
  return "/tmp/dlcal_test_" + std::to_string(getpid()) + "_" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

const char kConv[] =
    "conv_fwd n=16 c=64 h=56 w=56 k=64 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 dil_h=1 "
    "dil_w=1 groups=1 dtype=fp32 math=tf32 layout=nchw";

void TestParseKey() {
  Key k;
  std::string err;
  CHECK(ParseKey(kConv, &k, &err));
  CHECK(k.kind == "conv_fwd");
  CHECK(k.Int("n") == 16 && k.Int("groups") == 1 && k.Int("missing", -7) == -7);
  CHECK(k.dtype == "fp32" && k.math == "tf32" && k.layout == "nchw");
  CHECK(k.text == kConv);
  CHECK(k.params.size() == 14 && k.params[0].first == "n");
  // Whitespace is normalised to single spaces.
  CHECK(ParseKey("  gemm   m=1 n=2 k=3 trans_a=0 trans_b=1 dtype=fp16 math=fp16 layout=-  ", &k,
                 &err));
  CHECK(k.text == "gemm m=1 n=2 k=3 trans_a=0 trans_b=1 dtype=fp16 math=fp16 layout=-");
  CHECK(k.Int("trans_b") == 1);
  CHECK(ParseKey("elementwise op=gelu elems=10 arity=1 dtype=bf16 math=bf16 layout=-", &k, &err));
  CHECK(k.Str("op") == "gelu");
  // Failures name the problem.
  CHECK(!ParseKey("", &k, &err));
  CHECK(!ParseKey("warp_drive x=1 dtype=fp32 math=fp32 layout=-", &k, &err));
  CHECK(err.find("warp_drive") != std::string::npos);
  CHECK(!ParseKey("gemm m=1 n=2 k=3 trans_a=0 trans_b=0 math=fp32 layout=-", &k, &err));
  CHECK(!ParseKey("gemm m=1 n=2 k=3 trans_a=0 trans_b=0 dtype=fp64 math=fp32 layout=-", &k, &err));
  CHECK(!ParseKey("gemm m=1 n=2 k=x trans_a=0 trans_b=0 dtype=fp32 math=fp32 layout=-", &k, &err));
  CHECK(err.find("'k'") != std::string::npos);
  CHECK(!ParseKey("gemm m=1 n=2 trans_a=0 trans_b=0 dtype=fp32 math=fp32 layout=-", &k, &err));
  CHECK(!ParseKey("gemm m=1 n=2 k=3 oops trans_a=0 trans_b=0 dtype=fp32 math=fp32 layout=-", &k,
                  &err));
  CHECK(!ParseKey("gemm m=1 n=2 k=3 trans_a=0 trans_b=0 dtype=fp32 layout=-", &k, &err));
  CHECK(KnownKinds().size() == 23);
  CHECK(!ParseKey("attention_fwd batch=1 heads=2 seq_q=8 seq_k=8 head_dim=8 mask=0 dtype=fp16 "
                  "math=fp16 layout=-", &k, &err));
  CHECK(err.find("torch_calibrate") != std::string::npos);
  CHECK(ParseKey(kConv, &k, &err) && k.family == Family::kConv);
}

// Every kernel kind has a measuring family here or is timed by
// torch_calibrate.py (kNone), and the kinds a job list may hold are exactly
// those with a family.
void TestFamilies() {
  size_t measured = 0;
  for (dlsim::KernelKind kind : dlsim::AllKernelKinds()) {
    const Family f = FamilyOf(kind);
    const bool torch_only =
        kind == dlsim::KernelKind::kAttentionFwd || kind == dlsim::KernelKind::kAttentionBwd ||
        kind == dlsim::KernelKind::kGroupNormFwd || kind == dlsim::KernelKind::kGroupNormBwd;
    CHECK((f == Family::kNone) == torch_only);
    measured += f != Family::kNone;
  }
  CHECK(measured == KnownKinds().size());
  CHECK(FamilyOf(dlsim::KernelKind::kLayerNormBwd) == Family::kMemory);
  CHECK(FamilyOf(dlsim::KernelKind::kLrnFwd) == Family::kNormPool);
}

void TestJobFile() {
  std::string path = TempPath("jobs.txt");
  WriteAll(path, std::string("# a comment\n\n") + kConv +
                     "\n  \n" + kConv + "\nbogus line\n"
                     "gemm m=1 n=2 k=3 trans_a=0 trans_b=0 dtype=fp32 math=fp32 layout=-\r\n");
  std::vector<Key> keys;
  std::vector<std::string> bad;
  std::string err;
  CHECK(ReadJobFile(path, &keys, &bad, &err));
  CHECK(keys.size() == 2);  // duplicate dropped, CR stripped
  CHECK(bad.size() == 1 && bad[0].find(":6:") != std::string::npos);
  // A second file adds only new keys.
  CHECK(ReadJobFile(path, &keys, &bad, &err));
  CHECK(keys.size() == 2);
  CHECK(!ReadJobFile(TempPath("absent.txt"), &keys, &bad, &err));
  std::remove(path.c_str());
}

void TestJson() {
  CHECK(JsonEscape("a\"b\\c\n\x01") == "a\\\"b\\\\c\\n\\u0001");
  CHECK(JsonNumber(NAN) == "null" && JsonNumber(INFINITY) == "null");
  CHECK(JsonNumber(0.5) == "0.5" && JsonNumber(3) == "3");
  JsonObject o;
  o.Str("key", "x \"y\"").Num("ms", 0.25).Int("n", -3).Bool("b", true).Raw("a", "[]");
  CHECK(o.Text() == "{\"key\": \"x \\\"y\\\"\", \"ms\": 0.25, \"n\": -3, \"b\": true, \"a\": []}");
  std::string v;
  CHECK(JsonGetString(o.Text(), "key", &v) && v == "x \"y\"");
  CHECK(!JsonGetString(o.Text(), "ms", &v));       // not a string
  CHECK(!JsonGetString(o.Text(), "absent", &v));
  // A value that looks like a field name is not a field.
  CHECK(JsonGetString("{\"algo\": \"key\", \"key\": \"k1\"}", "key", &v) && v == "k1");
  CHECK(JsonGetString("{\"kernels\": [{\"name\": \"key\"}], \"key\": \"k2\"}", "key", &v) &&
        v == "k2");
  CHECK(JsonGetString("{\"key\": \"a\\u0041\\t\"}", "key", &v) && v == "aA\t");
  CHECK(!JsonGetString("{\"key\": \"unterminated", "key", &v));
}

DeviceInfo TestDevice() {
  DeviceInfo d;
  d.name = "NVIDIA Test GPU";
  d.cc = "9.0";
  d.sms = 132;
  d.clock_mhz = 1980;
  d.mem_bytes = 85e9;
  d.driver = "13.0";
  d.cuda = "13.0";
  d.cudnn = "9.14.0";
  d.cublas = "13.0.0";
  return d;
}

void TestRecords() {
  CHECK(CudaVersionText(13000) == "13.0" && CudaVersionText(12040) == "12.4");
  CHECK(LibVersionText(91400) == "9.14.0" && LibVersionText(130102) == "13.1.2");
  AlgoResult r;
  r.algo = "CUDNN_CONVOLUTION_FWD_ALGO_GEMM";
  r.heuristic = true;
  r.fastest = true;
  r.has_times = true;
  r.stats = Summarize({1.0, 2.0, 3.0});
  r.reps = 3;
  r.launches_per_rep = 4;
  r.timing_mode = "graph";
  r.workspace_bytes = 1024;
  r.kernels = {{"sm90_xmma \"k\"", 0.5}};
  std::string line = RecordLine(TestDevice(), kConv, r, "2026-01-01T00:00:00Z");
  CHECK(line.back() == '\n' && line.find('\n') == line.size() - 1);
  CHECK(line.rfind("{\"schema\": 1, \"gpu_name\": \"NVIDIA Test GPU\"", 0) == 0);
  CHECK(line.find("\"median_ms\": 2,") != std::string::npos);
  CHECK(line.find("\"status\": \"ok\"") != std::string::npos);
  CHECK(line.find("\"heuristic\": true, \"fastest\": true") != std::string::npos);
  CHECK(line.find("\"kernels\": [{\"name\": \"sm90_xmma \\\"k\\\"\", \"ms\": 0.5}]") !=
        std::string::npos);
  std::string v;
  CHECK(JsonGetString(line, "key", &v) && v == kConv);
  CHECK(JsonGetString(line, "cudnn", &v) && v == "9.14.0");
  r.noisy = true;
  CHECK(RecordLine(TestDevice(), kConv, r, "t").find("\"status\": \"noisy\"") != std::string::npos);
  // Failures carry no times.
  AlgoResult f;
  f.status = Unsupported("workspace over 4 GiB");
  line = RecordLine(TestDevice(), kConv, f, "t");
  CHECK(line.find("median_ms") == std::string::npos && line.find("\"reps\"") == std::string::npos);
  CHECK(line.find("\"status\": \"unsupported\"") != std::string::npos);
  CHECK(line.find("\"error\": \"workspace over 4 GiB\"") != std::string::npos);
  std::string lines = KeyRecords(TestDevice(), kConv, {}, Failed("boom"), "t");
  CHECK(lines.find("\"algo\": \"-\"") != std::string::npos);
  CHECK(lines.find("\"status\": \"failed\"") != std::string::npos);
  lines = KeyRecords(TestDevice(), kConv, {r, f}, Status::Ok(), "t");
  CHECK(std::count(lines.begin(), lines.end(), '\n') == 2);
}

void TestRecordStore() {
  std::string path = TempPath("records.jsonl");
  std::remove(path.c_str());
  {
    RecordStore s;
    std::string err;
    CHECK(s.Open(path, &err));
    CHECK(s.done_keys() == 0 && s.truncated_bytes() == 0);
    CHECK(s.Append("{\"key\": \"k1\", \"algo\": \"a\"}\n{\"key\": \"k1\", \"algo\": \"b\"}\n", &err));
    CHECK(s.HasKey("k1") && !s.HasKey("k2"));
  }
  // A killed run leaves a torn line: it is cut off on the next open.
  {
    std::ofstream out(path, std::ios::app | std::ios::binary);
    out << "{\"key\": \"k2\", \"algo\": \"a\"}\n{\"key\": \"k3\", \"al";
  }
  {
    RecordStore s;
    std::string err;
    CHECK(s.Open(path, &err));
    CHECK(s.HasKey("k1") && s.HasKey("k2") && !s.HasKey("k3"));
    CHECK(s.existing_records() == 3);
    CHECK(s.truncated_bytes() == std::string("{\"key\": \"k3\", \"al").size());
    CHECK(s.Append("{\"key\": \"k3\", \"algo\": \"a\"}\n", &err));
  }
  std::string text = ReadAll(path);
  CHECK(text == "{\"key\": \"k1\", \"algo\": \"a\"}\n{\"key\": \"k1\", \"algo\": \"b\"}\n"
                "{\"key\": \"k2\", \"algo\": \"a\"}\n{\"key\": \"k3\", \"algo\": \"a\"}\n");
  {
    RecordStore s;
    std::string err;
    CHECK(s.Open(path, &err));
    CHECK(s.done_keys() == 3 && s.existing_records() == 4 && s.truncated_bytes() == 0);
  }
  // A file with only a torn line becomes empty.
  WriteAll(path, "{\"key\": \"x");
  {
    RecordStore s;
    std::string err;
    CHECK(s.Open(path, &err));
    CHECK(s.done_keys() == 0);
  }
  CHECK(ReadAll(path).empty());
  std::remove(path.c_str());
  RecordStore bad;
  std::string err;
  CHECK(!bad.Open("/nonexistent-dir/x.jsonl", &err) && !err.empty());
}

// A bad job list stops the run before it starts, naming file and line.
void TestCollectKeysRejectsBadJobLists() {
  const std::string path = TempPath("jobs.txt");
  WriteAll(path, std::string("# jobs\n") + kConv + "\nconv_fwd n=16 c=x\n\x01\xff garbage\n");
  std::vector<Key> keys;
  std::string err;
  CHECK(!CollectKeys({path}, {}, {}, &keys, &err));
  CHECK(err.find(path + ":3: kernel key 'conv_fwd n=16 c=x': missing dtype") != std::string::npos);
  CHECK(err.find(path + ":4: ") != std::string::npos);
  WriteAll(path, std::string(kConv) + "\n" + kConv + "\n");
  keys.clear();
  CHECK(CollectKeys({path}, {}, {}, &keys, &err) && keys.size() == 1);
  CHECK(!CollectKeys({"/nonexistent/jobs.txt"}, {}, {}, &keys, &err));
  CHECK(err.find("/nonexistent/jobs.txt") != std::string::npos);
  CHECK(!CollectKeys({}, {}, {"nosuch"}, &keys, &err) && err.find("'nosuch'") != std::string::npos);
  std::remove(path.c_str());
}

// A key group cut short by a kill inside its write is measured again.
void TestRecordStoreDropsPartialGroup() {
  const std::string path = TempPath("groups.jsonl");
  WriteAll(path,
           "{\"key\": \"k1\", \"algo\": \"a\", \"key_records\": 2}\n"
           "{\"key\": \"k1\", \"algo\": \"b\", \"key_records\": 2}\n"
           "{\"key\": \"k2\", \"algo\": \"a\", \"key_records\": 2}\n");
  RecordStore s;
  std::string err;
  CHECK(s.Open(path, &err));
  CHECK(s.HasKey("k1") && !s.HasKey("k2") && s.dropped_records() == 1);
  CHECK(ReadAll(path).find("k2") == std::string::npos);
  int64_t v = 0;
  CHECK(JsonGetInt("{\"a\": \"x\", \"n\": 12}", "n", &v) && v == 12);
  CHECK(!JsonGetInt("{\"n\": \"12\"}", "n", &v) && !JsonGetInt("{\"m\": 1}", "n", &v));
  std::remove(path.c_str());
}

void TestStats() {
  std::vector<double> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  CHECK_NEAR(Percentile(sorted, 0.5), 6, 1e-12);
  CHECK_NEAR(Percentile(sorted, 0.1), 2, 1e-12);
  CHECK_NEAR(Percentile(sorted, 0.9), 10, 1e-12);
  CHECK_NEAR(Percentile({1, 2}, 0.5), 1.5, 1e-12);
  Stats s = Summarize({5, 1, 3, 2, 4});
  CHECK(s.n == 5 && s.min_ms == 1 && s.max_ms == 5 && s.median_ms == 3);
  CHECK_NEAR(s.p10_ms, 1.4, 1e-12);
  CHECK(!TooWide(Summarize({1.0, 1.01, 0.99, 1.0}), 0.2));
  CHECK(TooWide(Summarize({1.0, 2.0, 1.0, 3.0, 1.0}), 0.2));
  CHECK(TooWide(Stats{}, 0.2));
  // A 5 us call: 200 launches make a 1 ms region, 10 regions fit the budget.
  TimingPlan p = PlanTiming(0.005, 1.0, 10, 3, 1500);
  CHECK(p.launches == 200 && p.reps == 10);
  // A 400 ms call: one launch per region, reps trimmed to the budget (3).
  p = PlanTiming(400, 1.0, 10, 3, 1500);
  CHECK(p.launches == 1 && p.reps == 3);
  // A 2 s call still gets min_reps.
  p = PlanTiming(2000, 1.0, 10, 3, 1500);
  CHECK(p.launches == 1 && p.reps == 3);
  p = PlanTiming(0, 1.0, 10, 3, 1500);
  CHECK(p.launches >= 1 && p.launches <= 100000);
  // Graph chunks: 256 one-kernel calls, 64 four-kernel calls, one call of 300 kernels.
  CHECK(GraphChunkCalls(1, 256) == 256);
  CHECK(GraphChunkCalls(4, 256) == 64);
  CHECK(GraphChunkCalls(300, 256) == 1);
  CHECK(GraphChunkCalls(0, 256) == 256);
  const double l2 = 50.0 * (1 << 20);
  CHECK(RotationCopies(200e6, l2, 1 << 20) == 1);
  CHECK(RotationCopies(l2, l2, 1 << 20) == 3);
  CHECK(RotationCopies(256, l2, 1 << 20) * 256.0 >= 3 * l2);
  CHECK(RotationCopies(1, l2, 1000) == 1000);
}

// The cycle of graphs and the regions that walk it (timing.cc, GraphChain).
void TestRegionPlan() {
  // 2,000 copies of a 0.1 ms call with 4 kernels a call (64 calls a graph):
  // regions of 10 calls are graphs of 10 calls; the cycle is all 2,000 copies
  // (200 graphs), of which one pass of 10 regions needs the first 10 graphs.
  GraphChainPlan c = PlanGraphChain(2000, 10, 64, 2000);
  CHECK(c.graph_calls == 10 && c.cycle_calls == 2000 && c.graphs.size() == 200);
  int next = 0;
  std::vector<Region> r = PlanRegions(c.graphs, &next, 10, 10);
  CHECK(r.size() == 10 && next == 10 && GraphsNeeded(r, 200) == 10);
  for (size_t i = 0; i < r.size(); ++i) {
    CHECK(r[i].first_graph == static_cast<int>(i) && r[i].graphs == 1 && r[i].calls == 10);
  }
  CHECK(MinRegionCalls(r) == 10);
  // A re-measure goes on where the first pass stopped.
  r = PlanRegions(c.graphs, &next, 10, 10);
  CHECK(r.front().first_graph == 10 && next == 20 && GraphsNeeded(r, 200) == 20);

  // More calls a region than a graph holds: graphs evened out (300 calls of
  // one kernel, graphs of at most 256 calls: two graphs of 150).
  c = PlanGraphChain(2000, 300, 256, 2000);
  CHECK(c.graph_calls == 150 && c.cycle_calls == 2000);
  CHECK(c.graphs.size() == 14 && c.graphs.back() == 50);  // 13 x 150 + 50
  int total = 0;
  for (int n : c.graphs) total += n;
  CHECK(total == 2000);
  // Regions wrap around the cycle, through its short last graph: 6 regions
  // of 2 graphs, then graph 12 (150) + 13 (50) + 0 (150) = 350 calls.
  next = 0;
  r = PlanRegions(c.graphs, &next, 7, 300);
  CHECK(r[5].first_graph == 10 && r[5].calls == 300);
  CHECK(r[6].first_graph == 12 && r[6].graphs == 3 && r[6].calls == 350 && next == 1);
  CHECK(GraphsNeeded(r, 14) == 14);  // wrapped: the whole cycle
  CHECK(MinRegionCalls(r) == 300);

  // Few copies: the cycle is a multiple of them holding a whole graph, so a
  // copy is read again only a whole number of rotations later (6 copies,
  // graphs of 250: a cycle of 252 = 42 x 6, graphs 250 + 2).
  c = PlanGraphChain(6, 2000, 256, 2000);
  CHECK(c.graph_calls == 250 && c.cycle_calls == 252 && c.cycle_calls % 6 == 0);
  CHECK(c.graphs.size() == 2 && c.graphs[0] == 250 && c.graphs[1] == 2);
  next = 0;
  r = PlanRegions(c.graphs, &next, 3, 2000);
  CHECK(r[0].calls == 2014 && r[0].graphs == 15);  // 8 x 250 + 7 x 2
  CHECK(r[1].first_graph == 1 && r[1].calls == 2016);  // 8 x 2 + 8 x 250
  // One copy (a working set over 2x L2): a cycle of one graph.
  c = PlanGraphChain(1, 20, 256, 2000);
  CHECK(c.cycle_calls == 20 && c.graphs.size() == 1);
  // More copies than the cycle may hold: a cycle of 2,000 calls.
  c = PlanGraphChain(67026, 50, 256, 2000);
  CHECK(c.cycle_calls == 2000 && c.graph_calls == 50 && c.graphs.size() == 40);
  next = 0;
  r = PlanRegions(c.graphs, &next, 10, 50);
  CHECK(GraphsNeeded(r, 40) == 10);  // 500 distinct copies, none read twice

  // Stream timing: regions of exactly min_calls calls.
  next = 0;
  r = PlanRegions({1}, &next, 4, 13);
  CHECK(r.size() == 4 && MinRegionCalls(r) == 13 && r[3].calls == 13);
  // Degenerate input.
  CHECK(PlanRegions({}, &next, 4, 13).empty() && PlanRegions({0, 0}, &next, 4, 13).empty());
  CHECK(GraphsNeeded({}, 10) == 0 && MinRegionCalls({}) == 0);

  // Per-call times of regions of different sizes; stats over regions.
  r.clear();
  r.push_back(Region{0, 1, 10});
  r.push_back(Region{1, 2, 14});
  r.push_back(Region{3, 1, 5});
  std::vector<double> t = PerCallMs({1.0, 1.4, 0.55}, r);
  CHECK(t.size() == 3);
  CHECK_NEAR(t[0], 0.1, 1e-12);
  CHECK_NEAR(t[1], 0.1, 1e-12);
  CHECK_NEAR(t[2], 0.11, 1e-12);
  Stats s = Summarize(t);
  CHECK_NEAR(s.median_ms, 0.1, 1e-12);
  CHECK_NEAR(s.min_ms, 0.1, 1e-12);
  CHECK_NEAR(s.max_ms, 0.11, 1e-12);
}

void TestSweeps() {
  std::set<std::string> all_names;
  for (const auto& name : SweepNames()) {
    std::vector<std::string> lines;
    CHECK(SweepKeys(name, &lines));
    CHECK(!lines.empty());
    std::vector<Key> keys;
    std::vector<std::string> bad;
    AddKeys(lines, name, &keys, &bad);
    CHECK(bad.empty());
    if (name == "gemm") CHECK(keys.size() >= 140 && keys.size() <= 170);
    if (name == "conv") CHECK(keys.size() == 60);
    if (name == "launch") CHECK(keys.size() == 19);
    if (name == "all") {
      for (const auto& k : keys) all_names.insert(k.kind);
    }
  }
  std::vector<std::string> none;
  CHECK(!SweepKeys("nope", &none));
  CHECK(all_names.count("gemm") && all_names.count("conv_fwd") && all_names.count("copy"));
}

void TestProgress() {
  CHECK(ProgressLine(0, 10, 3) == "# 0/10 keys, 3 s elapsed");
  CHECK(ProgressLine(5, 10, 50) == "# 5/10 keys (50%), 50 s elapsed, ETA 50 s");
  BudgetEstimator b(2.0);
  CHECK(b.Fits("gemm", 1e9, 0));          // no budget
  CHECK(b.Fits("gemm", 97, 100));         // first guess 2 s
  CHECK(!b.Fits("gemm", 99, 100));
  b.Add("conv_fwd", 10);
  b.Add("conv_fwd", 4);
  CHECK(b.Predict("conv_fwd") == 10);     // the slowest of its kind
  CHECK(b.Predict("gemm") == 7);          // the mean of all
  CHECK(!b.Fits("conv_fwd", 91, 100));
}

void TestMachineYaml() {
  auto ds = ParseDatasheet(
      "# H100 datasheet\nmemory_bw_gbs: 3350\nfp16_matrix_tflops: 989.5  # dense\n"
      "peak_tflops:\n  tf32_matrix: 494.5\nname: not a number\nsm_count: 132\n");
  CHECK(ds.size() == 4);
  CHECK(ds["memory_bw_gbs"] == 3350 && ds["fp16_matrix"] == 989.5 && ds["tf32_matrix"] == 494.5);
  CHECK(!Contradicts(3000, 3350) && Contradicts(3600, 3350) && Contradicts(1000, 3350));
  CHECK(!Contradicts(100, 0));
  ProbeFigures f;
  f.device_name = "NVIDIA H100 80GB HBM3";
  f.cc = "9.0";
  f.time_utc = "2026-01-01T00:00:00Z";
  f.software = "driver 13.0";
  f.sm_count = 132;
  f.boost_clock_mhz = 1980;
  f.memory_bytes = 79.1 * (1ull << 30);
  f.l2_bytes = 50 * (1 << 20);
  f.theoretical_bw_gbs = 3352;
  f.measured_bw_gbs = 3000;
  f.kernel_launch_us = 1.234;
  f.gemm_tflops = {{"fp32", 51}, {"tf32", 370}, {"fp16", 300}, {"bf16", 700}};
  std::string y = MachineYaml(f, ds, "h100-datasheet.yaml");
  CHECK(y.find("name: nvidia-h100-80gb-hbm3\n") != std::string::npos);
  CHECK(y.find("  compute_capability: \"9.0\"\n") != std::string::npos);
  CHECK(y.find("  memory_bw_gbs: 3350\n") != std::string::npos);
  CHECK(y.find("  measured_memory_bw_gbs: 3000\n") != std::string::npos);
  CHECK(y.find("  l2_mib: 50\n") != std::string::npos);
  CHECK(y.find("  memory_gib: 80") != std::string::npos);
  CHECK(y.find("  kernel_launch_us: 1.23\n") != std::string::npos);
  CHECK(y.find("    fp16_matrix: 989.5\n") != std::string::npos);
  CHECK(y.find("    fp32_vector: 51") != std::string::npos);  // measured, marked TODO
  // fp16 measured 300 < 989.5 / 2: flagged; tf32 370 vs 494.5 is fine.
  CHECK(y.find("# WARNING: datasheet fp16_matrix") != std::string::npos);
  CHECK(y.find("# WARNING: datasheet tf32_matrix") == std::string::npos);
  CHECK(y.find("# WARNING: datasheet memory_bw_gbs") == std::string::npos);
  f.measured_bw_gbs = 3600;  // above the datasheet by over 5%
  y = MachineYaml(f, ds, "h100-datasheet.yaml");
  CHECK(y.find("# WARNING: datasheet memory_bw_gbs") != std::string::npos);
  // Without a datasheet: no warnings, theoretical bandwidth, TODO notes.
  y = MachineYaml(f, {}, "");
  CHECK(y.find("WARNING") == std::string::npos);
  CHECK(y.find("  memory_bw_gbs: 3600") != std::string::npos);  // measured > theoretical
  CHECK(y.find("TODO") != std::string::npos);
}

}  // namespace

int main() {
  TestParseKey();
  TestFamilies();
  TestJobFile();
  TestJson();
  TestRecords();
  TestRecordStore();
  TestRecordStoreDropsPartialGroup();
  TestCollectKeysRejectsBadJobLists();
  TestStats();
  TestRegionPlan();
  TestSweeps();
  TestProgress();
  TestMachineYaml();
  if (g_failures) {
    std::fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("all host checks passed\n");
  return 0;
}
