// git's date modes (store/git/date_format.h): parsing the mode names and printing a time in
// each mode. tests/cli/git_compare_reflog.sh and git_compare_for_each_ref.sh compare the same
// modes with a real git.
#include "store/git/date_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace reftab {
namespace {

constexpr int64_t kTime = 1700000000;  // 2023-11-14 22:13:20 UTC

std::string Show(std::string_view spec, int64_t time, int tz) {
  DateMode m;
  std::string error;
  EXPECT_TRUE(ParseDateMode(spec, false, &m, &error)) << spec << ": " << error;
  return ShowDate(time, tz, m);
}

// "now" and the local zone are the process's; pin both.
class GitDateFormat : public testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
    setenv("GIT_TEST_DATE_NOW", "1700086400", 1);  // one day after kTime
  }
  void TearDown() override { unsetenv("GIT_TEST_DATE_NOW"); }
};

TEST_F(GitDateFormat, FixedModes) {
  EXPECT_EQ(ShowDate(kTime, 100, DateMode()), "Tue Nov 14 23:13:20 2023 +0100");
  EXPECT_EQ(Show("iso", kTime, 100), "2023-11-14 23:13:20 +0100");
  EXPECT_EQ(Show("iso8601", kTime, 100), "2023-11-14 23:13:20 +0100");
  EXPECT_EQ(Show("iso-strict", kTime, -530), "2023-11-14T16:43:20-05:30");
  EXPECT_EQ(Show("iso8601-strict", kTime, 0), "2023-11-14T22:13:20Z");
  EXPECT_EQ(Show("rfc", kTime, 100), "Tue, 14 Nov 2023 23:13:20 +0100");
  EXPECT_EQ(Show("rfc2822", kTime, 100), "Tue, 14 Nov 2023 23:13:20 +0100");
  EXPECT_EQ(Show("short", kTime, 100), "2023-11-14");
  EXPECT_EQ(Show("raw", kTime, 100), "1700000000 +0100");
  EXPECT_EQ(Show("unix", kTime, 100), "1700000000");
  EXPECT_EQ(Show("format:%Y %z", kTime, 100), "2023 +0100");
  EXPECT_EQ(Show("format:", kTime, 100), "");
}

TEST_F(GitDateFormat, LocalModesUseTheProcessZone) {
  EXPECT_EQ(Show("local", kTime, 100), "Tue Nov 14 22:13:20 2023");
  EXPECT_EQ(Show("default-local", kTime, 100), "Tue Nov 14 22:13:20 2023");
  EXPECT_EQ(Show("iso-local", kTime, 100), "2023-11-14 22:13:20 +0000");
  EXPECT_EQ(Show("raw-local", kTime, 100), "1700000000 +0000");
  EXPECT_EQ(LocalZoneOffset(kTime), 0);
}

TEST_F(GitDateFormat, RelativeAndHumanCountFromGitsNow) {
  EXPECT_EQ(Show("relative", kTime, 100), "24 hours ago");
  EXPECT_EQ(Show("relative", kTime - 5 * 86400, 100), "6 days ago");
  EXPECT_EQ(Show("relative", 1700086400 + 10, 100), "in the future");
  EXPECT_EQ(Show("relative", 1700086400 - 30, 100), "30 seconds ago");
  EXPECT_EQ(Show("relative", 1700086400 - 400LL * 86400, 0), "1 year, 1 month ago");
  EXPECT_EQ(Show("human", 1700086400 - 60, 0), "60 seconds ago");
  EXPECT_EQ(Show("human", kTime, 0), "Tue 22:13");
}

TEST_F(GitDateFormat, AutoFollowsTheTerminal) {
  DateMode m;
  std::string error;
  ASSERT_TRUE(ParseDateMode("auto:iso", true, &m, &error));
  EXPECT_EQ(m.style, DateStyle::kIso);
  ASSERT_TRUE(ParseDateMode("auto:iso", false, &m, &error));
  EXPECT_EQ(m.style, DateStyle::kNormal);
}

TEST_F(GitDateFormat, RefusesWithGitsMessages) {
  DateMode m;
  std::string error;
  EXPECT_FALSE(ParseDateMode("bogus", false, &m, &error));
  EXPECT_EQ(error, "unknown date format bogus");
  EXPECT_FALSE(ParseDateMode("isox", false, &m, &error));
  EXPECT_EQ(error, "unknown date format isox");
  EXPECT_FALSE(ParseDateMode("format", false, &m, &error));
  EXPECT_EQ(error, "date format missing colon separator: format");
  EXPECT_FALSE(ParseDateMode("auto:bogus", true, &m, &error));
  EXPECT_EQ(error, "unknown date format bogus");
}

TEST_F(GitDateFormat, ZonesAsGitPrintsThem) {
  EXPECT_EQ(ZoneText(-830), "-0830");
  EXPECT_EQ(ZoneText(100), "+0100");
  EXPECT_EQ(ZoneText(0), "+0000");
  EXPECT_EQ(ZoneText(1400), "+1400");
  DateMode raw;
  std::string error;
  ASSERT_TRUE(ParseDateMode("raw", false, &raw, &error));
  EXPECT_EQ(ShowDate(1700000000, -830, raw), "1700000000 -0830");
}

}  // namespace
}  // namespace reftab
