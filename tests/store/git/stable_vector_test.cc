// StableVector (store/git/refs/stable_vector.h): elements keep their address as it grows past
// chunk boundaries, indexing reaches each one, and every element is destroyed once (by
// clear(), the destructor or a move-assignment over it).
#include "store/git/refs/stable_vector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace reftab {
namespace {

TEST(StableVector, GrowsWithoutMovingElements) {
  StableVector<std::string, 2> v;  // chunks of four
  std::vector<const std::string*> where;
  for (int i = 0; i < 19; ++i) {
    where.push_back(&v.push_back("a name long enough to live on the heap " + std::to_string(i)));
  }
  ASSERT_EQ(v.size(), 19u);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(&v[i], where[i]);
    EXPECT_EQ(v[i], "a name long enough to live on the heap " + std::to_string(i));
  }
  EXPECT_EQ(&v.back(), where.back());
  v.clear();
  EXPECT_TRUE(v.empty());
  v.push_back("again");
  EXPECT_EQ(v[0], "again");
}

struct Counted {
  explicit Counted(int* live) : live_(live) { ++*live_; }
  Counted(Counted&& o) noexcept : live_(o.live_) { ++*live_; }
  ~Counted() { --*live_; }
  int* live_;
};

TEST(StableVector, DestroysEveryElementOnce) {
  int live = 0;
  {
    StableVector<Counted, 1> v;
    for (int i = 0; i < 5; ++i) v.push_back(Counted(&live));
    EXPECT_EQ(live, 5);
    StableVector<Counted, 1> w(std::move(v));
    EXPECT_EQ(live, 5);
    EXPECT_TRUE(v.empty());  // NOLINT: moved from, and empty by contract
    StableVector<Counted, 1> x;
    x.push_back(Counted(&live));
    x = std::move(w);
    EXPECT_EQ(live, 5);
    EXPECT_EQ(x.size(), 5u);
  }
  EXPECT_EQ(live, 0);
}

}  // namespace
}  // namespace reftab
