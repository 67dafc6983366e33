// dlsim-calibrate: measures kernel keys on a GPU (docs/dlsim-calibrate.md).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "nccl_bench.h"
#include "runner.h"

namespace {

const char kUsage[] =
    "usage:\n"
    "  dlsim-calibrate run --out RECORDS.jsonl [--jobs FILE]... [--sweep NAME]... [--key KEY]...\n"
    "                      [--reps N] [--max-seconds S] [--key-budget-ms MS] [--shuffle]\n"
    "                      [--no-cupti] [--device N] [--progress-seconds S] [--profile]\n"
    "                      [--conv-api engines|legacy]\n"
    "  dlsim-calibrate probe --out MACHINE.yaml [--datasheet FILE.yaml] [--device N]\n"
    "  dlsim-calibrate keys [--jobs FILE]... [--sweep NAME]... [--key KEY]...\n"
    "  dlsim-calibrate nccl --out TABLE.csv [--gpus N] [--max-bytes B] [--reps N]\n"
    "  dlsim-calibrate host [--out HOST.yaml] [--json FILE] [--device N] [--quick] [--rounds R]\n"
    "\n"
    "run      measures every key of the job lists (one kernel key per line, '#' comments;\n"
    "         docs/kernel-keys.md) and sweeps (gemm, conv, memory, launch, all) that is not\n"
    "         yet in --out, appending one JSON record per (key, algorithm); resumable.\n"
    "         --reps N          timed regions per measurement (default 10)\n"
    "         --max-seconds S   stop before a key that would end after S seconds\n"
    "         --key-budget-ms   time budget of one measurement (default 1500)\n"
    "         --shuffle         measure in a fixed random order (spreads a budget over kinds)\n"
    "         --profile         print where each key's time goes on stderr (also\n"
    "                           DLSIM_CALIBRATE_PROFILE=1)\n"
    "         --conv-api API    legacy (default): every cudnnConvolution* algorithm; engines:\n"
    "                           the engine configurations of cuDNN's graph API (heuristics\n"
    "                           mode A, then the fallback list), which PyTorch benchmarks\n"
    "                           (conv_bias_act always uses legacy)\n"
    "         exit 3: the CUDA context broke; run the same command again to resume\n"
    "probe    measures copy bandwidth, GEMM rates (8192^3 fp32/tf32/fp16/bf16) and launch\n"
    "         latency; writes a machine YAML skeleton (docs/machine-format.md), flagging\n"
    "         datasheet values the measurements contradict\n"
    "keys     prints the keys of job lists and sweeps (no GPU needed)\n"
    "nccl     times NCCL all-reduce, reduce-scatter and all-gather (fp16) from 1 KiB to\n"
    "         --max-bytes (default 1 GiB, x4 steps) on the first N GPUs (default all);\n"
    "         writes the CSV collective table of docs/parallel.md (needs an NCCL build)\n"
    "host     measures what PyTorch's eager mode costs the CPU per op, by kernel kind (about\n"
    "         40 s, no model; runs calibrate/host_calibrate.py with python3, which needs\n"
    "         PyTorch with CUDA); writes a host profile for dlsim estimate --host FILE\n";

bool NeedValue(int i, int argc, const char* flag) {
  if (i + 1 < argc) return true;
  std::fprintf(stderr, "dlsim-calibrate: %s needs a value\n%s", flag, kUsage);
  return false;
}

bool ToNumber(const char* s, double* out) {
  char* end = nullptr;
  *out = std::strtod(s, &end);
  return end != s && *end == '\0';
}

}  // namespace

// `host`: the eager costs are the framework's, so PyTorch measures them; this
// hands the arguments to calibrate/host_calibrate.py ($DLSIM_HOST_CALIBRATE,
// else the source tree's copy) and never returns unless python3 cannot start.
int HostCommand(int argc, char** argv) {
  const char* env = std::getenv("DLSIM_HOST_CALIBRATE");
  const std::string script = env != nullptr && env[0] != '\0' ? env : DLSIM_HOST_CALIBRATE_SCRIPT;
  std::vector<char*> args = {const_cast<char*>("python3"), const_cast<char*>(script.c_str())};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execvp("python3", args.data());
  std::fprintf(stderr, "dlsim-calibrate host: cannot run python3 %s: %s\n", script.c_str(),
               std::strerror(errno));
  return 2;
}

