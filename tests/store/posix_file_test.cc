// The POSIX file system's whole-file reads (ReadFile, ReadPinned) read into the string in
// chunks that start small and double: contents of every size around the chunk boundaries,
// and a file of several MiB, come back byte for byte. BufferedSink writes whole chunks.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "store/file.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = char(rng());
  return s;
}

void WriteRaw(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  ASSERT_EQ(std::fclose(f), 0);
}

TEST(PosixFileTest, WholeFileReadsReturnEveryByte) {
  TempDir tmp("posixfile");
  const size_t sizes[] = {0,    1,    43,   1023, 1024,  1025,          3071,
                          3072, 3073, 7168, 8191, 65536, (3u << 20) + 7};
  for (size_t n : sizes) {
    SCOPED_TRACE(n);
    const std::string path = tmp.path() + "/f" + std::to_string(n);
    const std::string bytes = RandomBytes(n, uint32_t(n));
    WriteRaw(path, bytes);
    Result<std::string> read = PosixFileSystem()->ReadFile(path);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_TRUE(*read == bytes);
    std::string pinned = "left over from an earlier read";
    FileInfo info;
    auto pin = PosixFileSystem()->ReadPinned(path, &pinned, &info);
    ASSERT_TRUE(pin.ok()) << pin.status().ToString();
    EXPECT_TRUE(pinned == bytes);
    EXPECT_EQ(info.size, n);
  }
}

// AppendTwo writes `head` then `body` (writev on the operating system's files, write when
// `body` is empty; the default joins them): parts of every size, empty ones included, after
// earlier appends, land byte for byte, as with a string sink.
TEST(PosixFileTest, AppendTwoWritesBothPartsInOrder) {
  TempDir tmp("posixfile");
  const std::string path = tmp.path() + "/two";
  auto created = PosixFileSystem()->Create(path, /*exclusive=*/true);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::unique_ptr<WritableFile> file = std::move(*created);
  std::string expected;
  std::string sunk;
  StringSink joined(&sunk);
  const size_t sizes[] = {0, 1, 12, 4096, (2u << 20) + 3};
  uint32_t seed = 0;
  for (size_t h : sizes) {
    for (size_t b : sizes) {
      const std::string head = RandomBytes(h, ++seed);
      const std::string body = RandomBytes(b, ++seed);
      ASSERT_TRUE(file->AppendTwo(head, body).ok());
      ASSERT_TRUE(joined.AppendTwo(head, body).ok());
      expected += head;
      expected += body;
    }
  }
  ASSERT_TRUE(file->Close().ok());
  Result<std::string> read = PosixFileSystem()->ReadFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(*read == expected);
  EXPECT_TRUE(sunk == expected);
}

// Release gives pages back, not bytes: whatever ranges are released (unaligned, past the
// end, the whole file), every byte reads as before.
TEST(PosixFileTest, ReleasedRangesReadTheSameBytes) {
  TempDir tmp("posixfile");
  const std::string path = tmp.path() + "/mapped";
  const std::string bytes = RandomBytes((1u << 20) + 123, 7);
  WriteRaw(path, bytes);
  auto file = PosixFileSystem()->OpenRead(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const RandomAccessFile& f = **file;
  ASSERT_EQ(f.size(), bytes.size());
  auto same = [&] {
    return std::string_view(reinterpret_cast<const char*>(f.data()), f.size()) == bytes;
  };
  ASSERT_TRUE(same());
  const uint64_t ranges[][2] = {{0, 4096},          {100, 50000},       {4095, 2},
                                {300000, 1u << 30}, {bytes.size(), 10}, {bytes.size() + 5, 1},
                                {0, bytes.size()}};
  for (const auto& r : ranges) {
    f.Release(r[0], r[1]);
    EXPECT_TRUE(same()) << r[0] << " " << r[1];
  }
}

// Records the size of every append it is given.
class RecordingFile final : public WritableFile {
 public:
  Status Append(std::string_view data) override {
    sizes.push_back(data.size());
    bytes.append(data);
    return Status::Ok();
  }
  Status Sync() override { return Status::Ok(); }
  Status Close() override { return Status::Ok(); }
  std::vector<size_t> sizes;
  std::string bytes;
};

// A BufferedSink hands the file pieces of exactly its chunk (the last one apart), whatever
// the sizes of the appends, passing whole chunks of a large append without a copy; its
// buffer's memory goes from one sink to the next.
TEST(BufferedSinkTest, WritesWholeChunksAndPassesItsBufferOn) {
  constexpr size_t kChunk = 4096;
  const std::string data = RandomBytes(10 * kChunk + 123, 5);
  const std::vector<size_t> appends = {1,  100,        kChunk - 101, kChunk, 3 * kChunk + 7,
                                       17, 2 * kChunk, kChunk - 1};
  auto file = std::make_unique<RecordingFile>();
  RecordingFile* seen = file.get();
  BufferedSink sink(std::move(file), kChunk);
  size_t at = 0;
  for (size_t n : appends) {
    ASSERT_TRUE(sink.Append(std::string_view(data).substr(at, n)).ok());
    at += n;
  }
  ASSERT_TRUE(sink.Append(std::string_view(data).substr(at)).ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(seen->bytes, data);
  size_t offset = 0;
  for (size_t i = 0; i < seen->sizes.size(); ++i) {
    EXPECT_EQ(offset % kChunk, 0u) << i;  // every piece starts at a multiple of the chunk
    if (i + 1 < seen->sizes.size()) {
      EXPECT_EQ(seen->sizes[i] % kChunk, 0u) << i;
    }
    offset += seen->sizes[i];
  }
  EXPECT_LT(seen->sizes.size(), 10u);  // the three chunks of one append went as one
  std::string buffer = sink.TakeBuffer();
  EXPECT_TRUE(buffer.empty());
  EXPECT_GE(buffer.capacity(), kChunk);
  const char* memory = buffer.data();
  auto next_file = std::make_unique<RecordingFile>();
  RecordingFile* next_seen = next_file.get();
  BufferedSink next(std::move(next_file), kChunk, std::move(buffer));
  ASSERT_TRUE(next.Append("abc").ok());
  EXPECT_EQ(next.TakeBuffer().data(), memory);  // the same memory, its bytes dropped
  EXPECT_TRUE(next_seen->bytes.empty());
}

TEST(PosixFileTest, MissingFileNamesThePath) {
  TempDir tmp("posixfile");
  Result<std::string> read = PosixFileSystem()->ReadFile(tmp.path() + "/nothing-here");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().ToString().find("nothing-here"), std::string::npos);
}

}  // namespace
}  // namespace reftab
