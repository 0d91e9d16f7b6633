// The worked byte-level examples of FORMAT.md §20, reproduced with TableWriter and checked
// byte for byte (and read back with TableReader).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/block_reader.h"
#include "format/bytes.h"
#include "store/table_reader.h"
#include "store/table_writer.h"

namespace reftab {
namespace {

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i < hex.size();) {
    if (hex[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    i += 2;
  }
  return out;
}

std::string Write(const WriteOptions& opts, uint64_t min, uint64_t max,
                  const std::vector<RefRecord>& refs, const std::vector<LogRecord>& logs) {
  std::string out;
  StringSink sink(&out);
  TableWriter w(opts, &sink);
  EXPECT_TRUE(w.SetLimits(min, max).ok());
  for (const RefRecord& r : refs) {
    EXPECT_TRUE(w.AddRef(r).ok()) << r.refname;
  }
  for (const LogRecord& l : logs) {
    EXPECT_TRUE(w.AddLog(l).ok()) << l.refname;
  }
  Status s = w.Finish();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// §20.1: a freshly initialised repository's only table, 124 bytes.
TEST(WorkedExampleTest, OneSymrefTableIsByteIdentical) {
  RefRecord head;
  head.refname = "HEAD";
  head.update_index = 1;
  head.value_type = RefValueType::kSymref;
  head.target = "refs/heads/main";
  std::string table = Write(WriteOptions(), 1, 1, {head}, {});
  std::string want = Unhex(
      "5245 4654 0100 1000 0000 0000 0000 0001"
      "0000 0000 0000 0001 7200 0038 0023 4845"
      "4144 000f 7265 6673 2f68 6561 6473 2f6d"
      "6169 6e00 001c 0001 5245 4654 0100 1000"
      "0000 0000 0000 0001 0000 0000 0000 0001" +
      std::string(2 * (0x78 - 0x50), '0') +  // five uint64 positions, all 0
      "b6bf f78a");
  ASSERT_EQ(want.size(), 124u);
  EXPECT_EQ(table, want);

  auto reader = TableReader::OpenBytes("20.1.ref", table);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RefRecord got;
  bool found = false;
  ASSERT_TRUE((*reader)->ReadRef("HEAD", &got, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(got.target, "refs/heads/main");
  EXPECT_EQ(got.update_index, 1u);
}

// §20.2: a ref tombstone in a table with min = max = 5.
TEST(WorkedExampleTest, TombstoneRecordBytes) {
  RefRecord gone;
  gone.refname = "refs/heads/feature";
  gone.update_index = 5;
  gone.value_type = RefValueType::kDeletion;
  std::string table = Write(WriteOptions(), 5, 5, {gone}, {});
  std::string record = Unhex("00 8010") + "refs/heads/feature" + Unhex("00");
  EXPECT_EQ(table.substr(28, record.size()), record);
}

// §20.6: a git log-only table (existence marker + tombstone), 125 bytes, log_position 0.
TEST(WorkedExampleTest, LogOnlyTableSharesBlockZeroWithTheHeader) {
  LogRecord marker;
  marker.refname = "HEAD";
  marker.update_index = 6;
  marker.value_type = LogValueType::kUpdate;  // all-zero ids, empty strings, time 0
  LogRecord tombstone;
  tombstone.refname = "HEAD";
  tombstone.update_index = 2;
  tombstone.value_type = LogValueType::kDeletion;
  WriteOptions opts;
  opts.exact_log_message = true;  // git writes the marker's NULL message as ""
  std::string table = Write(opts, 6, 6, {}, {marker, tombstone});
  EXPECT_EQ(table.size(), 125u);
  EXPECT_EQ(table.substr(0, 32), Unhex("5245 4654 0100 1000 0000 0000 0000 0006"
                                       "0000 0000 0000 0006 6700 0061 78da 63c8"));

  auto reader = TableReader::OpenBytes("20.6.ref", table);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->footer().log_position, 0u);
  BlockView view;
  Inflater inflater;
  std::vector<uint8_t> buf;
  ASSERT_TRUE(DecodeBlock((*reader)->source(), 0, &inflater, &buf, &view).ok());
  std::string uncompressed(reinterpret_cast<const char*>(view.data) + 24, view.block_len - 24);
  std::string want = Unhex("6700 0061 0069") + std::string("HEAD\0", 5) +
                     Unhex("ffff ffff ffff fff9") + std::string(40 + 6, '\0') +
                     Unhex("0c08 fd 00001c 0001");
  EXPECT_EQ(uncompressed, want);
  EXPECT_EQ(view.full_size, table.size() - 68);  // the footer follows the compressed block

  TableLogIterator it(reader->get());
  ASSERT_TRUE(it.SeekToFirst().ok());
  LogRecord got;
  ASSERT_TRUE(it.Next(&got));
  EXPECT_EQ(got.update_index, 6u);
  EXPECT_EQ(got.value_type, LogValueType::kUpdate);
  ASSERT_TRUE(it.Next(&got));
  EXPECT_EQ(got.update_index, 2u);
  EXPECT_TRUE(got.is_deletion());
  EXPECT_FALSE(it.Next(&got));
  EXPECT_TRUE(it.status().ok());
}

TEST(WorkedExampleTest, EmptyTableIsHeaderAndFooter) {
  for (HashId hash : {HashId::kSha1, HashId::kSha256}) {
    WriteOptions opts;
    opts.hash_id = hash;
    std::string out;
    StringSink sink(&out);
    TableWriter w(opts, &sink);
    ASSERT_TRUE(w.SetLimits(1, 1).ok());
    ASSERT_TRUE(w.Finish().ok());
    EXPECT_TRUE(w.stats().empty);
    EXPECT_EQ(out.size(), hash == HashId::kSha1 ? 92u : 100u);
    auto reader = TableReader::OpenBytes("empty.ref", out);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    TableRefIterator refs(reader->get());
    ASSERT_TRUE(refs.SeekToFirst().ok());
    RefRecord r;
    EXPECT_FALSE(refs.Next(&r));
    EXPECT_TRUE(refs.status().ok());
  }
}

}  // namespace
}  // namespace reftab
