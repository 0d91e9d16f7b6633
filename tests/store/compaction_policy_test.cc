// Unit tests of the pure compaction policy (FORMAT.md §18.2): git's own examples, the factor,
// degenerate stacks, PolicySize, and a seeded comparison with an independent transcription
// of git's algorithm plus the properties the segment must have.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "store/compaction_policy.h"

namespace reftab {
namespace {

// git's suggest_compaction_segment(), transcribed from FORMAT.md §18.2 independently of
// store/compaction_policy.cc.
std::optional<Segment> Reference(const std::vector<uint64_t>& sizes, uint32_t factor) {
  if (factor == 0) factor = 2;
  size_t n = sizes.size();
  if (n <= 1) return std::nullopt;
  size_t start = 0, end = 0, i = n - 1;
  uint64_t bytes = 0;
  for (i = n - 1; i > 0; --i) {
    if (sizes[i - 1] < sizes[i] * factor) {
      end = i + 1;
      bytes = sizes[i];
      break;
    }
  }
  if (end == 0) return std::nullopt;
  while (i > 0) {
    uint64_t cur = bytes;
    bytes += sizes[i - 1];
    if (sizes[i - 1] < cur * factor) start = i - 1;
    --i;
  }
  return Segment{start, end};
}

TEST(CompactionPolicyTest, GitExampleCompactsAllButTheBigBase) {
  std::vector<uint64_t> sizes = {512, 64, 17, 16, 9, 9, 9, 16, 2, 16};
  auto seg = SuggestCompaction(sizes, 2);
  ASSERT_TRUE(seg.has_value());
  EXPECT_EQ(seg->start, 1u);
  EXPECT_EQ(seg->end, 10u);
}

TEST(CompactionPolicyTest, GeometricSequenceNeedsNothing) {
  EXPECT_FALSE(SuggestCompaction({64, 32, 16, 8, 4, 2}, 2).has_value());
}

TEST(CompactionPolicyTest, FactorZeroMeansTwo) {
  std::vector<std::vector<uint64_t>> cases = {
      {512, 64, 17, 16, 9, 9, 9, 16, 2, 16}, {64, 32, 16, 8, 4, 2}, {3, 2}, {4, 2}, {1, 1, 1},
      {100, 60, 20, 11, 5}};
  for (const auto& sizes : cases) {
    EXPECT_EQ(SuggestCompaction(sizes, 0), SuggestCompaction(sizes, 2));
  }
  auto seg = SuggestCompaction({512, 64, 17, 16, 9, 9, 9, 16, 2, 16}, 0);
  ASSERT_TRUE(seg.has_value());
  EXPECT_EQ(*seg, (Segment{1, 10}));
}

TEST(CompactionPolicyTest, NoTablesOrOneTableNeedsNothing) {
  EXPECT_FALSE(SuggestCompaction({}, 2).has_value());
  EXPECT_FALSE(SuggestCompaction({1}, 2).has_value());
  EXPECT_FALSE(SuggestCompaction({0}, 2).has_value());
  EXPECT_FALSE(SuggestCompaction({123456789}, 3).has_value());
}

TEST(CompactionPolicyTest, TwoTablesMergeOnlyWhenTheOlderIsTooSmall) {
  EXPECT_EQ(SuggestCompaction({10, 10}, 2), (Segment{0, 2}));
  EXPECT_EQ(SuggestCompaction({3, 2}, 2), (Segment{0, 2}));
  EXPECT_FALSE(SuggestCompaction({4, 2}, 2).has_value());
  EXPECT_FALSE(SuggestCompaction({100, 2}, 2).has_value());
  EXPECT_EQ(SuggestCompaction({1, 100}, 2), (Segment{0, 2}));
}

TEST(CompactionPolicyTest, LargerFactorMergesMore) {
  // Geometric for factor 2 but not for 3.
  std::vector<uint64_t> sizes = {64, 32, 16};
  EXPECT_FALSE(SuggestCompaction(sizes, 2).has_value());
  EXPECT_EQ(SuggestCompaction(sizes, 3), (Segment{0, 3}));
  // Factor 1: only a strictly growing neighbour triggers.
  EXPECT_FALSE(SuggestCompaction({5, 5, 5}, 1).has_value());
  EXPECT_EQ(SuggestCompaction({5, 4, 6}, 1), (Segment{0, 3}));
}

TEST(CompactionPolicyTest, SegmentEndsAtNewestBadPairAndKeepsNewerGeometricTail) {
  // Newest three tables are geometric (8, 4, 2); the pair (1, 16) is not.
  std::vector<uint64_t> sizes = {1000, 1, 16, 8, 4, 2};
  auto seg = SuggestCompaction(sizes, 2);
  ASSERT_TRUE(seg.has_value());
  EXPECT_EQ(seg->end, 3u);
  EXPECT_EQ(seg->start, 1u);  // 1000 >= 2 * (1 + 16): the base stays
}

TEST(CompactionPolicyTest, MatchesGitAlgorithmOnRandomStacks) {
  std::mt19937_64 rng(20240601);
  for (int iter = 0; iter < 20000; ++iter) {
    size_t n = rng() % 14;
    std::vector<uint64_t> sizes(n);
    int shape = int(rng() % 3);
    for (size_t i = 0; i < n; ++i) {
      switch (shape) {
        case 0: sizes[i] = 1 + rng() % 100; break;                    // uniform
        case 1: sizes[i] = (uint64_t(1) << (n - i)) + rng() % 4; break;  // near geometric
        default: sizes[i] = rng() % 2 ? 1 + rng() % 5 : 1000 + rng() % 5000; break;
      }
    }
    uint32_t factor = uint32_t(rng() % 5);
    auto got = SuggestCompaction(sizes, factor);
    ASSERT_EQ(got, Reference(sizes, factor)) << "iteration " << iter;
    uint64_t f = factor == 0 ? 2 : factor;
    if (!got) {
      for (size_t i = 1; i < n; ++i) ASSERT_GE(sizes[i - 1], sizes[i] * f) << "iteration " << iter;
      continue;
    }
    ASSERT_LT(got->start, got->end);
    ASSERT_GE(got->end - got->start, 2u) << "a segment always has two tables";
    ASSERT_LE(got->end, n);
    ASSERT_LT(sizes[got->end - 2], sizes[got->end - 1] * f);
    for (size_t i = got->end; i < n; ++i) ASSERT_GE(sizes[i - 1], sizes[i] * f);
  }
}

TEST(CompactionPolicyTest, PolicySizeSubtractsFooterAndHeaderLessOne) {
  EXPECT_EQ(PolicySize(1000, 1), 1000u - 91u);
  EXPECT_EQ(PolicySize(1000, 2), 1000u - 99u);
  // The smallest possible tables (header + footer only) count one byte.
  EXPECT_EQ(PolicySize(24 + 68, 1), 1u);
  EXPECT_EQ(PolicySize(28 + 72, 2), 1u);
  EXPECT_EQ(PolicySize(uint64_t(1) << 40, 1), (uint64_t(1) << 40) - 91);
  EXPECT_EQ(PolicySize(uint64_t(1) << 40, 2), (uint64_t(1) << 40) - 99);
}

}  // namespace
}  // namespace reftab
