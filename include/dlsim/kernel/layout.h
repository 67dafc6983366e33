// The memory layout of a kernel call's image tensors: NCHW (PyTorch's
// contiguous), NHWC (channels_last), or none for calls whose work does not
// depend on one. Part of a kernel's key (`layout=nchw|nhwc|-`).
#ifndef DLSIM_KERNEL_LAYOUT_H_
#define DLSIM_KERNEL_LAYOUT_H_

#include <optional>
#include <string_view>

namespace dlsim {

enum class Layout { kNone, kNchw, kNhwc };

// "-", "nchw", "nhwc": the key's spelling (and --layout's, but for "-").
const char* LayoutName(Layout layout);
// The layout `name` names ("-" is kNone); nullopt for any other text.
std::optional<Layout> LayoutFromName(std::string_view name);

}  // namespace dlsim

#endif  // DLSIM_KERNEL_LAYOUT_H_
