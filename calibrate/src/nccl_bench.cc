#include "nccl_bench.h"

#include <cstdio>

#include "runner.h"

#ifndef DLSIM_CAL_HAVE_NCCL

namespace dlcal {
bool NcclAvailable() { return false; }
int NcclCommand(const NcclOptions&) {
  std::fprintf(stderr,
               "dlsim-calibrate nccl: this build has no NCCL (configure with "
               "-DNCCL_ROOT=<dir with include/nccl.h and lib/libnccl.so>)\n");
  return kExitError;
}
}  // namespace dlcal

#else

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <memory>
#include <vector>


namespace dlcal {
namespace {

#define NCCL_OK(expr)                                                              \
  do {                                                                             \
    ncclResult_t r_ = (expr);                                                      \
    if (r_ != ncclSuccess) {                                                       \
      std::fprintf(stderr, "dlsim-calibrate nccl: %s: %s\n", #expr, ncclGetErrorString(r_)); \
      return false;                                                                \
    }                                                                              \
  } while (0)
#define CUDA_OK(expr)                                                              \
  do {                                                                             \
    cudaError_t e_ = (expr);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "dlsim-calibrate nccl: %s: %s\n", #expr, cudaGetErrorString(e_)); \
      return false;                                                                \
    }                                                                              \
  } while (0)

enum class Op { kAllReduce, kReduceScatter, kAllGather };
const char* OpName(Op op) {
  return op == Op::kAllReduce ? "all_reduce" : op == Op::kReduceScatter ? "reduce_scatter"
                                                                        : "all_gather";
}
// nccl-tests' bus-bandwidth factor: how much of the message each link carries.
double BusFactor(Op op, int n) {
  return op == Op::kAllReduce ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n;
}

struct Rank {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
};

struct Fixture {
  std::vector<Rank> ranks;
  size_t max_bytes = 0;
  ~Fixture() {
    for (Rank& r : ranks) {
      cudaSetDevice(r.device);
      if (r.comm) ncclCommDestroy(r.comm);
      if (r.send) cudaFree(r.send);
      if (r.recv) cudaFree(r.recv);
      if (r.start) cudaEventDestroy(r.start);
      if (r.stop) cudaEventDestroy(r.stop);
      if (r.stream) cudaStreamDestroy(r.stream);
    }
  }
};

bool Setup(int gpus, size_t max_bytes, Fixture* f) {
  f->max_bytes = max_bytes;
  f->ranks.resize(gpus);
  std::vector<int> devs(gpus);
  std::vector<ncclComm_t> comms(gpus);
  for (int i = 0; i < gpus; ++i) devs[i] = f->ranks[i].device = i;
  NCCL_OK(ncclCommInitAll(comms.data(), gpus, devs.data()));
  for (int i = 0; i < gpus; ++i) {
    Rank& r = f->ranks[i];
    r.comm = comms[i];
    CUDA_OK(cudaSetDevice(r.device));
    CUDA_OK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&r.start));
    CUDA_OK(cudaEventCreate(&r.stop));
    CUDA_OK(cudaMalloc(&r.send, max_bytes));
    CUDA_OK(cudaMalloc(&r.recv, max_bytes));
    CUDA_OK(cudaMemset(r.send, 0x3c, max_bytes));  // 0x3c3c: fp16 ~1.06, never zero
  }
  return true;
}

// Launches `iters` collectives of `bytes` (fp16 elements) on every rank.
bool Launch(Fixture& f, Op op, size_t bytes, int iters) {
  const int n = static_cast<int>(f.ranks.size());
  const size_t count = bytes / 2;
  for (int it = 0; it < iters; ++it) {
    NCCL_OK(ncclGroupStart());
    for (Rank& r : f.ranks) {
      if (op == Op::kAllReduce) {
        NCCL_OK(ncclAllReduce(r.send, r.recv, count, ncclFloat16, ncclSum, r.comm, r.stream));
      } else if (op == Op::kReduceScatter) {
        NCCL_OK(ncclReduceScatter(r.send, r.recv, count / n, ncclFloat16, ncclSum, r.comm,
                                  r.stream));
      } else {
        NCCL_OK(ncclAllGather(r.send, r.recv, count / n, ncclFloat16, r.comm, r.stream));
      }
    }
    NCCL_OK(ncclGroupEnd());
  }
  return true;
}

