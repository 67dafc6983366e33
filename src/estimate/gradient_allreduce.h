// Internal: the gradient all-reduce of a data-parallel training step,
// overlapped with backward on its own stream (docs/parallel.md).
#ifndef DLSIM_ESTIMATE_GRADIENT_ALLREDUCE_H_
#define DLSIM_ESTIMATE_GRADIENT_ALLREDUCE_H_

#include <vector>

#include "dlsim/engine/schedule.h"
#include "dlsim/estimate/data_parallel.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/machine/machine.h"
#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"
#include "dlsim/collective/collective.h"

namespace dlsim {

// Gradient bytes (fp32) that become ready with each node's backward: a
// parameter used by several nodes is ready after the first user's backward
// (the last to run).
std::vector<double> GradientBytesByNode(const Graph& graph);

// The library_call of the per-parameter-tensor bucket copies DDP adds.
inline constexpr const char* kDdpBucketCopy = "ddp_grad_bucket_copy";

// Adds to each node's backward, per parameter tensor it owns (see
// GradientBytesByNode), DistributedDataParallel's memory traffic: the
// gradient copied into its bucket, divided by the world size there, and
// copied back after the all-reduce (three read+write passes, one call).
void AddBucketCopies(const Graph& graph, LoweredGraph* lowered);

// Host cost of those copies in eager mode: the autograd hook and the two
// copies per tensor (host.dispatch_us_by_kind.ddp_per_tensor, else twice the
// elementwise dispatch).
double BucketCopyDispatchS(const HostSpec& host, const std::vector<KernelCall>& calls);

// Buckets `grad_bytes` in reverse node order, prices each bucket's
// all-reduce when its last gradient is ready (`ready_s[i]`: end of node i's
// backward) on one communication stream, and returns the step's extra time
// over `backward_end_s`. With ZeRO (options.zero_stage) a bucket is
// reduce-scattered instead, and the weights are all-gathered: after the
// optimizer step (stages 1, 2: all exposed), or for each bucket's backward
// on the same stream and in the forward, hidden by the forward's
// `forward_s` of compute (stage 3).
DataParallelStep PriceGradientAllReduce(const std::vector<double>& grad_bytes,
                                        const std::vector<double>& ready_s,
                                        double backward_end_s, const CollectiveModel& comm,
                                        const DataParallelOptions& options, double forward_s = 0);

// The all-reduce of a training step's gradients (`gradient_bytes` from
// GradientBytesByNode), from the step's one-stream schedule: `tasks` as the
// estimator built them (forward per node, then backward in reverse order;
// `task_device_s` their device times).
Result<DataParallelStep> PriceGradientAllReduceStep(const std::vector<double>& gradient_bytes,
                                                    const std::vector<double>& task_device_s,
                                                    const ScheduleResult& sched, const Machine& machine,
                                                    const DataParallelOptions& options);

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_GRADIENT_ALLREDUCE_H_
