// format/header.h: TableHeader and TableFooter (FORMAT.md §4, §11, §20.4).
#include "format/header.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "format/bytes.h"

namespace reftab {
namespace {

const uint8_t* U8(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

TableHeader V1Header() {
  TableHeader h;
  h.version = 1;
  h.block_size = 4096;
  h.min_update_index = 1;
  h.max_update_index = 2;
  return h;
}

TableHeader V2Header() {
  TableHeader h = V1Header();
  h.version = 2;
  h.hash_id = HashId::kSha256;
  return h;
}

// The v1 footer of FORMAT.md §20.4 (274-byte table, log block at 97).
TableFooter DocV1Footer() {
  TableFooter f;
  f.header = V1Header();
  f.log_position = 97;
  return f;
}

TEST(TableHeaderTest, EncodesV1In24Bytes) {
  std::string out;
  V1Header().EncodeTo(&out);
  EXPECT_EQ(out, Unhex("5245465401001000"
                       "0000000000000001"
                       "0000000000000002"));
}

TEST(TableHeaderTest, EncodesV2In28BytesWithHashId) {
  std::string out;
  V2Header().EncodeTo(&out);
  EXPECT_EQ(out, Unhex("5245465402001000"
                       "0000000000000001"
                       "0000000000000002"
                       "73323536"));
}

TEST(TableHeaderTest, RoundTripsBothVersions) {
  for (const TableHeader& h : {V1Header(), V2Header()}) {
    std::string bytes;
    h.EncodeTo(&bytes);
    ASSERT_EQ(bytes.size(), h.header_size());
    auto got = TableHeader::DecodeFrom(U8(bytes), bytes.size());
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->version, h.version);
    EXPECT_EQ(got->block_size, h.block_size);
    EXPECT_EQ(got->min_update_index, h.min_update_index);
    EXPECT_EQ(got->max_update_index, h.max_update_index);
    EXPECT_EQ(got->hash_id, h.hash_id);
  }
}

TEST(TableHeaderTest, AcceptsV2WithSha1HashIdAndBlockSizeZero) {
  TableHeader h = V2Header();
  h.hash_id = HashId::kSha1;
  h.block_size = 0;  // JGit's unaligned tables
  std::string bytes;
  h.EncodeTo(&bytes);
  auto got = TableHeader::DecodeFrom(U8(bytes), bytes.size());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->hash_id, HashId::kSha1);
  EXPECT_EQ(got->hash_size(), 20u);
  EXPECT_EQ(got->block_size, 0u);
}

TEST(TableHeaderTest, RejectsBadMagicVersionHashIdAndShortInput) {
  std::string v1, v2;
  V1Header().EncodeTo(&v1);
  V2Header().EncodeTo(&v2);
  std::string bad_magic = v1;
  bad_magic[3] = 'X';
  std::string version0 = v1, version3 = v1;
  version0[4] = 0;
  version3[4] = 3;
  std::string bad_hash = v2;
  bad_hash[27] = '7';
  for (const std::string& b : {bad_magic, version0, version3, bad_hash}) {
    auto got = TableHeader::DecodeFrom(U8(b), b.size());
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), Code::kCorruption);
  }
  for (size_t len = 0; len < v2.size(); ++len) {
    EXPECT_FALSE(TableHeader::DecodeFrom(U8(v2), len).ok()) << len;
  }
  for (size_t len = 0; len < v1.size(); ++len) {
    EXPECT_FALSE(TableHeader::DecodeFrom(U8(v1), len).ok()) << len;
  }
}

TEST(TableFooterTest, EncodesTheFormatDocV1Footer) {
  std::string out;
  DocV1Footer().EncodeTo(&out);
  EXPECT_EQ(out.size(), 68u);
  EXPECT_EQ(out, Unhex("5245465401001000"
                       "0000000000000001"
                       "0000000000000002"
                       "0000000000000000"
                       "0000000000000000"
                       "0000000000000000"
                       "0000000000000061"
                       "0000000000000000"
                       "1eeed5cf"));
}

TEST(TableFooterTest, EncodesTheFormatDocV2Footer) {
  TableFooter f;
  f.header = V2Header();
  f.log_position = 113;
  std::string out;
  f.EncodeTo(&out);
  EXPECT_EQ(out.size(), 72u);
  EXPECT_EQ(out, Unhex("5245465402001000"
                       "0000000000000001"
                       "0000000000000002"
                       "73323536"
                       "0000000000000000"
                       "0000000000000000"
                       "0000000000000000"
                       "0000000000000071"
                       "0000000000000000"
                       "9a4b170e"));
}

