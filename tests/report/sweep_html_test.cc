// dlsim sweep --html: one self-contained page with the FOM per variant, the
// fields' sensitivity and the table, every name escaped.
#include "dlsim/report/sweep_report.h"

#include <gtest/gtest.h>

#include <string>

namespace dlsim {
namespace {

SweepResult Result() {
  SweepResult r;
  r.base_machine = "h100";
  r.workloads = {"resnet<50>"};
  r.base.h_rate = 10;
  r.base.h_rate_low = 8;
  r.base.h_rate_high = 12;
  SweepVariant a;
  a.name = "h100[memory_bw=x2]";
  a.h_rate = 15;
  a.h_rate_low = 12;
  a.h_rate_high = 18;
  a.fom = 1.5;
  a.source_share = {{"scaled", 1.0}};
  r.variants = {a};
  r.sensitivity = {{"device.memory_bw", {1.5}, 0.0}};
  return r;
}

SweepGrid Grid() {
  SweepGrid g;
  SweepAxis axis;
  axis.field = "device.memory_bw";
  SweepValue v;
  v.text = "x2";
  axis.values = {v};
  g.axes = {axis};
  return g;
}

TEST(SweepHtml, OnePageWithTheFomBandsSourcesAndSensitivity) {
  const std::string html = SweepToHtml(Grid(), Result());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 80);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_NE(html.find("resnet&lt;50&gt;"), std::string::npos);  // escaped
  EXPECT_EQ(html.find("resnet<50>"), std::string::npos);
  EXPECT_NE(html.find("1.500 (1.20-1.80)"), std::string::npos);  // FOM, rate band over the base's
  EXPECT_NE(html.find("<td>12.00 - 18.00</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>scaled 100 %</td>"), std::string::npos);
  EXPECT_NE(html.find("x2: 1.500"), std::string::npos);  // the field's mean FOM by value
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src=\""), std::string::npos);  // nothing loaded from outside the page
  EXPECT_EQ(html.find("href=\""), std::string::npos);
}

}  // namespace
}  // namespace dlsim
