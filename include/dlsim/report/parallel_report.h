// Output of `dlsim scale` (docs/parallel.md): one parallel training step or
// the layouts a search kept, as a table, JSON or CSV.
#ifndef DLSIM_REPORT_PARALLEL_REPORT_H_
#define DLSIM_REPORT_PARALLEL_REPORT_H_

#include <ostream>
#include <string>

#include "dlsim/distributed/layout_search.h"
#include "dlsim/machine/training_job.h"

namespace dlsim {

struct ScaleReportContext {
  std::string machine;      // the machine's name
  double train_tokens = 0;  // > 0: days to train them
  // --baseline: the same job on another machine (its step, fastest layout
  // with --search); the figure of merit is baseline step / this step.
  std::string baseline_machine;
  double baseline_step_s = 0;
};

std::string ParallelStepToJson(const ParallelStepEstimate& est, const ScaleReportContext& ctx);
void WriteParallelStepTable(std::ostream& out, const ParallelStepEstimate& est,
                            const ScaleReportContext& ctx);
std::string LayoutSearchToJson(const LayoutSearchResult& result, const ScaleReportContext& ctx);
void WriteLayoutSearchTable(std::ostream& out, const LayoutSearchResult& result,
                            const ScaleReportContext& ctx);
// `dlsim scale --calls`: one row per kernel call (part, phase, key, time, source).
// Each row names the job's model, `machine`, the microbatch (batch), dtype and
// mode (training) after the call's columns.
void WritePricedCallsCsv(std::ostream& out,
                         const std::vector<ParallelStepModel::PricedCall>& calls,
                         const TrainingJob& job, const std::string& machine);
// One row per layout (a single estimate is a search of one); the last column,
// mode, is always training.
void WriteLayoutCsv(std::ostream& out, const std::vector<ParallelStepEstimate>& layouts,
                    const ScaleReportContext& ctx);

}  // namespace dlsim

#endif  // DLSIM_REPORT_PARALLEL_REPORT_H_
