// `dlsim-calibrate run` with a fake measurement source instead of the GPU:
// the same key collection, record store and measuring loop (run_loop.h),
// records in the real format. The kill-and-resume test (resume_test.cc)
// SIGKILLs it mid-run and runs it again.
//
//   dlsim-calibrate-fake-run OUT KEYS ALGOS DELAY_MS [TEAR_AFTER]
//
// Measures KEYS copy keys with ALGOS results each, sleeping DELAY_MS per
// key. With TEAR_AFTER = t, after storing t keys it writes the first one and
// a half records of the next key's group and then SIGKILLs itself: what a
// kill inside a key's write leaves behind.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "records.h"
#include "run_loop.h"

namespace {

using namespace dlcal;

DeviceInfo FakeDevice() {
  DeviceInfo d;
  d.name = "Fake GPU";
  d.cc = "9.0";
  d.sms = 132;
  d.clock_mhz = 1980;
  d.mem_bytes = 85e9;
  d.driver = "1.0", d.cuda = "13.0", d.cudnn = "9.14.0", d.cublas = "13.1.0";
  return d;
}

// Deterministic results: algorithm a of key elems=E takes E * 1e-6 * (a + 1) ms.
std::vector<AlgoResult> FakeResults(const Key& key, int algos) {
  std::vector<AlgoResult> results;
  const double base_ms = static_cast<double>(key.Int("elems")) * 1e-6;
  for (int a = 0; a < algos; ++a) {
    AlgoResult r;
    r.algo = "fake_algo_" + std::to_string(a);
    r.fastest = a == 0;
    r.has_times = true;
    r.stats = Summarize({base_ms * (a + 1)});
    r.reps = 1;
    r.launches_per_rep = 1;
    r.timing_mode = "graph";
    results.push_back(r);
  }
  return results;
}

void TearAndDie(const std::string& out, const Key& key, int algos) {
  const std::string lines =
      KeyRecords(FakeDevice(), key.text, FakeResults(key, algos), Status::Ok(), "t");
  const size_t first_end = lines.find('\n') + 1;
  const size_t second_end = lines.find('\n', first_end) + 1;
  const std::string part = lines.substr(0, first_end + (second_end - first_end) / 2);
  std::ofstream(out, std::ios::app | std::ios::binary) << part;
  std::raise(SIGKILL);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s OUT KEYS ALGOS DELAY_MS [TEAR_AFTER]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const int n_keys = std::atoi(argv[2]), algos = std::atoi(argv[3]), delay_ms = std::atoi(argv[4]);
  const int tear_after = argc > 5 ? std::atoi(argv[5]) : -1;
  std::vector<std::string> texts;
  for (int i = 1; i <= n_keys; ++i) {
    texts.push_back("copy op=cast elems=" + std::to_string(i * 1000) +
                    " dtype=fp32 math=fp32 layout=-");
  }
  std::vector<Key> keys;
  std::string error;
  RecordStore store;
  if (!CollectKeys({}, texts, {}, &keys, &error) || !store.Open(out, &error)) {
    std::fprintf(stderr, "fake-run: %s\n", error.c_str());
    return 1;
  }
  const std::vector<const Key*> todo = PendingKeys(keys, store);
  std::fprintf(stderr, "# cut %zu bytes, %zu records; %zu keys to measure\n",
               store.truncated_bytes(), store.dropped_records(), todo.size());
  int stored = 0;
  auto measure = [&](const Key& key) {
    if (stored++ == tear_after) TearAndDie(out, key, algos);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    KeyOutcome o;
    o.lines = KeyRecords(FakeDevice(), key.text, FakeResults(key, algos), Status::Ok(), "t");
    o.records = o.timed = static_cast<size_t>(algos);
    return o;
  };
  LoopOptions options;
  options.progress_seconds = 1e9;
  LoopTotals totals;
  if (!MeasureKeys(todo, measure, options, std::chrono::steady_clock::now(), &store, &totals,
                   &error)) {
    std::fprintf(stderr, "fake-run: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
