// format/compression.h: whole-block zlib streams for log blocks (FORMAT.md §8.6).
#include "format/compression.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace reftab {
namespace {

const uint8_t* U8(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

std::string Compress(const std::string& plain) {
  Deflater d;
  std::string out;
  Status s = d.Compress(U8(plain), plain.size(), &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

std::string SamplePlain(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s;
  while (s.size() < n) s += "refs/heads/topic-" + std::to_string(rng() % 1000) + '\0';
  s.resize(n);
  return s;
}

TEST(DeflaterTest, WritesAZlibStreamWithGitsLevel9Header) {
  std::string z = Compress(SamplePlain(500, 1));
  ASSERT_GE(z.size(), 2u);
  EXPECT_EQ(uint8_t(z[0]), 0x78);
  EXPECT_EQ(uint8_t(z[1]), 0xda);  // level 9, as git writes log blocks
}

TEST(DeflaterTest, AppendsAndIsReusable) {
  Deflater d;
  std::string out = "prefix";
  std::string a = SamplePlain(1000, 2), b = SamplePlain(3000, 3);
  ASSERT_TRUE(d.Compress(U8(a), a.size(), &out).ok());
  size_t first_end = out.size();
  ASSERT_TRUE(d.Compress(U8(b), b.size(), &out).ok());
  EXPECT_EQ(out.substr(0, 6), "prefix");
  // Reusing the stream gives the same bytes as a fresh one (deflateReset).
  EXPECT_EQ(out.substr(6, first_end - 6), Compress(a));
  EXPECT_EQ(out.substr(first_end), Compress(b));
}

TEST(InflaterTest, RoundTripsAndReportsTheConsumedBytes) {
  Inflater inf;
  for (size_t n : {0u, 1u, 100u, 4096u, 70000u}) {
    std::string plain = SamplePlain(n, n);
    std::string z = Compress(plain);
    // Bytes after the stream (the next block, the footer) are not part of it.
    std::string input = z + "RREFTnext block bytes";
    std::vector<uint8_t> out(n);
    size_t consumed = 0;
    Status s = inf.Inflate(U8(input), input.size(), out.data(), n, &consumed);
    ASSERT_TRUE(s.ok()) << n << ": " << s.ToString();
    EXPECT_EQ(consumed, z.size());
    EXPECT_EQ(std::string(out.begin(), out.end()), plain);
  }
}

TEST(InflaterTest, RejectsAStreamLongerThanAnnounced) {
  std::string plain = SamplePlain(1000, 4);
  std::string z = Compress(plain);
  std::vector<uint8_t> out(plain.size());
  Inflater inf;
  for (size_t announced : {size_t(0), size_t(1), plain.size() - 1}) {
    size_t consumed = 0;
    Status s = inf.Inflate(U8(z), z.size(), out.data(), announced, &consumed);
    EXPECT_FALSE(s.ok()) << announced;
    EXPECT_EQ(s.code(), Code::kCorruption);
  }
}

TEST(InflaterTest, RejectsAStreamShorterThanAnnounced) {
  std::string plain = SamplePlain(1000, 5);
  std::string z = Compress(plain);
  std::vector<uint8_t> out(plain.size() + 100);
  Inflater inf;
  for (size_t announced : {plain.size() + 1, plain.size() + 100}) {
    size_t consumed = 0;
    Status s = inf.Inflate(U8(z), z.size(), out.data(), announced, &consumed);
    EXPECT_FALSE(s.ok()) << announced;
    EXPECT_EQ(s.code(), Code::kCorruption);
  }
}

TEST(InflaterTest, RejectsTruncatedAndGarbageStreams) {
  std::string plain = SamplePlain(2000, 6);
  std::string z = Compress(plain);
  std::vector<uint8_t> out(plain.size());
  Inflater inf;
  for (size_t len = 0; len < z.size(); ++len) {
    size_t consumed = 0;
    Status s = inf.Inflate(U8(z), len, out.data(), out.size(), &consumed);
    EXPECT_FALSE(s.ok()) << "cut at " << len;
  }
  std::string garbage = "this is not a zlib stream at all";
  size_t consumed = 0;
  EXPECT_FALSE(inf.Inflate(U8(garbage), garbage.size(), out.data(), out.size(), &consumed).ok());
  // A broken Adler-32 trailer.
  std::string bad_sum = z;
  bad_sum.back() = char(bad_sum.back() ^ 1);
  EXPECT_FALSE(inf.Inflate(U8(bad_sum), bad_sum.size(), out.data(), out.size(), &consumed).ok());
  // The same Inflater still works after errors.
  ASSERT_TRUE(inf.Inflate(U8(z), z.size(), out.data(), out.size(), &consumed).ok());
  EXPECT_EQ(std::string(out.begin(), out.end()), plain);
}

}  // namespace
}  // namespace reftab
