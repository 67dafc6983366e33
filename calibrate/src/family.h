// Which measuring family (families.h) times each kernel kind. Host-only, so
// the mapping is tested without a GPU (tests/host_test.cc).
#ifndef DLSIM_CALIBRATE_FAMILY_H_
#define DLSIM_CALIBRATE_FAMILY_H_

#include "dlsim/kernel/kernel_kind.h"

namespace dlcal {

enum class Family {
  kConv,      // MeasureConv / MeasureConvEngines (conv.cc, conv_engines.cc)
  kGemm,      // MeasureGemm (gemm.cc)
  kNormPool,  // MeasureNormPool (norm_pool.cc)
  kRnn,       // MeasureRnn (rnn.cc)
  kMemory,    // MeasureMemory (memory_ops.cc)
  kNone,      // not measured here: calibrate/torch_calibrate.py times it
};

Family FamilyOf(dlsim::KernelKind kind);
const char* FamilyName(Family family);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_FAMILY_H_
