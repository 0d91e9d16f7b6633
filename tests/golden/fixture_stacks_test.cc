// Every git fixture stack: the merged view (newest table wins, tombstones included) prints
// exactly what `test-tool dump-reftable -s` printed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/stack.h"
#include "tests/testutil/fixtures.h"
#include "tests/testutil/golden_util.h"

namespace reftab::golden {
namespace {

std::vector<FixtureStack> StacksOrPlaceholder() {
  std::vector<FixtureStack> stacks = AllFixtureStacks();
  if (stacks.empty()) stacks.push_back(FixtureStack{"NoFixtures", "", ""});
  return stacks;
}

class FixtureStackTest : public testing::TestWithParam<FixtureStack> {};

TEST_P(FixtureStackTest, MergedDumpEqualsGits) {
  const FixtureStack& fixture = GetParam();
  if (fixture.reftable_dir.empty()) GTEST_SKIP() << "no fixtures in " << testutil::FixturesDir();
  auto stack = Stack::Open(fixture.reftable_dir, StackOptions());
  ASSERT_TRUE(stack.ok()) << stack.status().ToString();
  std::string dump = DumpStackGit(*(*stack)->snapshot());
  std::string expected = testutil::ReadFileOrDie(fixture.expected_dump);
  EXPECT_EQ(DescribeDifference(dump, expected), "") << fixture.reftable_dir;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureStackTest, testing::ValuesIn(StacksOrPlaceholder()),
                         [](const testing::TestParamInfo<FixtureStack>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace reftab::golden
