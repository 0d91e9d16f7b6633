// TableWriter's multi-level index (FORMAT.md §10.2) when index records are so long that
// every index block holds a single record: a new level then has as many entries as the
// one below, and adding levels "until few enough blocks remain" would never end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/table_reader.h"
#include "store/table_writer.h"

namespace reftab {
namespace {

// A sink that fails once a table grows past any size these tests need, so that a writer
// that keeps adding index levels fails the test instead of hanging it.
class BoundedSink final : public WritableFile {
 public:
  explicit BoundedSink(std::string* out) : out_(out) {}
  Status Append(std::string_view data) override {
    if (out_->size() + data.size() > (1u << 20)) return Status::IoError("table grows without end");
    out_->append(data);
    return Status::Ok();
  }
  Status Sync() override { return Status::Ok(); }
  Status Close() override { return Status::Ok(); }

 private:
  std::string* out_;
};

// Refs whose names are too long for two of them (or their index records) to share a
// 512-byte block, and which share no prefix that would make them shorter.
std::vector<RefRecord> LongNamedRefs(int n) {
  std::vector<RefRecord> refs;
  for (int i = 0; i < n; ++i) {
    RefRecord r;
    r.refname = std::string(1, char('a' + i)) + std::string(380, char('z' - i));
    r.update_index = 1;
    r.value_type = RefValueType::kVal1;
    r.value[0] = uint8_t(i);
    refs.push_back(r);
  }
  return refs;
}

void WriteAndReadBack(bool unpadded, int n) {
  WriteOptions opts;
  opts.block_size = 512;
  opts.unpadded = unpadded;
  std::string table;
  BoundedSink sink(&table);
  TableWriter w(opts, &sink);
  ASSERT_TRUE(w.SetLimits(1, 1).ok());
  std::vector<RefRecord> refs = LongNamedRefs(n);
  for (const RefRecord& r : refs) ASSERT_TRUE(w.AddRef(r).ok());
  Status s = w.Finish();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_NE(w.stats().footer.ref_index_position, 0u);

  auto reader = TableReader::OpenBytes("long-names.ref", table);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (const RefRecord& want : refs) {
    RefRecord got;
    bool found = false;
    ASSERT_TRUE((*reader)->ReadRef(want.refname, &got, &found).ok());
    EXPECT_TRUE(found) << want.refname.substr(0, 3);
    EXPECT_EQ(got.value[0], want.value[0]);
  }
  TableRefIterator it(reader->get());
  ASSERT_TRUE(it.Seek(refs.back().refname.substr(0, 1)).ok());
  RefRecord got;
  ASSERT_TRUE(it.Next(&got));
  EXPECT_EQ(got.refname, refs.back().refname);
}

TEST(TableWriterIndexTest, UnpaddedIndexOfUnshrinkableLevelsTerminates) {
  WriteAndReadBack(/*unpadded=*/true, 2);
  WriteAndReadBack(/*unpadded=*/true, 5);
}

TEST(TableWriterIndexTest, PaddedIndexOfUnshrinkableLevelsTerminates) {
  WriteAndReadBack(/*unpadded=*/false, 4);
  WriteAndReadBack(/*unpadded=*/false, 7);
}

}  // namespace
}  // namespace reftab
