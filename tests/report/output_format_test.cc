#include "dlsim/report/output_format.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

constexpr OutputFormat kTable = OutputFormat::kTable, kJson = OutputFormat::kJson,
                       kCsv = OutputFormat::kCsv, kJsonl = OutputFormat::kJsonl;

TEST(OutputFormatTest, ParsesTheAllowedFormats) {
  EXPECT_EQ(*ParseOutputFormat("table", {kTable, kJson}), kTable);
  EXPECT_EQ(*ParseOutputFormat("json", {kTable, kJson}), kJson);
  EXPECT_EQ(*ParseOutputFormat("csv", {kTable, kJson, kCsv}), kCsv);
  EXPECT_EQ(*ParseOutputFormat("jsonl", {kJsonl, kCsv}), kJsonl);
}

TEST(OutputFormatTest, RefusesOthersNamingTheOptionAndValue) {
  Result<OutputFormat> r = ParseOutputFormat("xml", {kTable, kJson});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "--format must be table or json, got 'xml'");
  EXPECT_EQ(ParseOutputFormat("csv", {kTable, kJson, kCsv}).ok(), true);
  EXPECT_EQ(ParseOutputFormat("csv", {kTable, kJson}).status().message(),
            "--format must be table or json, got 'csv'");
  EXPECT_EQ(ParseOutputFormat("JSON", {kTable, kJson, kCsv}).status().message(),
            "--format must be table, json or csv, got 'JSON'");
}

TEST(OutputFormatTest, ListsInWords) {
  EXPECT_EQ(OutputFormatList({kTable}), "table");
  EXPECT_EQ(OutputFormatList({kTable, kCsv}), "table or csv");
  EXPECT_EQ(OutputFormatList({kTable, kJson, kCsv}), "table, json or csv");
  EXPECT_EQ(OutputFormatList({kJsonl, kCsv}), "jsonl or csv");
}

}  // namespace
}  // namespace dlsim
