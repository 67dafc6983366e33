#include "eager_band.h"

namespace dlsim {

// The generalisation corpus's calibration side (24 models, both exports,
// fp32 and fp16 inference, fp32 and bf16-autocast training steps; n = 96
// each) on the lent H100, its eager loops timed with `dlsim-calibrate host`
// before and after them in the same device call
// (bench/corpus/eager_eval.py --side cal): the P10 and P90 of measured /
// estimated with the mean of that call's two calibrations (calibrated) and
// with machines/h100.yaml's bundled host section, fitted on another host of
// the same kind (not calibrated). The test side checks them
// (docs/accuracy.md, "Eager time").
EagerBandRatios EagerBand(const HostSpec& host, Mode mode) {
  if (!host.Modelled()) return {};
  const bool training = mode == Mode::kTraining;
  if (host.calibrated) return training ? EagerBandRatios{0.976, 1.847} : EagerBandRatios{0.689, 1.713};
  return training ? EagerBandRatios{0.665, 1.336} : EagerBandRatios{0.787, 1.774};
}

}  // namespace dlsim
