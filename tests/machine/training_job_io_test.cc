#include "dlsim/machine/training_job_io.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

constexpr const char* kJob = R"(name: gpt
model:
  layers: 24
  hidden: 2048
  heads: 16
  vocab: 50304
  seq_len: 2048
parallel:
  tensor: 2
  pipeline: 2
  data: 2
  microbatch: 2
  global_batch: 32
  sequence_parallel: true
  recompute: selective
  zero: 1
  framework: pytorch
train_tokens: 1e9
)";

TEST(TrainingJobIoTest, ReadsEveryField) {
  auto job = LoadTrainingJobFromString(kJob, "job.yaml");
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->model.name, "gpt");
  EXPECT_EQ(job->model.kv_heads, 16);
  EXPECT_EQ(job->model.ffn_hidden, 8192);
  EXPECT_EQ(job->plan.gpus(), 8);
  EXPECT_EQ(job->plan.microbatches(), 8);
  EXPECT_TRUE(job->plan.sequence_parallel);
  EXPECT_EQ(job->plan.recompute, Recompute::kSelective);
  EXPECT_EQ(job->plan.zero_stage, 1);
  EXPECT_EQ(job->plan.framework, TrainingFramework::kPyTorch);
  EXPECT_DOUBLE_EQ(job->train_tokens, 1e9);
}

TEST(TrainingJobIoTest, UnknownKeyNamesTheField) {
  std::string text = kJob;
  text.replace(text.find("  zero: 1"), 9, "  zeros: 1");
  auto job = LoadTrainingJobFromString(text, "job.yaml");
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.status().message().find("job.yaml"), std::string::npos);
  EXPECT_NE(job.status().message().find("parallel.zeros"), std::string::npos)
      << job.status().message();
}

TEST(TrainingJobIoTest, LayoutThatDoesNotSuitTheModelNamesFileAndField) {
  std::string text = kJob;
  text.replace(text.find("  tensor: 2"), 11, "  tensor: 3");
  auto job = LoadTrainingJobFromString(text, "job.yaml");
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.status().message().find("job.yaml: parallel.tensor"), std::string::npos)
      << job.status().message();
}

TEST(TrainingJobIoTest, ReadsHybridShardingAndRefusesAShardThatDoesNotDivide) {
  std::string text = kJob;
  text.replace(text.find("  data: 2"), 9, "  data: 4");
  text.replace(text.find("  global_batch: 32"), 18, "  global_batch: 64");
  text.replace(text.find("  zero: 1"), 9, "  zero: 1\n  zero_shard: 2");
  auto job = LoadTrainingJobFromString(text, "job.yaml");
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->plan.zero_shard, 2);
  EXPECT_EQ(job->plan.shard_ranks(), 2);
  EXPECT_EQ(job->plan.shard_replicas(), 2);
  text.replace(text.find("  zero_shard: 2"), 15, "  zero_shard: 3");
  auto bad = LoadTrainingJobFromString(text, "job.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("job.yaml: parallel.zero_shard: must divide data "
                                        "parallelism 4, got 3"),
            std::string::npos)
      << bad.status().message();
  text.replace(text.find("  zero_shard: 3"), 15, "  zero_shard: 2");
  text.replace(text.find("  zero: 1"), 9, "  zero: 0");
  auto no_zero = LoadTrainingJobFromString(text, "job.yaml");
  ASSERT_FALSE(no_zero.ok());
  EXPECT_NE(no_zero.status().message().find("parallel.zero_shard: shards the ZeRO state"),
            std::string::npos)
      << no_zero.status().message();
}

TEST(TrainingJobIoTest, MissingModelFieldIsAnError) {
  auto job = LoadTrainingJobFromString("name: x\nmodel:\n  layers: 2\n", "job.yaml");
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.status().message().find("model.hidden"), std::string::npos)
      << job.status().message();
}

}  // namespace
}  // namespace dlsim
