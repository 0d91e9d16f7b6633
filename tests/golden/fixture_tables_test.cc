// Every fixture table written by git or JGit: our reader prints exactly what git's
// `test-tool dump-reftable` printed, and our writer reproduces git's tables byte for byte.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testutil/fixtures.h"
#include "tests/testutil/golden_util.h"

namespace reftab::golden {
namespace {

class FixtureTableTest : public testing::TestWithParam<FixtureTable> {
 protected:
  void SetUp() override {
    if (GetParam().path.empty()) GTEST_SKIP() << "no fixtures in " << testutil::FixturesDir();
    table_ = OpenTableOrFail(GetParam().path);
    ASSERT_NE(table_, nullptr);
  }
  std::unique_ptr<TableReader> table_;
};

// Tables written by git, with their block dumps and the options they were written with.
class GitTableTest : public FixtureTableTest {};

TEST_P(FixtureTableTest, RecordDumpEqualsGits) {
  std::string expected = testutil::ReadFileOrDie(GetParam().expected_dump);
  EXPECT_EQ(DescribeDifference(DumpTableGit(*table_), expected), "") << GetParam().path;
}

TEST_P(GitTableTest, BlockDumpEqualsGits) {
  ASSERT_FALSE(GetParam().expected_blocks.empty()) << "no blocks dump for " << GetParam().path;
  EXPECT_EQ(DescribeDifference(DumpBlocksGit(*table_),
                               testutil::ReadFileOrDie(GetParam().expected_blocks)),
            "");
}

TEST_P(GitTableTest, RewritingReproducesGitsBytes) {
  std::string original = testutil::ReadFileOrDie(GetParam().path);
  std::string rewritten = RewriteTable(*table_, GitWriteOptions(*table_, GetParam().meta));
  // A byte-level report: the first differing offset is what locates a writer bug.
  std::string difference = DescribeDifference(rewritten, original);
  EXPECT_EQ(difference.substr(0, difference.find('\n')), "") << GetParam().path;
}

std::string ParamName(const testing::TestParamInfo<FixtureTable>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTableTest,
                         testing::ValuesIn(FixtureTablesOrPlaceholder()), ParamName);
INSTANTIATE_TEST_SUITE_P(Fixtures, GitTableTest,
                         testing::ValuesIn(FixtureTablesOrPlaceholder(/*git_only=*/true)),
                         ParamName);

}  // namespace
}  // namespace reftab::golden
