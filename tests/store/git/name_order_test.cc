// NameOrder (store/git/refs/name_order.h): entries come back in name order whatever the
// shape of the input: sorted, interleaved sorted sequences (merged), or too many sequences
// (sorted), with equal names next to each other.
#include "store/git/refs/name_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace reftab {
namespace {

// Adds every name of `names` (entry i is names[i]) and takes them back as names.
std::vector<std::string> Ordered(const std::vector<std::string>& names) {
  NameOrder order;
  for (size_t i = 0; i < names.size(); ++i) order.Add(names[i], uint32_t(i));
  EXPECT_EQ(order.size(), names.size());
  std::vector<uint32_t> indices =
      order.Take([&](uint32_t i) -> std::string_view { return names[i]; });
  EXPECT_EQ(order.size(), 0u);
  std::vector<std::string> out;
  for (uint32_t i : indices) out.push_back(names[i]);
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

TEST(NameOrder, Empty) { EXPECT_TRUE(Ordered({}).empty()); }

TEST(NameOrder, SortedInputStaysAsItIs) {
  std::vector<std::string> names = {"HEAD", "refs/heads/a", "refs/heads/b", "refs/tags/v1"};
  EXPECT_EQ(Ordered(names), names);
}

TEST(NameOrder, InterleavedSequencesAreMerged) {
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i) {
    const std::string n = std::to_string(10000 + i);
    names.push_back("refs/heads/topic/" + n);
    names.push_back("refs/tags/v" + n);
    if (i % 3 == 0) names.push_back("refs/remotes/origin/r" + n);
  }
  EXPECT_EQ(Ordered(names), Sorted(names));
}

TEST(NameOrder, ReverseOrderFallsBackToASort) {
  std::vector<std::string> names;
  for (int i = 100; i > 0; --i) names.push_back("refs/heads/b" + std::to_string(1000 + i));
  EXPECT_EQ(Ordered(names), Sorted(names));
}

TEST(NameOrder, RandomOrderWithDuplicates) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string> names;
    const int n = 1 + int(rng() % 300);
    for (int i = 0; i < n; ++i) names.push_back("refs/x/" + std::to_string(rng() % 50));
    const std::vector<std::string> got = Ordered(names);
    EXPECT_EQ(got, Sorted(names)) << "round " << round;
  }
}

TEST(NameOrder, DuplicatesOfTheLastNameStayTogether) {
  std::vector<std::string> names = {"b", "a", "b", "c", "a"};
  EXPECT_EQ(Ordered(names), Sorted(names));
}

TEST(NameOrder, ReusableAfterTake) {
  NameOrder order;
  const std::vector<std::string> first = {"b", "a"};
  order.Add(first[0], 0);
  order.Add(first[1], 1);
  EXPECT_EQ(order.Take([&](uint32_t i) -> std::string_view { return first[i]; }),
            (std::vector<uint32_t>{1, 0}));
  order.Add(first[0], 0);
  EXPECT_EQ(order.Take([&](uint32_t i) -> std::string_view { return first[i]; }),
            (std::vector<uint32_t>{0}));
}

}  // namespace
}  // namespace reftab
