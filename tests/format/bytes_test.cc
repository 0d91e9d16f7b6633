// format/bytes.h: the reftable varint (FORMAT.md §1.1), big-endian helpers, the Appender
// and the sticky-error ByteReader.
#include "format/bytes.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace reftab {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes EncodeVarint(uint64_t v) {
  uint8_t buf[kMaxVarintLen];
  Appender a(buf);
  a.PutVarint(v);
  return Bytes(buf, a.pos());
}

struct VarintExample {
  uint64_t value;
  Bytes bytes;
};

// Every row of the table in FORMAT.md §1.1.
const std::vector<VarintExample>& FormatDocExamples() {
  static const std::vector<VarintExample> kExamples = {
      {0, {0x00}},
      {1, {0x01}},
      {127, {0x7f}},
      {128, {0x80, 0x00}},
      {153, {0x80, 0x19}},
      {255, {0x80, 0x7f}},
      {300, {0x81, 0x2c}},
      {4096, {0x9f, 0x00}},
      {8192, {0xbf, 0x00}},
      {16383, {0xfe, 0x7f}},
      {16511, {0xff, 0x7f}},
      {16512, {0x80, 0x80, 0x00}},
      {208896, {0x8b, 0xdf, 0x00}},
      {2113663, {0xff, 0xff, 0x7f}},
      {270549119, {0xff, 0xff, 0xff, 0x7f}},
      {1700000000, {0x85, 0xa9, 0xce, 0xe1, 0x00}},
      {std::numeric_limits<uint64_t>::max(),
       {0x80, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0x7f}},
  };
  return kExamples;
}

TEST(VarintTest, EncodesEveryFormatDocExample) {
  for (const VarintExample& e : FormatDocExamples()) {
    EXPECT_EQ(EncodeVarint(e.value), e.bytes) << "value " << e.value;
    EXPECT_EQ(VarintLength(e.value), e.bytes.size()) << "value " << e.value;
  }
}

TEST(VarintTest, DecodesEveryFormatDocExample) {
  for (const VarintExample& e : FormatDocExamples()) {
    ByteReader in(e.bytes.data(), e.bytes.size());
    EXPECT_EQ(in.GetVarint(), e.value);
    EXPECT_TRUE(in.ok()) << "value " << e.value;
    EXPECT_EQ(in.remaining(), 0u) << "value " << e.value;
  }
}

TEST(VarintTest, LengthGrowsExactlyAtGroupBoundaries) {
  // The largest n-byte value is 2^7 + 2^14 + ... + 2^(7n) - 1.
  uint64_t largest = 0;
  for (size_t n = 1; n < kMaxVarintLen; ++n) {
    largest += uint64_t(1) << (7 * n);
    uint64_t last = largest - 1;
    EXPECT_EQ(VarintLength(last), n) << last;
    EXPECT_EQ(VarintLength(last + 1), n + 1) << last + 1;
  }
  EXPECT_EQ(VarintLength(std::numeric_limits<uint64_t>::max()), kMaxVarintLen);
}

TEST(VarintTest, RoundTripsValuesAroundEveryBoundary) {
  std::vector<uint64_t> values;
  uint64_t largest = 0;
  for (size_t n = 1; n < kMaxVarintLen; ++n) {
    largest += uint64_t(1) << (7 * n);
    for (uint64_t d = 0; d < 3; ++d) {
      values.push_back(largest - 1 - d);
      values.push_back(largest + d);
    }
  }
  for (int bit = 0; bit < 64; ++bit) {
    uint64_t p = uint64_t(1) << bit;
    values.insert(values.end(), {p - 1, p, p + 1});
  }
  values.push_back(std::numeric_limits<uint64_t>::max() - 1);
  for (uint64_t v : values) {
    Bytes b = EncodeVarint(v);
    ASSERT_LE(b.size(), kMaxVarintLen);
    ByteReader in(b.data(), b.size());
    EXPECT_EQ(in.GetVarint(), v);
    EXPECT_TRUE(in.ok());
    EXPECT_EQ(in.remaining(), 0u);
  }
}

TEST(VarintTest, DecodingStopsAfterTheLastByte) {
  Bytes b = {0x81, 0x2c, 0x05};
  ByteReader in(b.data(), b.size());
  EXPECT_EQ(in.GetVarint(), 300u);
  EXPECT_EQ(in.GetVarint(), 5u);
  EXPECT_TRUE(in.ok());
}

