// The scale-out fabric's shape (machine.h, FabricSpec).
#include <algorithm>

#include "dlsim/machine/machine.h"

namespace dlsim {

const char* FabricTopologyName(FabricTopology t) {
  switch (t) {
    case FabricTopology::kFullBisection: return "full_bisection";
    case FabricTopology::kFatTree: return "fat_tree";
    case FabricTopology::kRailOptimized: return "rail_optimized";
    case FabricTopology::kDragonfly: return "dragonfly";
  }
  return "?";
}

int FabricSpec::DomainNodes(int nics_per_node) const {
  switch (topology) {
    case FabricTopology::kFullBisection: return 0;
    case FabricTopology::kFatTree: return std::max(1, switch_ports / 2 / std::max(nics_per_node, 1));
    case FabricTopology::kRailOptimized: return std::max(1, switch_ports / 2);
    case FabricTopology::kDragonfly: return std::max(1, nodes_per_group);
  }
  return 0;
}

int FabricSpec::UpperTierHops() const {
  switch (topology) {
    case FabricTopology::kFullBisection: return 0;
    case FabricTopology::kFatTree:
    case FabricTopology::kRailOptimized: return 2;
    case FabricTopology::kDragonfly: return 3;
  }
  return 0;
}

}  // namespace dlsim