int main(int argc, char** argv) {
  using namespace dlcal;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::printf("%s", kUsage);
    return argc < 2 ? kExitUsage : kExitOk;
  }
  if (!std::strcmp(argv[1], "host")) return HostCommand(argc, argv);
  const std::string cmd = argv[1];
  RunOptions run;
  ProbeOptions probe;
  NcclOptions nccl;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    double v = 0;
    auto number = [&](const char* flag) {
      if (!NeedValue(i, argc, flag)) return false;
      if (!ToNumber(argv[++i], &v)) {
        std::fprintf(stderr, "dlsim-calibrate: %s wants a number, got '%s'\n", flag, argv[i]);
        return false;
      }
      return true;
    };
    if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return kExitOk;
    } else if (a == "--jobs") {
      if (!NeedValue(i, argc, "--jobs")) return kExitUsage;
      run.job_files.push_back(argv[++i]);
    } else if (a == "--sweep") {
      if (!NeedValue(i, argc, "--sweep")) return kExitUsage;
      run.sweeps.push_back(argv[++i]);
    } else if (a == "--key") {
      if (!NeedValue(i, argc, "--key")) return kExitUsage;
      run.keys.push_back(argv[++i]);
    } else if (a == "--out") {
      if (!NeedValue(i, argc, "--out")) return kExitUsage;
      run.out = probe.out = nccl.out = argv[++i];
    } else if (a == "--datasheet") {
      if (!NeedValue(i, argc, "--datasheet")) return kExitUsage;
      probe.datasheet = argv[++i];
    } else if (a == "--reps") {
      if (!number("--reps") || v < 1) return kExitUsage;
      run.timing.reps = probe.timing.reps = nccl.reps = int(v);
    } else if (a == "--max-seconds") {
      if (!number("--max-seconds")) return kExitUsage;
      run.max_seconds = v;
    } else if (a == "--key-budget-ms") {
      if (!number("--key-budget-ms") || v <= 0) return kExitUsage;
      run.timing.budget_ms = probe.timing.budget_ms = v;
    } else if (a == "--progress-seconds") {
      if (!number("--progress-seconds")) return kExitUsage;
      run.progress_seconds = v;
    } else if (a == "--device") {
      if (!number("--device")) return kExitUsage;
      run.device = probe.device = int(v);
    } else if (a == "--gpus") {
      if (!number("--gpus") || v < 1) return kExitUsage;
      nccl.gpus = int(v);
    } else if (a == "--max-bytes") {
      if (!number("--max-bytes") || v < 1024) return kExitUsage;
      nccl.max_bytes = size_t(v);
    } else if (a == "--shuffle") {
      run.shuffle = true;
    } else if (a == "--no-cupti") {
      run.cupti = false;
    } else if (a == "--profile") {
      run.profile = true;
    } else if (a == "--conv-api") {
      if (!NeedValue(i, argc, "--conv-api")) return kExitUsage;
      const std::string api = argv[++i];
      if (api != "engines" && api != "legacy") {
        std::fprintf(stderr, "dlsim-calibrate: --conv-api wants engines or legacy, got '%s'\n",
                     api.c_str());
        return kExitUsage;
      }
      run.conv_engines = api == "engines";
    } else {
      std::fprintf(stderr, "dlsim-calibrate: unknown argument '%s'\n%s", a.c_str(), kUsage);
      return kExitUsage;
    }
  }
  if (cmd == "keys") return KeysCommand(run);
  if (cmd == "run") {
    if (run.out.empty()) {
      std::fprintf(stderr, "dlsim-calibrate run: --out is required\n%s", kUsage);
      return kExitUsage;
    }
    return RunCommand(run);
  }
  if (cmd == "probe") {
    if (probe.out.empty()) {
      std::fprintf(stderr, "dlsim-calibrate probe: --out is required\n%s", kUsage);
      return kExitUsage;
    }
    return ProbeCommand(probe);
  }
  if (cmd == "nccl") {
    if (nccl.out.empty()) {
      std::fprintf(stderr, "dlsim-calibrate nccl: --out is required\n%s", kUsage);
      return kExitUsage;
    }
    return NcclCommand(nccl);
  }
  std::fprintf(stderr, "dlsim-calibrate: unknown command '%s'\n%s", cmd.c_str(), kUsage);
  return kExitUsage;
}
