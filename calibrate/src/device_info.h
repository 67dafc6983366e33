// Facts about the GPU and the software stack that every record carries
// (docs/kernel-keys.md, "Measurement records").
#ifndef DLSIM_CALIBRATE_DEVICE_INFO_H_
#define DLSIM_CALIBRATE_DEVICE_INFO_H_

#include <string>

#include "context.h"
#include "result.h"
#include "status.h"

namespace dlcal {

// Queries device `ctx.device` and the library versions (cuBLAS through
// ctx.cublas).
Status QueryDeviceInfo(const Context& ctx, DeviceInfo* info);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_DEVICE_INFO_H_
