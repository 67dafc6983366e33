// Which cuDNN RNN algorithm PyTorch runs, from the key's parameters, and the
// fitted model's serial terms (src/perfdb/rnn_algo.h).
#include "rnn_algo.h"

#include <string>

#include "kernel/key_params.h"

namespace dlsim {
namespace {

// The PyTorch rule needs compute capability 8+ and at least 98 SMs; the key
// carries no compute capability, so the SM count stands in for both.
constexpr int64_t kPersistMinSms = 98;

struct RnnShape {
  std::string cell;
  std::string dtype;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, layers = 0, dirs = 0;
};

Result<RnnShape> ShapeOf(const ParsedKey& key) {
  if (!IsRnnKind(key.kind)) {
    return InvalidArgument(std::string("not an rnn key: kind ") + KernelKindName(key.kind));
  }
  const KeyParams p(key);
  RnnShape s;
  s.cell = p.Str("cell");
  s.dtype = key.dtype;
  DLSIM_ASSIGN_OR_RETURN(s.seq, p.Int("seq"));
  DLSIM_ASSIGN_OR_RETURN(s.batch, p.Int("batch"));
  DLSIM_ASSIGN_OR_RETURN(s.input, p.Int("input"));
  DLSIM_ASSIGN_OR_RETURN(s.hidden, p.Int("hidden"));
  DLSIM_ASSIGN_OR_RETURN(s.layers, p.Int("layers"));
  DLSIM_ASSIGN_OR_RETURN(s.dirs, p.Int("dirs"));
  return s;
}

bool IsPlainRnn(const std::string& cell) { return cell == "rnn_tanh" || cell == "rnn_relu"; }

bool UsesPersistSmallH(const RnnShape& s, bool forward) {
  if (IsPlainRnn(s.cell)) return s.hidden <= (forward ? 384 : 256);
  return s.hidden <= (forward ? 192 : 128);
}

bool UsesPersistStatic(const RnnShape& s, int64_t sm_count) {
  if (s.dtype != "fp16" || sm_count < kPersistMinSms) return false;
  const bool common = s.layers == 1 && s.dirs == 1 && s.hidden <= 1024 && s.hidden % 128 == 0 &&
                      s.input % 128 == 0;
  const bool batch_ok = s.batch % 8 == 0 && s.batch <= 128;
  if (!common || !batch_ok) return false;
  if (s.cell == "lstm") return true;
  return IsPlainRnn(s.cell) && (s.batch < 96 || s.hidden < 896);
}

RnnAlgo AlgoOf(const RnnShape& s, bool forward, int64_t sm_count) {
  if (UsesPersistSmallH(s, forward)) return RnnAlgo::kPersistSmallH;
  if (UsesPersistStatic(s, sm_count)) return RnnAlgo::kPersistStatic;
  return RnnAlgo::kStandard;
}

}  // namespace

const char* RnnAlgoName(RnnAlgo algo) {
  switch (algo) {
    case RnnAlgo::kStandard: return "standard";
    case RnnAlgo::kPersistSmallH: return "persist_small_h";
    case RnnAlgo::kPersistStatic: return "persist_static";
  }
  return "?";
}

Result<RnnAlgo> RnnAlgoOfKey(const ParsedKey& key, int64_t sm_count) {
  DLSIM_ASSIGN_OR_RETURN(RnnShape s, ShapeOf(key));
  return AlgoOf(s, key.kind == KernelKind::kRnnFwd, sm_count);
}

Result<std::vector<double>> RnnSerialTerms(const ParsedKey& key, int64_t sm_count) {
  DLSIM_ASSIGN_OR_RETURN(RnnShape s, ShapeOf(key));
  // The standard algorithm runs layer l's step t beside layer l+1's step
  // t-1: a critical path of seq + layers - 1 steps, while every layer's steps
  // cost work. Not when bidirectional: layer l+1's first step needs layer l's
  // backward direction, which ends last, so the layers run one after another.
  const double steps = double(s.seq) * s.layers;
  const double wavefront = s.dirs > 1 ? steps : double(s.seq) + double(s.layers) - 1;
  const double h = double(s.hidden);
  std::vector<double> terms(kRnnSerialTerms, 0.0);
  switch (AlgoOf(s, key.kind == KernelKind::kRnnFwd, sm_count)) {
    case RnnAlgo::kStandard:
      terms[0] = wavefront;
      terms[1] = wavefront * h;
      terms[2] = steps * h;
      break;
    case RnnAlgo::kPersistSmallH: {
      // One persistent kernel per layer and direction, in turn; each step
      // reads the layer's recurrent weights (gates * hidden^2) again.
      const double runs = double(s.layers) * s.dirs;
      const double weights = RnnGates(s.cell) * h * h;
      terms[3] = runs;
      terms[4] = runs * weights;
      terms[5] = steps * s.dirs;
      terms[6] = steps * s.dirs * weights;
      break;
    }
    case RnnAlgo::kPersistStatic:
      terms[7] = steps;
      terms[8] = steps * double(s.batch) * h;
      break;
  }
  return terms;
}

}  // namespace dlsim
