// The pager (cli/pager.h): git's choice of command and of pager.<command>, and a running
// pager receiving standard output until Finish; log.decorate's styles (cli/ref_decorations.h).
#include "cli/pager.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/ref_decorations.h"

namespace reftab::cli {
namespace {

TEST(PagerCommandTest, NoneWhenStandardOutputIsNotATerminal) {
  if (isatty(STDOUT_FILENO)) GTEST_SKIP() << "standard output is a terminal";
  EXPECT_EQ(PagerCommand(GitConfig::Parse("[core]\n\tpager = less\n"), "more"), std::nullopt);
}

TEST(StartCommandPagerTest, NoPagerSetsGitPagerToCatAndReadsNoConfiguration) {
  int reads = 0;
  auto config = [&reads]() -> std::optional<GitConfig> {
    ++reads;
    return GitConfig::Parse("[pager]\n\tshow-ref = true\n");
  };
  const char* old = std::getenv("GIT_PAGER");
  const std::string saved = old ? old : "";
  unsetenv("GIT_PAGER");
  Pager pager;
  ASSERT_TRUE(StartCommandPager(false, true, "show-ref", config, &pager).ok());
  EXPECT_FALSE(pager.active());
  EXPECT_STREQ(std::getenv("GIT_PAGER"), "cat");
  EXPECT_EQ(reads, 0);
  if (old) {
    setenv("GIT_PAGER", saved.c_str(), 1);
  } else {
    unsetenv("GIT_PAGER");
  }
}

TEST(StartCommandPagerTest, OffATerminalNothingStartsAndNothingIsRead) {
  if (isatty(STDOUT_FILENO)) GTEST_SKIP() << "standard output is a terminal";
  int reads = 0;
  auto config = [&reads]() -> std::optional<GitConfig> {
    ++reads;
    return GitConfig::Parse("[pager]\n\tshow-ref = true\n");
  };
  Pager pager;
  for (std::optional<bool> paginate : {std::optional<bool>(true), std::optional<bool>()}) {
    ASSERT_TRUE(StartCommandPager(paginate, true, "show-ref", config, &pager).ok());
    EXPECT_FALSE(pager.active());
  }
  EXPECT_EQ(reads, 0);
}

TEST(CommandPagerConfigTest, ReadsBooleansAndCommands) {
  CommandPagerConfig c = ReadCommandPagerConfig(GitConfig::Parse(""), "reflog");
  EXPECT_EQ(c.want, std::nullopt);
  c = ReadCommandPagerConfig(GitConfig::Parse("[pager]\n\treflog = false\n"), "reflog");
  EXPECT_EQ(c.want, false);
  EXPECT_EQ(c.command, std::nullopt);
  c = ReadCommandPagerConfig(GitConfig::Parse("[pager]\n\treflog\n"), "reflog");
  EXPECT_EQ(c.want, true);
  c = ReadCommandPagerConfig(GitConfig::Parse("[pager]\n\treflog = less -S\n\tlog = no\n"),
                             "reflog");
  EXPECT_EQ(c.want, true);
  EXPECT_EQ(c.command, "less -S");
  // As git: a later boolean decides, the command stays the one given.
  c = ReadCommandPagerConfig(GitConfig::Parse("[pager]\n\treflog = more\n\treflog = 0\n"),
                             "reflog");
  EXPECT_EQ(c.want, false);
  EXPECT_EQ(c.command, "more");
}

TEST(PagerTest, ReceivesStandardOutputUntilFinish) {
  char dir[] = "/tmp/reftab-pager-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string out = std::string(dir) + "/out";
  {
    Pager pager;
    ASSERT_TRUE(
        pager.Start("sed 's/^/P:/' >'" + out + "'; echo \"$LESS $LV\" >>'" + out + "'").ok());
    EXPECT_TRUE(pager.active());
    EXPECT_TRUE(PagerInUse());
    std::fputs("one\ntwo\n", stdout);
    pager.Finish();
    EXPECT_FALSE(pager.active());
  }
  unsetenv("GIT_PAGER_IN_USE");
  std::ifstream in(out);
  std::stringstream got;
  got << in.rdbuf();
  const char* less = std::getenv("LESS");
  const char* lv = std::getenv("LV");
  EXPECT_EQ(got.str(),
            std::string("P:one\nP:two\n") + (less ? less : "FRX") + " " + (lv ? lv : "-c") + "\n");
  std::remove(out.c_str());
  rmdir(dir);
}

TEST(DecorateStyleTest, ParsesGitsValues) {
  EXPECT_EQ(ParseDecorateStyle("short"), DecorateStyle::kShort);
  EXPECT_EQ(ParseDecorateStyle("full"), DecorateStyle::kFull);
  EXPECT_EQ(ParseDecorateStyle("auto"), DecorateStyle::kAuto);
  EXPECT_EQ(ParseDecorateStyle("yes"), DecorateStyle::kShort);
  EXPECT_EQ(ParseDecorateStyle("1"), DecorateStyle::kShort);
  EXPECT_EQ(ParseDecorateStyle("off"), DecorateStyle::kNo);
  EXPECT_EQ(ParseDecorateStyle(""), DecorateStyle::kNo);
  EXPECT_EQ(ParseDecorateStyle("FULL"), DecorateStyle::kInvalid);
  EXPECT_EQ(ParseDecorateStyle("no such"), DecorateStyle::kInvalid);
  EXPECT_EQ(ResolveDecorateStyle(DecorateStyle::kFull), DecorateStyle::kFull);
}

}  // namespace
}  // namespace reftab::cli
