// ReserveHugePages: the room it makes, and what it keeps.
#include "store/huge_pages.h"

#include <gtest/gtest.h>

#include <string>

namespace reftab {
namespace {

TEST(HugePagesTest, ReserveLeavesSmallStringsToStdString) {
  std::string s(1000, 'x');
  const size_t capacity = s.capacity();
  ReserveHugePages(&s, 1000);  // stays under a huge page: std::string grows it when it must
  EXPECT_EQ(s.capacity(), capacity);
  EXPECT_EQ(s, std::string(1000, 'x'));
}

TEST(HugePagesTest, ReserveMovesAGrowingStringAtLeastDoublingAndKeepsItsBytes) {
  std::string s;
  std::string expected;
  size_t moves = 0;
  for (int i = 0; s.size() < 5 * kHugePageBytes; ++i) {
    const std::string piece(100 << 10, char('a' + i % 26));
    const size_t before = s.capacity();
    ReserveHugePages(&s, piece.size());
    const bool large = s.size() + piece.size() >= kHugePageBytes;
    if (large) {
      ASSERT_GE(s.capacity(), s.size() + piece.size());
    }
    if (s.capacity() != before) {
      ++moves;
      EXPECT_TRUE(large);
      EXPECT_GE(s.capacity(), 2 * before);
    }
    const char* data = s.data();
    s.append(piece);
    if (large) {
      EXPECT_EQ(s.data(), data) << "append had room, no reallocation";
    }
    expected.append(piece);
  }
  EXPECT_EQ(s, expected);
  EXPECT_GE(moves, 1u);
  EXPECT_LE(moves, 3u);  // doubling from about 2 MiB: to 4, 8 and 16 at most
}

TEST(HugePagesTest, ReserveWithRoomChangesNothing) {
  std::string s;
  s.reserve(3 * kHugePageBytes);
  s.assign(kHugePageBytes, 'y');
  const char* data = s.data();
  ReserveHugePages(&s, kHugePageBytes);
  EXPECT_EQ(s.data(), data);
  EXPECT_EQ(s, std::string(kHugePageBytes, 'y'));
}

}  // namespace
}  // namespace reftab
