#include "sweeps.h"

#include <cstdint>
#include <tuple>

namespace dlcal {
namespace {

std::string Gemm(int64_t m, int64_t n, int64_t k, int ta, int tb, const char* dtype,
                 const char* math) {
  return "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
         " trans_a=" + std::to_string(ta) + " trans_b=" + std::to_string(tb) + " dtype=" + dtype +
         " math=" + math + " layout=-";
}

std::string Batched(int64_t b, int64_t m, int64_t n, int64_t k, int ta, int tb,
                    const char* dtype, const char* math) {
  return "batched_gemm batch=" + std::to_string(b) + " m=" + std::to_string(m) +
         " n=" + std::to_string(n) + " k=" + std::to_string(k) + " trans_a=" +
         std::to_string(ta) + " trans_b=" + std::to_string(tb) + " dtype=" + dtype +
         " math=" + math + " layout=-";
}

// About 53 shapes per precision, 3 precisions: squares, skinny (small m, as
// in batch-size-limited layers), k sweeps, transposes, odd sizes from real
// models, attention-style batched GEMMs.
void GemmSweep(std::vector<std::string>* out) {
  const std::pair<const char*, const char*> precisions[] = {
      {"fp32", "fp32"}, {"fp32", "tf32"}, {"fp16", "fp16"}};
  for (const auto& [dt, math] : precisions) {
    for (int64_t s : {128, 256, 512, 1024, 2048, 4096, 8192, 1000, 3000}) {
      out->push_back(Gemm(s, s, s, 0, 0, dt, math));
    }
    for (int64_t m : {1, 8, 32, 128, 512}) {
      for (auto [n, k] : {std::pair<int64_t, int64_t>{1024, 1024}, {4096, 4096}, {4096, 1024},
                          {1024, 4096}}) {
        out->push_back(Gemm(m, n, k, 0, 1, dt, math));
      }
    }
    for (int64_t k : {64, 256, 16384}) out->push_back(Gemm(1024, 1024, k, 0, 0, dt, math));
    for (int64_t k : {64, 256}) out->push_back(Gemm(4096, 4096, k, 0, 0, dt, math));
    out->push_back(Gemm(1024, 1024, 1024, 0, 1, dt, math));
    out->push_back(Gemm(1024, 1024, 1024, 1, 0, dt, math));
    out->push_back(Gemm(1024, 1024, 1024, 1, 1, dt, math));
    out->push_back(Gemm(4096, 4096, 4096, 0, 1, dt, math));
    const std::tuple<int64_t, int64_t, int64_t> odd[] = {
        {6304, 768, 768},  {6304, 3072, 768}, {6304, 768, 3072}, {32, 1000, 2048},
        {16384, 1024, 1024}, {3072, 1024, 4096}, {100, 100, 100}, {777, 555, 333},
        {2048, 50257, 768}};
    for (auto [m, n, k] : odd) out->push_back(Gemm(m, n, k, 0, 1, dt, math));
    const std::tuple<int64_t, int64_t, int64_t, int64_t> batched[] = {
        {96, 128, 128, 64}, {192, 384, 384, 64}, {192, 384, 64, 384},
        {48, 512, 512, 64}, {96, 1024, 1024, 64}, {8, 4096, 4096, 128}};
    for (auto [b, m, n, k] : batched) out->push_back(Batched(b, m, n, k, 0, 1, dt, math));
  }
}

struct ConvShape {
  int n, c, h, w, k, r, s, pad, stride, groups;
};

std::string Conv(const char* kind, const ConvShape& v, const char* dtype, const char* math,
                 const char* layout) {
  auto i = [](int x) { return std::to_string(x); };
  return std::string(kind) + " n=" + i(v.n) + " c=" + i(v.c) + " h=" + i(v.h) + " w=" + i(v.w) +
         " k=" + i(v.k) + " r=" + i(v.r) + " s=" + i(v.s) + " pad_h=" + i(v.pad) +
         " pad_w=" + i(v.pad) + " stride_h=" + i(v.stride) + " stride_w=" + i(v.stride) +
         " dil_h=1 dil_w=1 groups=" + i(v.groups) + " dtype=" + dtype + " math=" + math +
         " layout=" + layout;
}

// 20 layer shapes typical of CNNs (ResNet-50 at batch 32, VGG, MobileNet
// depthwise/pointwise, a 1-D conv), each as tf32 NCHW forward, fp16 NHWC
// forward and tf32 NCHW backward-data: 60 keys.
void ConvSweep(std::vector<std::string>* out) {
  const ConvShape shapes[] = {
      {32, 3, 224, 224, 64, 7, 7, 3, 2, 1},    {32, 64, 56, 56, 64, 1, 1, 0, 1, 1},
      {32, 64, 56, 56, 64, 3, 3, 1, 1, 1},     {32, 64, 56, 56, 256, 1, 1, 0, 1, 1},
      {32, 256, 56, 56, 128, 1, 1, 0, 1, 1},   {32, 128, 28, 28, 128, 3, 3, 1, 1, 1},
      {32, 128, 56, 56, 128, 3, 3, 1, 2, 1},   {32, 512, 28, 28, 256, 1, 1, 0, 1, 1},
      {32, 256, 14, 14, 256, 3, 3, 1, 1, 1},   {32, 1024, 14, 14, 512, 1, 1, 0, 1, 1},
      {32, 512, 7, 7, 512, 3, 3, 1, 1, 1},     {32, 2048, 7, 7, 512, 1, 1, 0, 1, 1},
      {16, 64, 224, 224, 64, 3, 3, 1, 1, 1},   {16, 256, 56, 56, 256, 3, 3, 1, 1, 1},
      {16, 512, 28, 28, 512, 3, 3, 1, 1, 1},   {32, 32, 112, 112, 32, 3, 3, 1, 1, 32},
      {32, 144, 56, 56, 144, 3, 3, 1, 2, 144}, {32, 576, 14, 14, 576, 3, 3, 1, 1, 576},
      {32, 96, 56, 56, 24, 1, 1, 0, 1, 1},     {16, 256, 1, 4096, 256, 1, 3, 0, 1, 1},
  };
  for (const auto& s : shapes) {
    ConvShape v = s;
    if (v.h == 1) v.pad = 0;  // 1-D: h=1, r=1, no padding along h
    out->push_back(Conv("conv_fwd", v, "fp32", "tf32", "nchw"));
    out->push_back(Conv("conv_fwd", v, "fp16", "fp16", "nhwc"));
    out->push_back(Conv("conv_bwd_data", v, "fp32", "tf32", "nchw"));
  }
}

// Sizes 2^10 .. 2^28 elements (every other power of two).
void MemorySweep(std::vector<std::string>* out) {
  for (int p = 10; p <= 28; p += 2) {
    const int64_t n = int64_t(1) << p;
    const std::string e = std::to_string(n);
    for (const char* dt : {"fp32", "fp16"}) {
      const std::string tail = std::string(" dtype=") + dt + " math=" + dt + " layout=-";
      out->push_back("elementwise op=add elems=" + e + " arity=2" + tail);
      out->push_back("elementwise op=relu elems=" + e + " arity=1" + tail);
    }
    const std::string tail = " dtype=fp32 math=fp32 layout=-";
    out->push_back("reduction op=sum rows=1 cols=" + e + tail);
    out->push_back("reduction op=sum rows=" + std::to_string(n / 1024) + " cols=1024" + tail);
    out->push_back("copy op=copy elems=" + e + tail);
    out->push_back("copy op=transpose elems=" + e + tail);
  }
}

// Launch latency and transfer bandwidths.
void LaunchSweep(std::vector<std::string>* out) {
  const std::string tail = " dtype=fp32 math=fp32 layout=-";
  out->push_back("elementwise op=empty_kernel elems=0 arity=0" + tail);
  for (const char* dir : {"d2d", "h2d", "d2h"}) {
    for (int p = 8; p <= 28; p += 4) {
      out->push_back(std::string("copy op=") + dir + " elems=" + std::to_string(int64_t(1) << p) +
                     tail);
    }
  }
}

}  // namespace

const std::vector<std::string>& SweepNames() {
  static const std::vector<std::string> names = {"gemm", "conv", "memory", "launch", "all"};
  return names;
}

bool SweepKeys(const std::string& name, std::vector<std::string>* keys) {
  if (name == "gemm") GemmSweep(keys);
  else if (name == "conv") ConvSweep(keys);
  else if (name == "memory") MemorySweep(keys);
  else if (name == "launch") LaunchSweep(keys);
  else if (name == "all") {
    LaunchSweep(keys);
    MemorySweep(keys);
    GemmSweep(keys);
    ConvSweep(keys);
  } else {
    return false;
  }
  return true;
}

}  // namespace dlcal