// Seconds per collective: the slowest rank's events around `iters` launches.
bool TimeBatch(Fixture& f, Op op, size_t bytes, int iters, double* seconds) {
  for (Rank& r : f.ranks) {
    CUDA_OK(cudaSetDevice(r.device));
    CUDA_OK(cudaEventRecord(r.start, r.stream));
  }
  if (!Launch(f, op, bytes, iters)) return false;
  double worst_ms = 0;
  for (Rank& r : f.ranks) {
    CUDA_OK(cudaSetDevice(r.device));
    CUDA_OK(cudaEventRecord(r.stop, r.stream));
  }
  for (Rank& r : f.ranks) {
    CUDA_OK(cudaSetDevice(r.device));
    CUDA_OK(cudaEventSynchronize(r.stop));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, r.start, r.stop));
    worst_ms = std::max(worst_ms, static_cast<double>(ms));
  }
  *seconds = worst_ms / 1e3 / iters;
  return true;
}

struct Row {
  Op op;
  size_t bytes;
  double median_s, min_s, max_s;
};

bool Measure(Fixture& f, Op op, size_t bytes, int reps, Row* row) {
  double probe_s = 0;
  if (!TimeBatch(f, op, bytes, 2, &probe_s)) return false;  // warm-up
  if (!TimeBatch(f, op, bytes, 1, &probe_s)) return false;
  // Batches of ~20 ms (at least 5, at most 200 collectives).
  const int iters = std::clamp(static_cast<int>(0.02 / std::max(probe_s, 1e-7)), 5, 200);
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    if (!TimeBatch(f, op, bytes, iters, &t[i])) return false;
  }
  std::sort(t.begin(), t.end());
  *row = {op, bytes, t[t.size() / 2], t.front(), t.back()};
  return true;
}

std::string Today() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

}  // namespace

bool NcclAvailable() { return true; }

int NcclCommand(const NcclOptions& opts) {
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible < 1) {
    std::fprintf(stderr, "dlsim-calibrate nccl: no CUDA device\n");
    return kExitError;
  }
  const int gpus = opts.gpus > 0 ? opts.gpus : visible;
  if (gpus > visible) {
    std::fprintf(stderr, "dlsim-calibrate nccl: --gpus %d but only %d visible\n", gpus, visible);
    return kExitError;
  }
  std::ofstream out(opts.out);
  if (!out) {
    std::fprintf(stderr, "dlsim-calibrate nccl: cannot write %s\n", opts.out.c_str());
    return kExitError;
  }
  int version = 0;
  ncclGetVersion(&version);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  out << "# dlsim collective table (docs/parallel.md): NCCL " << version << ", " << gpus
      << " x " << prop.name << ", measured " << Today()
      << " by dlsim-calibrate nccl; fp16 sum; time per collective, median of " << opts.reps
      << " batches\n";
  out << "collective,gpus,bytes,time_us,min_us,max_us,algbw_gbs,busbw_gbs\n";
  Fixture f;
  if (!Setup(gpus, opts.max_bytes, &f)) return kExitError;
  const Op ops[] = {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather};
  for (Op op : ops) {
    for (size_t bytes = opts.min_bytes; bytes <= opts.max_bytes; bytes *= opts.factor) {
      if (bytes / 2 < static_cast<size_t>(gpus)) continue;
      Row row;
      if (!Measure(f, op, bytes, opts.reps, &row)) return kExitError;
      const double algbw = bytes / row.median_s / 1e9;
      char line[256];
      std::snprintf(line, sizeof line, "%s,%d,%zu,%.3f,%.3f,%.3f,%.3f,%.3f\n", OpName(op), gpus,
                    bytes, row.median_s * 1e6, row.min_s * 1e6, row.max_s * 1e6, algbw,
                    algbw * BusFactor(op, gpus));
      out << line << std::flush;
      std::fprintf(stderr, "%s", line);
    }
  }
  return out ? kExitOk : kExitError;
}

}  // namespace dlcal

#endif  // DLSIM_CAL_HAVE_NCCL
