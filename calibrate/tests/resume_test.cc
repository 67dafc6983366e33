// Kill-and-resume test of the calibration record writer (issue 7), GPU-free:
// runs dlsim-calibrate-fake-run (the real record store and measuring loop
// with a fake measurement source), SIGKILLs it mid-run, lets it kill itself
// inside a key's write, resumes it, and checks that every record is there
// exactly once and nothing stored before a kill was lost.
//
//   dlsim-calibrate-resume-test PATH_TO_FAKE_RUN
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "json.h"

namespace {

using dlcal::JsonGetInt;
using dlcal::JsonGetString;

int g_failures = 0;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

constexpr int kKeys = 30;
constexpr int kAlgos = 3;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t CountLines(const std::string& path) {
  const std::string text = ReadAll(path);
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

pid_t Spawn(const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// The complete lines of `text` whose key group is whole (kAlgos lines).
std::vector<std::string> WholeGroupLines(const std::string& text) {
  std::vector<std::string> lines;
  std::map<std::string, int> per_key;
  std::istringstream in(text);
  std::string line, key;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no '\n': torn
    lines.push_back(line);
    if (JsonGetString(line, "key", &key)) ++per_key[key];
  }
  std::vector<std::string> whole;
  for (const auto& l : lines) {
    if (JsonGetString(l, "key", &key) && per_key[key] == kAlgos) whole.push_back(l);
  }
  return whole;
}

void TestKillResume(const std::string& fake, const std::string& out) {
  std::remove(out.c_str());
  // 1. A slow run, SIGKILLed from outside once a few keys are stored.
  pid_t pid = Spawn({fake, out, std::to_string(kKeys), std::to_string(kAlgos), "40"});
  CHECK(pid > 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (CountLines(out) < 4 * kAlgos && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  const std::vector<std::string> after_kill = WholeGroupLines(ReadAll(out));
  CHECK(after_kill.size() >= 4 * kAlgos);
  CHECK(after_kill.size() < kKeys * kAlgos);
  std::fprintf(stderr, "# killed after %zu whole records\n", after_kill.size());

  // 2. A resumed run that dies inside the write of its fourth key's group.
  pid = Spawn({fake, out, std::to_string(kKeys), std::to_string(kAlgos), "0", "3"});
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  const std::string torn = ReadAll(out);
  CHECK(!torn.empty() && torn.back() != '\n');

  // 3. Resume to the end.
  pid = Spawn({fake, out, std::to_string(kKeys), std::to_string(kAlgos), "0"});
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string final_text = ReadAll(out);
  CHECK(!final_text.empty() && final_text.back() == '\n');

  // Every (key, algo) exactly once, in whole contiguous groups.
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<std::string> order;
  std::istringstream in(final_text);
  std::string line, key, algo;
  size_t lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    int64_t group = 0;
    CHECK(JsonGetString(line, "key", &key) && JsonGetString(line, "algo", &algo));
    CHECK(JsonGetInt(line, "key_records", &group) && group == kAlgos);
    CHECK(seen.insert({key, algo}).second);  // no duplicate
    if (order.empty() || order.back() != key) order.push_back(key);
  }
  CHECK(lines == kKeys * kAlgos);
  CHECK(seen.size() == kKeys * kAlgos);
  CHECK(order.size() == kKeys);  // each key's records are contiguous
  // Nothing stored before the first kill was lost or rewritten.
  std::string kept;
  for (const auto& l : after_kill) kept += l + "\n";
  CHECK(final_text.compare(0, kept.size(), kept) == 0);

  // 4. A run with nothing left to do changes nothing.
  pid = Spawn({fake, out, std::to_string(kKeys), std::to_string(kAlgos), "0"});
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(ReadAll(out) == final_text);
  std::remove(out.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PATH_TO_FAKE_RUN\n", argv[0]);
    return 2;
  }
  const std::string out = "/tmp/dlcal_resume_" + std::to_string(getpid()) + ".jsonl";
  for (int round = 0; round < 3; ++round) TestKillResume(argv[1], out);
  if (g_failures > 0) {
    std::fprintf(stderr, "%d checks failed\n", g_failures);
    return 1;
  }
  std::printf("resume test: all checks passed\n");
  return 0;
}
