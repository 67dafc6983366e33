#include "dlsim/kernel/layout.h"

namespace dlsim {

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kNone: return "-";
    case Layout::kNchw: return "nchw";
    case Layout::kNhwc: return "nhwc";
  }
  return "-";
}

std::optional<Layout> LayoutFromName(std::string_view name) {
  for (Layout l : {Layout::kNone, Layout::kNchw, Layout::kNhwc}) {
    if (name == LayoutName(l)) return l;
  }
  return std::nullopt;
}

}  // namespace dlsim
