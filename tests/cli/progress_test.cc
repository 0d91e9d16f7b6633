// cli/progress.h: the lines git's progress draws, written to a memory stream (so never a
// terminal: --progress forces them), with GIT_PROGRESS_DELAY=0 so no clock decides.
#include "cli/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace reftab::cli {
namespace {

class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("GIT_PROGRESS_DELAY", "0", 1);
    f_ = open_memstream(&buf_, &len_);
  }
  void TearDown() override { unsetenv("GIT_PROGRESS_DELAY"); }
  std::string Text() {
    std::fclose(f_);
    std::string s(buf_, len_);
    std::free(buf_);
    return s;
  }
  FILE* f_ = nullptr;
  char* buf_ = nullptr;
  size_t len_ = 0;
};

TEST_F(ProgressTest, KnownTotalDrawsEachNewPercentageThenDone) {
  TerminalProgress p(ProgressFlag::kOn, f_);
  ASSERT_NE(p.get(), nullptr);
  {
    ProgressPhase phase(p.get(), "Checking", 4);
    for (int i = 0; i < 4; ++i) phase.Tick();
  }
  EXPECT_EQ(Text(),
            "Checking:   0% (0/4)\rChecking:  25% (1/4)\rChecking:  50% (2/4)\r"
            "Checking:  75% (3/4)\rChecking: 100% (4/4)\rChecking: 100% (4/4), done.\n");
}

TEST_F(ProgressTest, SamePercentageIsNotRedrawn) {
  TerminalProgress p(ProgressFlag::kOn, f_);
  {
    ProgressPhase phase(p.get(), "T", 1000);
    for (int i = 0; i < 5; ++i) phase.Tick();
  }
  EXPECT_EQ(Text(), "T:   0% (0/1000)\rT:   0% (5/1000), done.\n");
}

TEST_F(ProgressTest, UnknownTotalShowsTheCountWhenDone) {
  TerminalProgress p(ProgressFlag::kOn, f_);
  {
    ProgressPhase phase(p.get(), "Compacting records", 0);
    for (int i = 0; i < 10; ++i) phase.Tick();
  }
  EXPECT_EQ(Text(), "Compacting records: 10, done.\n");
}

// A listener that counts what ProgressPhase hands it: hot loops call Update rarely.
class CountingProgress : public Progress {
 public:
  void Start(std::string_view, uint64_t) override {}
  void Update(uint64_t done) override {
    ++updates;
    last = done;
  }
  void Stop() override { ++stops; }
  int updates = 0, stops = 0;
  uint64_t last = 0;
};

TEST(ProgressPhaseTest, ThinsUpdatesOutAndReportsTheLastCountAtTheEnd) {
  CountingProgress known, unknown;
  {
    ProgressPhase phase(&known, "T", 100000);
    for (int i = 0; i < 100000; ++i) phase.Tick();
    ProgressPhase open(&unknown, "U", 0);
    for (int i = 0; i < 1001; ++i) open.Tick();
  }
  EXPECT_EQ(known.updates, 200);  // every half percent
  EXPECT_EQ(known.last, 100000u);
  EXPECT_EQ(unknown.updates, 4);  // 256, 512, 768, then 1001 at the end
  EXPECT_EQ(unknown.last, 1001u);
  EXPECT_EQ(known.stops + unknown.stops, 2);
}

TEST_F(ProgressTest, ThinnedUpdatesStillDrawEveryPercentage) {
  TerminalProgress p(ProgressFlag::kOn, f_);
  {
    ProgressPhase phase(p.get(), "T", 1000);
    for (int i = 0; i < 1000; ++i) phase.Tick();
  }
  const std::string text = Text();
  EXPECT_NE(text.find("T:  37% (370/1000)\r"), std::string::npos);
  const std::string last = "T: 100% (1000/1000), done.\n";
  ASSERT_GE(text.size(), last.size());
  EXPECT_EQ(text.substr(text.size() - last.size()), last);
}

TEST_F(ProgressTest, OffOrNotATerminalDrawsNothing) {
  TerminalProgress off(ProgressFlag::kOff, f_);
  TerminalProgress automatic(ProgressFlag::kAuto, f_);  // a memory stream is no terminal
  EXPECT_EQ(off.get(), nullptr);
  EXPECT_EQ(automatic.get(), nullptr);
  ProgressPhase phase(nullptr, "T", 3);  // nobody listens: a no-op
  phase.Tick();
  EXPECT_EQ(Text(), "");
}

TEST(ProgressFlagTest, TakesGitsTwoOptions) {
  ProgressFlag f = ProgressFlag::kAuto;
  EXPECT_TRUE(TakeProgressFlag("--progress", &f));
  EXPECT_EQ(f, ProgressFlag::kOn);
  EXPECT_TRUE(TakeProgressFlag("--no-progress", &f));
  EXPECT_EQ(f, ProgressFlag::kOff);
  EXPECT_FALSE(TakeProgressFlag("--progres", &f));
}

}  // namespace
}  // namespace reftab::cli
