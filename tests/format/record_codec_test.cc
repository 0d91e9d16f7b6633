// format/record_codec.h: value encodings of ref, log, obj and index records (FORMAT.md
// §7-§10) and the log key layout.
#include "format/record_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "format/block_reader.h"
#include "format/bytes.h"
#include "format/record.h"

namespace reftab {
namespace {

using Bytes = std::vector<uint8_t>;

ObjectId IdOf(uint8_t seed) {
  ObjectId id{};
  for (size_t i = 0; i < kMaxHashSize; ++i) id[i] = uint8_t(seed + i * 7);
  return id;
}

// Only the first hash_size bytes of an id are meaningful; compare just those.
bool SameId(const ObjectId& a, const ObjectId& b, size_t hash_size) {
  return std::equal(a.begin(), a.begin() + long(hash_size), b.begin());
}

Bytes EncodeRef(const RefRecord& r, uint64_t min, size_t hash_size) {
  Bytes buf(codec::RefValueMaxSize(r, hash_size));
  Appender a(buf.data());
  codec::PutRefValue(a, r, min, hash_size);
  buf.resize(size_t(a.pos() - buf.data()));
  return buf;
}

Bytes EncodeLog(const LogRecord& l, size_t hash_size) {
  Bytes buf(codec::LogValueMaxSize(l, hash_size));
  Appender a(buf.data());
  codec::PutLogValue(a, l, hash_size);
  buf.resize(size_t(a.pos() - buf.data()));
  return buf;
}

std::vector<RefRecord> SampleRefs() {
  std::vector<RefRecord> refs(4);
  refs[0].refname = "refs/heads/gone";
  refs[0].update_index = 5;
  refs[0].value_type = RefValueType::kDeletion;
  refs[1].refname = "refs/heads/main";
  refs[1].update_index = 300;
  refs[1].value_type = RefValueType::kVal1;
  refs[1].value = IdOf(1);
  refs[2].refname = "refs/tags/v1.0";
  refs[2].update_index = 3;
  refs[2].value_type = RefValueType::kVal2;
  refs[2].value = IdOf(2);
  refs[2].peeled = IdOf(3);
  refs[3].refname = "HEAD";
  refs[3].update_index = 1;
  refs[3].value_type = RefValueType::kSymref;
  refs[3].target = "refs/heads/main";
  return refs;
}

TEST(RefCodecTest, RoundTripsEveryValueTypeForBothHashes) {
  for (size_t hs : {kSha1Size, kSha256Size}) {
    for (const RefRecord& r : SampleRefs()) {
      Bytes b = EncodeRef(r, 1, hs);
      ByteReader in(b.data(), b.size());
      RefRecord got;
      ASSERT_TRUE(codec::GetRefValue(in, uint8_t(r.value_type), 1, hs, &got)) << r.refname;
      EXPECT_EQ(in.remaining(), 0u);
      EXPECT_EQ(got.update_index, r.update_index);
      EXPECT_EQ(got.value_type, r.value_type);
      if (r.value_type == RefValueType::kVal1 || r.value_type == RefValueType::kVal2) {
        EXPECT_TRUE(SameId(got.value, r.value, hs));
      }
      if (r.value_type == RefValueType::kVal2) {
        EXPECT_TRUE(SameId(got.peeled, r.peeled, hs));
      }
      if (r.value_type == RefValueType::kSymref) {
        EXPECT_EQ(got.target, r.target);
      }
      ByteReader skip(b.data(), b.size());
      EXPECT_TRUE(codec::SkipRefValue(skip, uint8_t(r.value_type), hs));
      EXPECT_EQ(skip.remaining(), 0u);
    }
  }
}

TEST(RefCodecTest, EncodesTheFormatDocSymrefValue) {
  // FORMAT.md §20.1: update_index_delta 0, then varint(15) "refs/heads/main".
  RefRecord head = SampleRefs()[3];
  Bytes b = EncodeRef(head, 1, kSha1Size);
  Bytes want = {0x00, 0x0f};
  for (char c : std::string("refs/heads/main")) want.push_back(uint8_t(c));
  EXPECT_EQ(b, want);
}

TEST(RefCodecTest, RejectsReservedTypesAndTruncation) {
  Bytes b = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
  for (uint8_t type = 4; type < 8; ++type) {
    ByteReader in(b.data(), b.size());
    RefRecord r;
    EXPECT_FALSE(codec::GetRefValue(in, type, 0, kSha1Size, &r));
    ByteReader skip(b.data(), b.size());
    EXPECT_FALSE(codec::SkipRefValue(skip, type, kSha1Size));
  }
  for (const RefRecord& r : SampleRefs()) {
    if (r.value_type == RefValueType::kDeletion) continue;
    Bytes full = EncodeRef(r, 1, kSha256Size);
    for (size_t len = 0; len < full.size(); ++len) {
      ByteReader in(full.data(), len);
      RefRecord got;
      EXPECT_FALSE(codec::GetRefValue(in, uint8_t(r.value_type), 1, kSha256Size, &got))
          << r.refname << " cut at " << len;
      ByteReader skip(full.data(), len);
      EXPECT_FALSE(codec::SkipRefValue(skip, uint8_t(r.value_type), kSha256Size));
    }
  }
}

LogRecord SampleLog() {
  LogRecord l;
  l.refname = "refs/heads/main";
  l.update_index = 2;
  l.value_type = LogValueType::kUpdate;
  l.new_id = IdOf(9);
  l.name = "C";
  l.email = "c@x";
  l.time = 1700000000;
  l.tz_offset = 200;
  l.message = "commit (initial): init\n";
  return l;
}

TEST(LogCodecTest, EncodesTheFormatDocLogValue) {
  // FORMAT.md §20.5: ids, 01 "C", 03 "c@x", time 85 a9 ce e1 00, tz 00 c8, 17 message.
  LogRecord l = SampleLog();
  Bytes b = EncodeLog(l, kSha1Size);
  Bytes want(20, 0);
  want.insert(want.end(), l.new_id.begin(), l.new_id.begin() + 20);
  Bytes tail = {0x01, 'C', 0x03, 'c', '@', 'x', 0x85, 0xa9, 0xce, 0xe1, 0x00, 0x00, 0xc8, 0x17};
  want.insert(want.end(), tail.begin(), tail.end());
  for (char c : l.message) want.push_back(uint8_t(c));
  EXPECT_EQ(b, want);
}

TEST(LogCodecTest, RoundTripsUpdatesAndDeletions) {
  for (size_t hs : {kSha1Size, kSha256Size}) {
    for (int16_t tz : {int16_t(0), int16_t(-800), int16_t(1400), int16_t(-32768), int16_t(32767)}) {
      LogRecord l = SampleLog();
      l.tz_offset = tz;
      l.old_id = IdOf(4);
      l.message = std::string(300, 'm');  // a multi-byte length varint
      l.time = ~uint64_t(0);
      Bytes b = EncodeLog(l, hs);
      ByteReader in(b.data(), b.size());
      LogRecord got;
      ASSERT_TRUE(codec::GetLogValue(in, 1, hs, &got));
      EXPECT_EQ(in.remaining(), 0u);
      EXPECT_TRUE(SameId(got.old_id, l.old_id, hs));
      EXPECT_TRUE(SameId(got.new_id, l.new_id, hs));
      EXPECT_EQ(got.name, l.name);
      EXPECT_EQ(got.email, l.email);
      EXPECT_EQ(got.time, l.time);
      EXPECT_EQ(got.tz_offset, tz);
      EXPECT_EQ(got.message, l.message);
      ByteReader skip(b.data(), b.size());
      EXPECT_TRUE(SkipValue(skip, BlockType::kLog, 1, hs));
      EXPECT_EQ(skip.remaining(), 0u);
    }
  }
  LogRecord deletion;
  deletion.value_type = LogValueType::kDeletion;
  EXPECT_TRUE(EncodeLog(deletion, kSha1Size).empty());
  // Decoding a deletion clears whatever the reused record held.
  LogRecord reused = SampleLog();
  ByteReader empty(nullptr, size_t(0));
  ASSERT_TRUE(codec::GetLogValue(empty, 0, kSha1Size, &reused));
  EXPECT_TRUE(reused.is_deletion());
  EXPECT_TRUE(reused.message.empty());
  EXPECT_TRUE(reused.name.empty());
}

TEST(LogCodecTest, RejectsUnknownTypesAndTruncation) {
  Bytes full = EncodeLog(SampleLog(), kSha1Size);
  for (uint8_t type = 2; type < 8; ++type) {
    ByteReader in(full.data(), full.size());
    LogRecord got;
    EXPECT_FALSE(codec::GetLogValue(in, type, kSha1Size, &got));
  }
  for (size_t len = 0; len < full.size(); ++len) {
    ByteReader in(full.data(), len);
    LogRecord got;
    EXPECT_FALSE(codec::GetLogValue(in, 1, kSha1Size, &got)) << len;
    ByteReader skip(full.data(), len);
    EXPECT_FALSE(SkipValue(skip, BlockType::kLog, 1, kSha1Size)) << len;
  }
}

TEST(LogKeyTest, PutsNameNulAndReversedIndex) {
  std::string key;
  codec::PutLogKey(&key, "HEAD", 2);
  EXPECT_EQ(key, std::string("HEAD\0\xff\xff\xff\xff\xff\xff\xff\xfd", 13));
  std::string name;
  uint64_t index = 0;
  ASSERT_TRUE(codec::SplitLogKey(key, &name, &index));
  EXPECT_EQ(name, "HEAD");
  EXPECT_EQ(index, 2u);
}

TEST(LogKeyTest, NewerEntriesSortFirstAndNamesBeforeLongerNames) {
  std::string newer, older, longer;
  codec::PutLogKey(&newer, "refs/a", 10);
  codec::PutLogKey(&older, "refs/a", 9);
  codec::PutLogKey(&longer, "refs/a/b", ~uint64_t(0));
  EXPECT_LT(newer, older);
  EXPECT_LT(older, longer);
  for (uint64_t i : {uint64_t(0), uint64_t(1), ~uint64_t(0)}) {
    std::string key, name;
    uint64_t got = 5;
    codec::PutLogKey(&key, "x", i);
    ASSERT_TRUE(codec::SplitLogKey(key, &name, &got));
    EXPECT_EQ(got, i);
  }
}

TEST(LogKeyTest, RejectsKeysOfNineBytesOrWithoutNul) {
  std::string name;
  uint64_t index;
  EXPECT_FALSE(codec::SplitLogKey(std::string(9, '\0'), &name, &index));
  EXPECT_FALSE(codec::SplitLogKey("", &name, &index));
  EXPECT_FALSE(codec::SplitLogKey("HEADx12345678", &name, &index));
  EXPECT_TRUE(codec::SplitLogKey(std::string("H\0\0\0\0\0\0\0\0\0", 10), &name, &index));
}

std::vector<uint64_t> RoundTripObj(const std::vector<uint64_t>& positions, Bytes* encoded) {
  Bytes buf(codec::ObjValueMaxSize(positions.size()));
  Appender a(buf.data());
  codec::PutObjValue(a, positions.data(), positions.size());
  buf.resize(size_t(a.pos() - buf.data()));
  *encoded = buf;
  ByteReader in(buf.data(), buf.size());
  std::vector<uint64_t> got = {12345};  // stale content must be replaced
  EXPECT_TRUE(codec::GetObjValue(in, codec::ObjValueType(positions.size()), &got));
  EXPECT_EQ(in.remaining(), 0u);
  return got;
}

TEST(ObjCodecTest, RoundTripsCountsAroundTheThreeBitField) {
  for (size_t count : {0u, 1u, 2u, 7u, 8u, 9u, 63u, 200u}) {
    std::vector<uint64_t> positions;
    for (size_t i = 0; i < count; ++i) positions.push_back(4096 * i + (i % 3));
    Bytes encoded;
    EXPECT_EQ(RoundTripObj(positions, &encoded), positions) << count;
    EXPECT_EQ(codec::ObjValueType(count), count >= 1 && count <= 7 ? count : 0u);
    ByteReader skip(encoded.data(), encoded.size());
    EXPECT_TRUE(SkipValue(skip, BlockType::kObj, codec::ObjValueType(count), kSha1Size));
    EXPECT_EQ(skip.remaining(), 0u);
  }
}

TEST(ObjCodecTest, EncodesTheFormatDocManyPositionsRecord) {
  // FORMAT.md §20.7: count 63 (cnt_3 = 0, varint 3f), first 0, then 62 deltas of 4096.
  std::vector<uint64_t> positions;
  for (uint64_t i = 0; i < 63; ++i) positions.push_back(4096 * i);
  Bytes encoded;
  RoundTripObj(positions, &encoded);
  ASSERT_GE(encoded.size(), 4u);
  EXPECT_EQ(Bytes(encoded.begin(), encoded.begin() + 4), (Bytes{0x3f, 0x00, 0x9f, 0x00}));
  EXPECT_EQ(encoded.size(), 2u + 62 * 2);
}

TEST(ObjCodecTest, RejectsHostileCountsAndOverflowingDeltas) {
  // A count far larger than the bytes that follow must fail without a huge allocation.
  Bytes huge = {0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x01};
  ByteReader in(huge.data(), huge.size());
  std::vector<uint64_t> got;
  EXPECT_FALSE(codec::GetObjValue(in, 0, &got));
  ByteReader skip(huge.data(), huge.size());
  EXPECT_FALSE(SkipValue(skip, BlockType::kObj, 0, kSha1Size));
  // Two positions whose sum wraps around 2^64.
  Bytes wrap = {0x80, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0x7f, 0x02};
  ByteReader w(wrap.data(), wrap.size());
  EXPECT_FALSE(codec::GetObjValue(w, 2, &got));
  // Truncated position list.
  Bytes cut = {0x05, 0x01};
  ByteReader c(cut.data(), cut.size());
  EXPECT_FALSE(codec::GetObjValue(c, 3, &got));
}

TEST(IndexCodecTest, SkipsTheBlockPosition) {
  Bytes b = {0x8e, 0xbf, 0x00};  // 253952, FORMAT.md §20.7
  ByteReader in(b.data(), b.size());
  EXPECT_TRUE(SkipValue(in, BlockType::kIndex, 0, kSha1Size));
  EXPECT_EQ(in.remaining(), 0u);
  ByteReader value(b.data(), b.size());
  EXPECT_EQ(value.GetVarint(), 253952u);
  ByteReader cut(b.data(), 2);
  EXPECT_FALSE(SkipValue(cut, BlockType::kIndex, 0, kSha1Size));
}

TEST(HexIdTest, FormatsAndParsesLowercaseHex) {
  ObjectId id{};
  ASSERT_TRUE(ParseHexId("88751306180ff00d452d6f429b84d058fdf2d98b", kSha1Size, &id));
  EXPECT_EQ(id[0], 0x88);
  EXPECT_EQ(id[19], 0x8b);
  EXPECT_EQ(HexId(id, kSha1Size), "88751306180ff00d452d6f429b84d058fdf2d98b");
  EXPECT_TRUE(ParseHexId("88751306180FF00D452D6F429B84D058FDF2D98B", kSha1Size, &id));
  EXPECT_FALSE(ParseHexId("88751306180ff00d452d6f429b84d058fdf2d98", kSha1Size, &id));
  EXPECT_FALSE(ParseHexId("g8751306180ff00d452d6f429b84d058fdf2d98b", kSha1Size, &id));
  EXPECT_FALSE(ParseHexId(std::string(64, '0'), kSha1Size, &id));
  EXPECT_TRUE(ParseHexId(std::string(64, 'f'), kSha256Size, &id));
  EXPECT_EQ(id[31], 0xff);
}

// Every byte value in every position, both id sizes and an odd one, against a plain
// byte-at-a-time rendering; appended after what the buffer held.
TEST(HexIdTest, AppendsEveryByteValue) {
  for (size_t hs : {size_t(20), size_t(32), size_t(7)}) {
    for (int start = 0; start < 256; start += 7) {
      ObjectId id{};
      for (size_t i = 0; i < id.size(); ++i) id[i] = uint8_t(start + int(i) * 37);
      std::string want = "x:";
      for (size_t i = 0; i < hs; ++i) {
        want.push_back("0123456789abcdef"[id[i] >> 4]);
        want.push_back("0123456789abcdef"[id[i] & 15]);
      }
      std::string out = "x:";
      AppendHexId(id, hs, &out);
      EXPECT_EQ(out, want) << hs << " " << start;
      EXPECT_EQ(HexId(id, hs), want.substr(2));
    }
  }
}

}  // namespace
}  // namespace reftab
