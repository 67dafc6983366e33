// The bundled calibrations (calibration/*.sqlite) hold fitted models this
// build reads: a database refitted by an older build stores another fit
// format, and every estimate would then refit from the records, with a
// warning, on each run.
#include <gtest/gtest.h>

#include <string>

#include "dlsim/perfdb/perf_db.h"

namespace dlsim {
namespace {

void ExpectCurrentFits(const std::string& name) {
  const std::string path = std::string(DLSIM_SOURCE_DIR) + "/calibration/" + name;
  auto db = PerfDb::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto gpus = db->GpuNames();
  ASSERT_TRUE(gpus.ok()) << gpus.status().ToString();
  ASSERT_FALSE(gpus->empty()) << path;
  for (const std::string& gpu : *gpus) {
    auto fit = db->LoadFit(gpu);
    ASSERT_TRUE(fit.ok()) << path << ": " << fit.status().ToString() << " (run dlsim db fit --db "
                          << path << ")";
    EXPECT_TRUE(fit->has_value()) << path << ": no fit stored for " << gpu;
  }
}

TEST(BundledDbTest, H100FitsAreInThisBuildsFormat) { ExpectCurrentFits("h100.sqlite"); }

TEST(BundledDbTest, H200FitsAreInThisBuildsFormat) { ExpectCurrentFits("h200.sqlite"); }

}  // namespace
}  // namespace dlsim