TEST(TableFooterTest, RoundTripsEveryField) {
  for (const TableHeader& h : {V1Header(), V2Header()}) {
    TableFooter f;
    f.header = h;
    f.ref_index_position = 258048;
    f.obj_position = 262144;
    f.obj_id_len = 31;
    f.obj_index_position = 0x123456789;
    f.log_position = 262283;
    f.log_index_position = 295889;
    std::string bytes;
    f.EncodeTo(&bytes);
    ASSERT_EQ(bytes.size(), h.footer_size());
    // The obj field packs position and id length: (262144 << 5) | 31.
    EXPECT_EQ(be::Load64(U8(bytes) + h.header_size() + 8), (uint64_t(262144) << 5) | 31);
    auto got = TableFooter::DecodeFrom(U8(bytes), bytes.size(), U8(bytes));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->header.version, h.version);
    EXPECT_EQ(got->header.hash_id, h.hash_id);
    EXPECT_EQ(got->ref_index_position, f.ref_index_position);
    EXPECT_EQ(got->obj_position, f.obj_position);
    EXPECT_EQ(got->obj_id_len, f.obj_id_len);
    EXPECT_EQ(got->obj_index_position, f.obj_index_position);
    EXPECT_EQ(got->log_position, f.log_position);
    EXPECT_EQ(got->log_index_position, f.log_index_position);
  }
}

TEST(TableFooterTest, RejectsEveryCorruptedByte) {
  // The CRC covers the header copy and all positions; the header copy must also match the
  // file's header. So no single-byte change may go unnoticed.
  for (const TableHeader& h : {V1Header(), V2Header()}) {
    TableFooter f;
    f.header = h;
    f.log_position = 97;
    std::string good;
    f.EncodeTo(&good);
    std::string header_bytes = good.substr(0, h.header_size());
    for (size_t i = 0; i < good.size(); ++i) {
      for (uint8_t x : {0x01, 0x80, 0xff}) {
        std::string bad = good;
        bad[i] = char(uint8_t(bad[i]) ^ x);
        auto got = TableFooter::DecodeFrom(U8(bad), bad.size(), U8(header_bytes));
        ASSERT_FALSE(got.ok()) << "byte " << i << " ^ " << int(x);
        EXPECT_EQ(got.status().code(), Code::kCorruption);
      }
    }
  }
}

TEST(TableFooterTest, ReportsCrcMismatch) {
  std::string good;
  DocV1Footer().EncodeTo(&good);
  std::string bad = good;
  bad[68 - 1] ^= 1;
  auto got = TableFooter::DecodeFrom(U8(bad), bad.size(), U8(good));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("CRC"), std::string::npos) << got.status().message();
}

TEST(TableFooterTest, ReportsHeaderCopyMismatch) {
  // A valid footer (correct CRC) whose header copy differs from the file's header.
  std::string footer;
  DocV1Footer().EncodeTo(&footer);
  TableHeader other = V1Header();
  other.max_update_index = 3;
  std::string file_header;
  other.EncodeTo(&file_header);
  auto got = TableFooter::DecodeFrom(U8(footer), footer.size(), U8(file_header));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kCorruption);
  EXPECT_NE(got.status().message().find("header"), std::string::npos) << got.status().message();
}

TEST(TableFooterTest, RejectsWrongSizeAndBadVersionOrHashId) {
  std::string v1;
  DocV1Footer().EncodeTo(&v1);
  EXPECT_FALSE(TableFooter::DecodeFrom(U8(v1), v1.size() - 1, U8(v1)).ok());
  // A v1 footer where a v2 one (72 bytes) is expected.
  std::string longer = v1 + "abcd";
  EXPECT_FALSE(TableFooter::DecodeFrom(U8(longer), longer.size(), U8(longer)).ok());

  // Bad version and hash id with a recomputed CRC, so the field check itself must fire.
  auto with_valid_crc = [](std::string b) {
    size_t crc_at = b.size() - 4;
    be::Store32(reinterpret_cast<uint8_t*>(b.data()) + crc_at, Crc32(U8(b), crc_at));
    return b;
  };
  std::string v3 = v1;
  v3[4] = 3;
  v3 = with_valid_crc(v3);
  EXPECT_FALSE(TableFooter::DecodeFrom(U8(v3), v3.size(), U8(v3)).ok());
  TableFooter f2;
  f2.header = V2Header();
  std::string v2;
  f2.EncodeTo(&v2);
  v2[24] = 'x';
  v2 = with_valid_crc(v2);
  auto got = TableFooter::DecodeFrom(U8(v2), v2.size(), U8(v2));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("hash"), std::string::npos) << got.status().message();
}

TEST(TableFooterTest, RejectsObjSectionWithoutIdLength) {
  TableFooter f = DocV1Footer();
  f.obj_position = 4096;
  f.obj_id_len = 0;
  std::string bytes;
  f.EncodeTo(&bytes);
  auto got = TableFooter::DecodeFrom(U8(bytes), bytes.size(), U8(bytes));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kCorruption);
}

TEST(Crc32Test, MatchesTheStandardCheckValue) {
  const std::string check = "123456789";
  EXPECT_EQ(Crc32(U8(check), check.size()), 0xcbf43926u);
  EXPECT_EQ(Crc32(nullptr, 0), 0u);
}

}  // namespace
}  // namespace reftab