TEST(VarintTest, RejectsValuesThatDoNotFitIn64Bits) {
  const std::vector<Bytes> overflows = {
      // 2^64: one more than the 10-byte maximum.
      {0x80, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xff, 0x00},
      {0x81, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0x7f},
      {0xff, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0x7f},
      // 11 bytes.
      {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
      {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
  };
  for (const Bytes& b : overflows) {
    ByteReader in(b.data(), b.size());
    EXPECT_EQ(in.GetVarint(), 0u);
    EXPECT_FALSE(in.ok());
  }
}

TEST(VarintTest, AcceptsTenByteValuesBelowTheLimit) {
  // Ten bytes, but the value (about 9.3e18) is below 2^64: length alone is not overflow.
  Bytes b = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  ByteReader in(b.data(), b.size());
  EXPECT_EQ(in.GetVarint(), 9295997013522923648u);
  EXPECT_TRUE(in.ok());
}

TEST(VarintTest, RejectsEveryTruncation) {
  for (const VarintExample& e : FormatDocExamples()) {
    for (size_t len = 0; len < e.bytes.size(); ++len) {
      ByteReader in(e.bytes.data(), len);
      EXPECT_EQ(in.GetVarint(), 0u);
      EXPECT_FALSE(in.ok()) << "value " << e.value << " cut to " << len << " bytes";
    }
  }
}

TEST(BigEndianTest, StoresAndLoadsExactBytes) {
  uint8_t buf[8] = {};
  be::Store16(buf, 0x1234);
  EXPECT_EQ(Bytes(buf, buf + 2), (Bytes{0x12, 0x34}));
  EXPECT_EQ(be::Load16(buf), 0x1234);
  be::Store24(buf, 0xabcdef);
  EXPECT_EQ(Bytes(buf, buf + 3), (Bytes{0xab, 0xcd, 0xef}));
  EXPECT_EQ(be::Load24(buf), 0xabcdefu);
  be::Store24(buf, (1u << 24) - 1);
  EXPECT_EQ(be::Load24(buf), (1u << 24) - 1);
  be::Store32(buf, 0x73323536);
  EXPECT_EQ(Bytes(buf, buf + 4), (Bytes{'s', '2', '5', '6'}));
  EXPECT_EQ(be::Load32(buf), 0x73323536u);
  be::Store64(buf, 0x0102030405060708);
  EXPECT_EQ(Bytes(buf, buf + 8), (Bytes{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(be::Load64(buf), 0x0102030405060708u);
  be::Store64(buf, ~uint64_t(0) - 2);  // a log key suffix, FORMAT.md §20.5
  EXPECT_EQ(Bytes(buf, buf + 8), (Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd}));
}

TEST(BigEndianTest, LoadsHighBitsWithoutSignExtension) {
  const uint8_t ff[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(be::Load16(ff), 0xffff);
  EXPECT_EQ(be::Load24(ff), 0xffffffu);
  EXPECT_EQ(be::Load32(ff), 0xffffffffu);
  EXPECT_EQ(be::Load64(ff), ~uint64_t(0));
}

TEST(AppenderTest, WritesFieldsInOrder) {
  uint8_t buf[64];
  Appender a(buf);
  a.PutByte('r');
  a.PutBE24(56);
  a.PutBE16(1);
  a.PutBE32(0xb6bff78a);
  a.PutBE64(1);
  a.PutLengthPrefixed("HEAD");
  a.PutBytes(nullptr, 0);
  EXPECT_EQ(Bytes(buf, a.pos()), (Bytes{'r', 0, 0, 56, 0, 1, 0xb6, 0xbf, 0xf7, 0x8a, 0,  0,
                                        0,   0, 0, 0,  0, 1, 4,    'H',  'E',  'A',  'D'}));
}

TEST(ByteReaderTest, ReadsFieldsAndTracksRemaining) {
  Bytes b = {7, 0x12, 0x34, 3, 'a', 'b', 'c', 9, 8};
  ByteReader in(b.data(), b.size());
  EXPECT_EQ(in.GetByte(), 7);
  EXPECT_EQ(in.GetBE16(), 0x1234);
  EXPECT_EQ(in.GetLengthPrefixed(), "abc");
  EXPECT_EQ(in.remaining(), 2u);
  const uint8_t* p = in.GetBytes(2);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p[0], 9);
  EXPECT_TRUE(in.ok());
  EXPECT_EQ(in.remaining(), 0u);
}

TEST(ByteReaderTest, ShortReadsFailAndTheErrorSticks) {
  Bytes b = {1, 2, 3};
  ByteReader in(b.data(), b.size());
  EXPECT_EQ(in.GetBytes(4), nullptr);
  EXPECT_FALSE(in.ok());
  EXPECT_EQ(in.remaining(), 0u);
  // Every later read fails and yields zero or empty, whatever it asks for.
  EXPECT_EQ(in.GetByte(), 0);
  EXPECT_EQ(in.GetBE16(), 0);
  EXPECT_EQ(in.GetVarint(), 0u);
  EXPECT_EQ(in.GetLengthPrefixed(), "");
  in.GetBytes(0);
  EXPECT_FALSE(in.ok());
}

TEST(ByteReaderTest, EachReadKindFailsOnTruncation) {
  Bytes one = {0x12};
  {
    ByteReader in(one.data(), one.size());
    EXPECT_EQ(in.GetBE16(), 0);
    EXPECT_FALSE(in.ok());
  }
  {
    ByteReader in(one.data(), size_t(0));
    EXPECT_EQ(in.GetByte(), 0);
    EXPECT_FALSE(in.ok());
  }
  {
    Bytes s = {5, 'a', 'b'};  // length 5, only 2 bytes follow
    ByteReader in(s.data(), s.size());
    EXPECT_EQ(in.GetLengthPrefixed(), "");
    EXPECT_FALSE(in.ok());
  }
  {
    // A length whose varint overflows must not be mistaken for a small one.
    Bytes s = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 'x'};
    ByteReader in(s.data(), s.size());
    EXPECT_EQ(in.GetLengthPrefixed(), "");
    EXPECT_FALSE(in.ok());
  }
}

TEST(ByteReaderTest, FailMovesToTheEnd) {
  Bytes b = {1, 2, 3};
  ByteReader in(b.data(), b.data() + b.size());
  in.Fail();
  EXPECT_FALSE(in.ok());
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(in.pos(), b.data() + b.size());
}

TEST(FitsWithinTest, ChecksRangesWithoutOverflow) {
  EXPECT_TRUE(FitsWithin(0, 0, 0));
  EXPECT_TRUE(FitsWithin(0, 10, 10));
  EXPECT_TRUE(FitsWithin(10, 0, 10));
  EXPECT_FALSE(FitsWithin(11, 0, 10));
  EXPECT_FALSE(FitsWithin(5, 6, 10));
  EXPECT_FALSE(FitsWithin(1, ~uint64_t(0), 10));
  EXPECT_FALSE(FitsWithin(~uint64_t(0), 2, 10));
}

}  // namespace
}  // namespace reftab
