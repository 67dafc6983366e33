// What-if grids over machine fields for `dlsim sweep`: which fields can be
// changed, how "--grid memory_bw=x1,x1.5" is parsed, and how one point of the
// grid turns a base Machine into a variant. Pure data: no model loading.
#ifndef DLSIM_ESTIMATE_SWEEP_GRID_H_
#define DLSIM_ESTIMATE_SWEEP_GRID_H_

#include <cstddef>
#include <string>
#include <vector>

#include "dlsim/machine/machine.h"
#include "dlsim/util/status.h"

namespace dlsim {

// One value of a grid axis: a factor on the base machine's figure ("x1.5")
// or an absolute value in SI units ("4", "3.35e12").
struct SweepValue {
  bool multiplier = true;
  double value = 1;
  std::string text;  // as written, for names and CSV: "x1.5", "4"
};

// One swept field. `field` is the canonical dotted path ("device.memory_bw");
// `label` the short name used in variant names ("memory_bw").
struct SweepAxis {
  std::string field;
  std::string label;
  std::vector<SweepValue> values;
};

// The largest sweep: grid points x workloads (the rows of the result, about
// 0.7 KiB each in memory: bench/load_bench), so a sweep stays under 1 GiB.
// Larger grids are refused before anything is allocated.
inline constexpr size_t kMaxSweepRows = 1000000;

struct SweepGrid {
  std::vector<SweepAxis> axes;
  // Number of grid points: the product of the axes' value counts (1 when
  // there are no axes), saturating at SIZE_MAX.
  size_t VariantCount() const;
};

// The canonical fields a grid may change. A field may also be named by its
// last component ("memory_bw", "nodes"). What each changes:
//   device.memory_bw     memory_bw_bytes_per_s and measured_memory_bw_bytes_per_s
//   device.matrix_peak   tf32/fp16/bf16/fp8 matrix peaks (absolute: bf16 FLOP/s)
//   device.vector_peak   fp32/fp16/bf16 vector peaks (absolute: fp32 FLOP/s)
//   device.sm_count      SM count (integer)
//   node.gpus_per_node   GPUs per node (integer)
//   system.nodes         nodes (integer)
//   node.nic_bw          node.nic.bw_bytes_per_s
//   host.dispatch        dispatch_s and every dispatch_s_by_kind (absolute: dispatch_s)
// An absolute value for a scaled group sets the named figure and scales the
// rest of the group by the same factor.
const std::vector<std::string>& SupportedSweepFields();

// Parses "FIELD=V1,V2,...". kInvalidArgument naming the field and value for
// an unknown field, an empty or repeated value list entry, or a value that is
// not a positive finite number (integer fields need whole numbers).
Result<SweepAxis> ParseSweepAxis(const std::string& spec);
// Parses each spec; a field given twice, or a grid of more than
// kMaxSweepRows points, is an error.
Result<SweepGrid> ParseSweepGrid(const std::vector<std::string>& specs);

// Applies one value of `field` to `machine`. kInvalidArgument when the
// result is unusable (a zero base figure for an absolute value, an integer
// field that does not come out whole and >= 1).
Status ApplySweepValue(const std::string& field, const SweepValue& value, Machine* machine);

// Index of each axis' value for grid point `index` (row-major: the last axis
// varies fastest). index must be < grid.VariantCount().
std::vector<size_t> SweepPoint(const SweepGrid& grid, size_t index);

// "h200[memory_bw=x1.5,matrix_peak=x2]".
std::string VariantName(const std::string& base_name, const SweepGrid& grid,
                        const std::vector<size_t>& point);

// The base machine set up to be priced like a variant: when it has its own
// perf_db, perf_db is cleared and scale_from set to its own source file, so
// times measured on the base are scaled to the variant's device; a base that
// scales from a reference keeps it.
Machine AsSweepReference(const Machine& base);

// The variant at grid point `point`: AsSweepReference(base) with the grid's
// values applied and its VariantName.
Result<Machine> MakeVariant(const Machine& base, const SweepGrid& grid,
                            const std::vector<size_t>& point);

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_SWEEP_GRID_H_
