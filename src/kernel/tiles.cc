#include "tiles.h"

#include <algorithm>

#include "work.h"

namespace dlsim {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

int64_t GemmTiles(double m, double n) {
  return CeilDiv(static_cast<int64_t>(m), kWaveTileEdge) *
         CeilDiv(static_cast<int64_t>(n), kWaveTileEdge);
}

int64_t Waves(int64_t tiles, int64_t sm_count) {
  if (tiles <= 0) return 0;
  return sm_count <= 0 ? 1 : CeilDiv(tiles, sm_count);
}

double WaveEfficiency(int64_t tiles, int64_t sm_count) {
  if (tiles <= 0 || sm_count <= 0) return 1.0;
  return double(tiles) / (double(Waves(tiles, sm_count)) * double(sm_count));
}

int64_t CallOutputTiles(const KernelCall& call) {
  auto p = [&](const char* name) { return call.IntParam(name, 1); };
  switch (call.kind) {
    case KernelKind::kGemm:
      return GemmTiles(p("m"), p("n"));
    case KernelKind::kBatchedGemm:
      return GemmTiles(double(p("batch")) * p("m"), p("n"));
    case KernelKind::kConvFwd:
    case KernelKind::kConvBiasAct:
    case KernelKind::kConvBwdData:
    case KernelKind::kConvBwdFilter: {
      // Output pixels x output channels (an approximation for all three passes).
      const int64_t ho = std::max<int64_t>(
          1, ConvOutputSize(p("h"), p("r"), p("pad_h"), p("stride_h"), p("dil_h")));
      const int64_t wo = std::max<int64_t>(
          1, ConvOutputSize(p("w"), p("s"), p("pad_w"), p("stride_w"), p("dil_w")));
      return GemmTiles(double(p("n")) * ho * wo, p("k"));
    }
    case KernelKind::kAttentionFwd:
    case KernelKind::kAttentionBwd:
      // One thread block per 128 query rows of each (batch, head).
      return GemmTiles(double(p("batch")) * p("heads") * p("seq_q"), p("head_dim"));
    default:
      return 0;
  }
}

RowPass CallRowPass(const KernelCall& call) {
  if (call.kind != KernelKind::kGroupNormFwd && call.kind != KernelKind::kGroupNormBwd) return {};
  const int64_t n = call.IntParam("n", 1), c = call.IntParam("c", 1);
  RowPass pass;
  pass.blocks = call.kind == KernelKind::kGroupNormFwd ? n * call.IntParam("groups", 1) : n * c;
  pass.bytes = double(n) * c * call.IntParam("hw", 1) * DTypeBytes(call.dtype);
  return pass;
}

}  // namespace dlsim
