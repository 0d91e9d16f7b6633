// A log section of several blocks has every other block compressed on a second thread
// (store/background_deflater.h). These tests hold it to its promise: the table, and the log
// blocks it records for a later copy, are byte for byte those of a writer that compresses
// every block on one thread, however many blocks the section has and whether or not the
// table's first block is a log block; and a write that fails while the thread holds a block
// reports the failure and ends cleanly.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "store/background_deflater.h"
#include "store/file.h"
#include "store/table_log_blocks.h"
#include "store/table_reader.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

std::string Name(int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "refs/heads/topic/user-%04d/branch", i);
  return buf;
}

LogRecord Log(int i) {
  LogRecord l;
  l.refname = Name(i);
  l.update_index = 2;
  l.value_type = LogValueType::kUpdate;
  l.old_id = testutil::TestId(uint64_t(i) * 7 + 3, 20);
  l.new_id = testutil::TestId(uint64_t(i) + 1, 20);
  l.name = "C O Mitter";
  l.email = "committer@example.com";
  l.time = 1700000000 + uint64_t(i) * 13;
  l.tz_offset = 60;
  l.message = "update: message number " + std::to_string(i * i) + "\n";
  return l;
}

struct Written {
  std::string bytes;
  WrittenLogBlocks blocks;
  uint64_t log_blocks = 0;
};

// A table of `refs` refs (0 = a table of logs only) and `logs` reflog entries.
Written Write(int refs, int logs, uint32_t block_size, bool one_thread) {
  Written out;
  StringSink sink(&out.bytes);
  WriteOptions o;
  o.block_size = block_size;
  TableWriter w(o, &sink);
  TableLogBlocks::Record(w, &out.blocks);
  if (one_thread) TableLogBlocks::CompressOnOneThread(w);
  EXPECT_TRUE(w.SetLimits(1, 2).ok());
  for (int i = 0; i < refs; ++i) {
    RefRecord r;
    r.refname = Name(i);
    r.update_index = 2;
    r.value_type = RefValueType::kVal1;
    r.value = testutil::TestId(uint64_t(i) + 1, 20);
    EXPECT_TRUE(w.AddRef(r).ok());
  }
  for (int i = 0; i < logs; ++i) EXPECT_TRUE(w.AddLog(Log(i)).ok());
  Status s = w.Finish();
  EXPECT_TRUE(s.ok()) << s.ToString();
  out.log_blocks = out.blocks.blocks.size();
  return out;
}

void ExpectSame(const Written& threaded, const Written& serial, const std::string& what) {
  EXPECT_TRUE(threaded.bytes == serial.bytes)
      << what << ": " << threaded.bytes.size() << " vs " << serial.bytes.size() << " bytes";
  ASSERT_EQ(threaded.blocks.blocks.size(), serial.blocks.blocks.size()) << what;
  for (size_t i = 0; i < serial.blocks.blocks.size(); ++i) {
    EXPECT_EQ(threaded.blocks.blocks[i].offset, serial.blocks.blocks[i].offset) << what << i;
    EXPECT_EQ(threaded.blocks.blocks[i].size, serial.blocks.blocks[i].size) << what << i;
    EXPECT_EQ(threaded.blocks.blocks[i].last_key, serial.blocks.blocks[i].last_key) << what << i;
  }
  EXPECT_EQ(threaded.blocks.starts_table, serial.blocks.starts_table) << what;
}

TEST(BackgroundCompressionTest, SameBytesAsOneThreadForAnyNumberOfLogBlocks) {
  // From one block (no thread) through odd and even counts (the thread holds the last
  // block, or the caller's thread compressed it) to a section with a multi-level index.
  for (int logs : {1, 20, 40, 60, 100, 333, 3000}) {
    for (int refs : {0, 5, 500}) {
      const std::string what = std::to_string(refs) + " refs, " + std::to_string(logs) + " logs";
      Written threaded = Write(refs, logs, 256, false);
      Written serial = Write(refs, logs, 256, true);
      ExpectSame(threaded, serial, what);
      if (logs >= 40) {
        EXPECT_GT(serial.log_blocks, 2u) << what;
      }
      // The table reads back whole.
      auto t = TableReader::OpenBytes("t.ref", threaded.bytes);
      ASSERT_TRUE(t.ok()) << what << ": " << t.status().ToString();
    }
  }
}

TEST(BackgroundCompressionTest, DefaultBlockSizeSameBytes) {
  ExpectSame(Write(2000, 5000, 4096, false), Write(2000, 5000, 4096, true), "4 KiB blocks");
}

// A sink that fails from the `n`th append on.
class FailingSink final : public WritableFile {
 public:
  explicit FailingSink(int n) : left_(n) {}
  Status Append(std::string_view) override {
    if (--left_ <= 0) return Status::IoError("disk full (test)");
    return Status::Ok();
  }
  Status Sync() override { return Status::Ok(); }
  Status Close() override { return Status::Ok(); }

 private:
  int left_;
};

TEST(BackgroundCompressionTest, AFailedWriteIsReportedWhateverThreadHeldTheBlock) {
  // Every append in turn fails, so the failure meets a block of either thread.
  for (int fail_at = 1; fail_at <= 40; ++fail_at) {
    SCOPED_TRACE("append #" + std::to_string(fail_at) + " fails");
    FailingSink sink(fail_at);
    WriteOptions o;
    o.block_size = 256;
    TableWriter w(o, &sink);
    ASSERT_TRUE(w.SetLimits(1, 2).ok());
    Status s = Status::Ok();
    for (int i = 0; i < 200 && s.ok(); ++i) s = w.AddLog(Log(i));
    if (s.ok()) s = w.Finish();
    EXPECT_EQ(s.code(), Code::kIoError) << s.ToString();
    // Later calls keep reporting it; the destructor ends the thread.
    EXPECT_FALSE(w.Finish().ok());
  }
}

TEST(BackgroundCompressionTest, DeflaterCompressesWhatItWasGiven) {
  auto d = BackgroundDeflater::Start();
  if (!d) GTEST_SKIP() << "one core or no thread: the writer compresses on its own thread";
  Deflater serial;
  for (int round = 0; round < 50; ++round) {
    std::string block = "HDR" + std::string(size_t(round) * 37, char('a' + round % 26)) +
                        std::to_string(round * 1234567);
    EXPECT_FALSE(d->busy());
    d->Submit(block, 3);
    EXPECT_TRUE(d->busy());
    std::string want = "HDR";
    ASSERT_TRUE(
        serial.Compress(reinterpret_cast<const uint8_t*>(block.data()) + 3, block.size() - 3, &want)
            .ok());
    std::string_view got;
    ASSERT_TRUE(d->Wait(&got).ok());
    EXPECT_EQ(std::string(got), want) << round;
  }
  d->Submit("HDRleft for the destructor", 3);  // destroyed while busy: must not hang
}

}  // namespace
}  // namespace reftab
