// git's abbreviation rule (store/git/objects/abbrev.h): core.abbrev read and checked as git
// reads it, --abbrev=<n> clamped as git's option parser clamps it, and lengths applied to ids
// without a database (ids on trust). tests/cli/git_compare_for_each_ref.sh, _refs.sh and
// _reflog.sh compare the same rule, with a database, against a real git.
#include "store/git/objects/abbrev.h"

#include <gtest/gtest.h>

#include <string>

namespace reftab {
namespace {

// core.abbrev read from one config file's text, as .git/config.
Result<int> Read(const std::string& text, std::string* error) {
  Result<GitConfig> config = GitConfig::ParseText(text, ".git/config");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return ReadCoreAbbrev(*config, error);
}

int ReadOk(const std::string& value) {
  std::string error;
  Result<int> r = Read("[core]\n\tabbrev = " + value + "\n", &error);
  EXPECT_TRUE(r.ok()) << value << ": " << r.status().message();
  EXPECT_EQ(error, "");
  return r.ok() ? *r : -100;
}

TEST(GitAbbrev, CoreAbbrevValues) {
  std::string error;
  Result<int> unset = Read("[core]\n\tbare = false\n", &error);
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(*unset, kAbbrevDefault);
  EXPECT_EQ(ReadOk("auto"), kAbbrevDefault);
  EXPECT_EQ(ReadOk("AUTO"), kAbbrevDefault);
  for (const char* full : {"off", "no", "false", "OFF", "\"\""}) {
    EXPECT_EQ(ReadOk(full), kAbbrevFull) << full;
  }
  EXPECT_EQ(ReadOk("4"), 4);
  EXPECT_EQ(ReadOk("10"), 10);
  EXPECT_EQ(ReadOk("40"), 40);
  EXPECT_EQ(ReadOk("64"), 64);
  EXPECT_EQ(ReadOk("1k"), 1024);  // git_config_int's units; longer than any id: the whole id
}

TEST(GitAbbrev, CoreAbbrevOutOfRangeIsRefusedWithGitsMessages) {
  for (const char* n : {"3", "0", "-1"}) {
    std::string error;
    Result<int> r = Read(std::string("[core]\n\tabbrev = ") + n + "\n", &error);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(error, std::string("abbrev length out of range: ") + n);
    EXPECT_EQ(r.status().message(),
              "bad config variable 'core.abbrev' in file '.git/config' at line 2");
  }
}

TEST(GitAbbrev, CoreAbbrevThatIsNotANumber) {
  for (const char* v : {"abc", "true", "yes", "on"}) {
    std::string error;
    Result<int> r = Read(std::string("[core]\n\tabbrev = ") + v + "\n", &error);
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(error, "");
    EXPECT_EQ(r.status().message(), std::string("bad numeric config value '") + v +
                                        "' for 'core.abbrev' in file .git/config: invalid unit");
  }
  std::string error;
  Result<int> r = Read("[core]\n\tabbrev\n", &error);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(error, "missing value for 'core.abbrev'");
}

TEST(GitAbbrev, EveryEntryIsCheckedNotOnlyTheLast) {
  std::string error;
  Result<int> r = Read("[core]\n\tabbrev = 3\n\tabbrev = 8\n", &error);
  EXPECT_FALSE(r.ok());
  Result<int> good = Read("[core]\n\tabbrev = 8\n\tabbrev = off\n", &error);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, kAbbrevFull);
}

TEST(GitAbbrev, CommandLineEntriesAreNamedAsGitNamesThem) {
  GitConfig config;
  config.Add(ConfigEntry{"core.abbrev", "2", "", 0, ConfigScope::kCommand});
  std::string error;
  Result<int> r = ReadCoreAbbrev(config, &error);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "unable to parse 'core.abbrev' from command-line config");
}

TEST(GitAbbrev, OptionValuesRiseToTheMinimum) {
  EXPECT_EQ(ClampAbbrevOption(0), kAbbrevFull);
  EXPECT_EQ(ClampAbbrevOption(1), kMinimumAbbrev);
  EXPECT_EQ(ClampAbbrevOption(3), kMinimumAbbrev);
  EXPECT_EQ(ClampAbbrevOption(-3), kMinimumAbbrev);
  EXPECT_EQ(ClampAbbrevOption(5), 5);
  EXPECT_EQ(ClampAbbrevOption(100), 100);
}

TEST(GitAbbrev, LengthsWithoutADatabase) {
  ObjectId id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = uint8_t(0x11 * (i % 15 + 1));
  const std::string full = HexId(id, 20);
  std::string hex;
  GitAbbreviator automatic(nullptr, 20, kAbbrevDefault);
  ASSERT_TRUE(automatic.Abbreviate(id, kAbbrevDefault, &hex).ok());
  EXPECT_EQ(hex, full.substr(0, kFallbackAbbrev));
  ASSERT_TRUE(automatic.Abbreviate(id, kAbbrevFull, &hex).ok());
  EXPECT_EQ(hex, full);
  ASSERT_TRUE(automatic.Abbreviate(id, 12, &hex).ok());
  EXPECT_EQ(hex, full.substr(0, 12));
  ASSERT_TRUE(automatic.Abbreviate(id, 40, &hex).ok());
  EXPECT_EQ(hex, full);

  GitAbbreviator configured(nullptr, 20, 10);  // core.abbrev=10
  ASSERT_TRUE(configured.Abbreviate(id, kAbbrevDefault, &hex).ok());
  EXPECT_EQ(hex, full.substr(0, 10));
  GitAbbreviator off(nullptr, 20, kAbbrevFull);  // core.abbrev=off
  ASSERT_TRUE(off.Abbreviate(id, kAbbrevDefault, &hex).ok());
  EXPECT_EQ(hex, full);
  GitAbbreviator longer(nullptr, 32, 64);  // core.abbrev=64 in a SHA-256 repository
  ASSERT_TRUE(longer.Abbreviate(id, kAbbrevDefault, &hex).ok());
  EXPECT_EQ(hex, HexId(id, 32));
  GitAbbreviator sha256_40(nullptr, 32, 40);
  ASSERT_TRUE(sha256_40.Abbreviate(id, kAbbrevDefault, &hex).ok());
  EXPECT_EQ(hex, HexId(id, 32).substr(0, 40));
}

}  // namespace
}  // namespace reftab
