// Training-job YAML: docs/parallel.md, "The job file".
#include "dlsim/machine/training_job_io.h"

#include "yaml_fields.h"

namespace dlsim {

namespace {

using machine_internal::ErrorSink;
using machine_internal::Presence;
using machine_internal::YamlFields;

constexpr int64_t kMaxSize = int64_t{1} << 31;
constexpr double kMaxTokens = 1e16;

bool Flag(YamlFields& f, const std::string& key, bool fallback) {
  return f.Choice(key, {"true", "false"}, fallback ? "true" : "false") == "true";
}

void ParseModel(YamlFields& root, TransformerSpec* m) {
  YamlFields f = root.Map("model", Presence::kRequired);
  m->name = root.String("name", Presence::kOptional);
  m->layers = f.PositiveInt("layers", Presence::kRequired, kMaxSize);
  m->hidden = f.PositiveInt("hidden", Presence::kRequired, kMaxSize);
  m->heads = f.PositiveInt("heads", Presence::kRequired, kMaxSize);
  m->kv_heads = f.PositiveInt("kv_heads", Presence::kOptional, kMaxSize, m->heads);
  m->ffn_hidden = f.PositiveInt("ffn_hidden", Presence::kOptional, kMaxSize, 4 * m->hidden);
  m->gated_ffn = Flag(f, "gated_ffn", false);
  m->vocab = f.PositiveInt("vocab", Presence::kRequired, kMaxSize);
  m->seq_len = f.PositiveInt("seq_len", Presence::kRequired, kMaxSize);
  m->tied_embeddings = Flag(f, "tied_embeddings", true);
  m->attention = f.Choice("attention", {"flash", "unfused"}, "flash") == "unfused"
                     ? AttentionImpl::kUnfused
                     : AttentionImpl::kFlash;
  f.Finish();
  if (!f.sink()->ok() || !f.present()) return;
  Status s = ValidateTransformer(*m);
  if (!s.ok()) f.sink()->Add(s.WithContext(root.file()));
}

void ParsePlan(YamlFields& root, const TransformerSpec& m, ParallelPlan* p) {
  if (!root.Has("parallel")) {
    root.Allow("parallel");
    return;
  }
  YamlFields f = root.Map("parallel", Presence::kOptional);
  p->tensor = f.PositiveInt("tensor", Presence::kOptional, kMaxSize, 1);
  p->pipeline = f.PositiveInt("pipeline", Presence::kOptional, kMaxSize, 1);
  p->data = f.PositiveInt("data", Presence::kOptional, kMaxSize, 1);
  p->virtual_stages = f.PositiveInt("virtual_stages", Presence::kOptional, kMaxSize, 1);
  p->microbatch = f.PositiveInt("microbatch", Presence::kOptional, kMaxSize, 1);
  p->global_batch = f.PositiveInt("global_batch", Presence::kRequired, kMaxSize);
  p->sequence_parallel = Flag(f, "sequence_parallel", false);
  const std::string r = f.Choice("recompute", {"none", "selective", "full"}, "none");
  p->recompute = r == "full" ? Recompute::kFull
                 : r == "selective" ? Recompute::kSelective
                                    : Recompute::kNone;
  p->zero_stage = static_cast<int>(
      std::stoi(f.Choice("zero", {"0", "1", "2", "3"}, "0")));
  p->zero_shard = f.PositiveInt("zero_shard", Presence::kOptional, kMaxSize, 0);
  p->overlap_grad_reduce = Flag(f, "overlap_grad_reduce", false);
  p->dtype = f.Choice("dtype", {"bf16", "fp16"}, "bf16") == "fp16" ? DType::kFloat16
                                                                    : DType::kBFloat16;
  p->framework = f.Choice("framework", {"megatron", "pytorch"}, "megatron") == "pytorch"
                     ? TrainingFramework::kPyTorch
                     : TrainingFramework::kMegatron;
  f.Finish();
  if (!f.sink()->ok()) return;
  Status s = ValidatePlan(m, *p);
  if (!s.ok()) f.sink()->Add(s.WithContext(root.file()));
}

}  // namespace

Result<TrainingJob> LoadTrainingJobFromString(const std::string& yaml_text,
                                              const std::string& path_for_messages) {
  DLSIM_ASSIGN_OR_RETURN(YAML::Node doc, machine_internal::ParseYaml(yaml_text, path_for_messages));
  auto sink = std::make_shared<ErrorSink>();
  YamlFields root = YamlFields::Root(doc, path_for_messages, sink);
  TrainingJob job;
  job.source_path = path_for_messages;
  root.Allow("description");
  ParseModel(root, &job.model);
  if (sink->ok()) ParsePlan(root, job.model, &job.plan);
  job.train_tokens = root.NonNegative("train_tokens", 0, kMaxTokens);
  root.Finish();
  if (!sink->ok()) return sink->status();
  return job;
}

Result<TrainingJob> LoadTrainingJob(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, machine_internal::ReadTextFile(path, "training job"));
  return LoadTrainingJobFromString(text, path);
}

}  // namespace dlsim
