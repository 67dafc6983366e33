// The P10-P90 band of an eager estimate: how far eager estimates fell from
// eager loops measured on the GPU's host, on models nobody fitted the host
// costs on.
#ifndef DLSIM_SRC_ESTIMATE_EAGER_BAND_H_
#define DLSIM_SRC_ESTIMATE_EAGER_BAND_H_

#include "dlsim/machine/machine.h"
#include "dlsim/util/mode.h"

namespace dlsim {

// Measured / estimated eager time at the P10 and P90 of the cases.
struct EagerBandRatios {
  double p10 = 1;
  double p90 = 1;
};

// By mode, for a host calibrated on the machine that ran the model
// (host.calibrated: `dlsim-calibrate host`) or not (a bundled or scaled
// profile, fitted on another host of the same kind). A host with no
// dispatch costs models no host: its band is the GPU's, {1, 1} here.
EagerBandRatios EagerBand(const HostSpec& host, Mode mode);

}  // namespace dlsim

#endif  // DLSIM_SRC_ESTIMATE_EAGER_BAND_H_
