// TableWriter's multi-level index (FORMAT.md §10.2) when index records are so long that
// every index block holds a single record: a new level then has as many entries as the
// one below, and adding levels "until few enough blocks remain" would never end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
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

// AddRef takes a fast path once a block holds a ref (store/table_writer.cc). Bad input must
// be refused the same way on it as on the first ref of a block: order, limits, empty and
// oversized names, and a writer in error stays in error.
RefRecord Ref(std::string name, uint64_t update_index = 1) {
  RefRecord r;
  r.refname = std::move(name);
  r.update_index = update_index;
  r.value_type = RefValueType::kVal1;
  r.value[0] = 1;
  return r;
}

WriteOptions WithBlockSize(WriteOptions opts, uint32_t block_size) {
  opts.block_size = block_size;
  return opts;
}

// A writer of `block_size`-byte blocks into a string (small blocks: several flushes).
struct WriterToString {
  explicit WriterToString(uint32_t block_size, const WriteOptions& opts = {})
      : w(WithBlockSize(opts, block_size), &sink) {}
  std::string bytes;
  StringSink sink{&bytes};
  TableWriter w;
};

// `n` kVal1 refs under refs/heads/topic/ in name order, of update indexes 1 to 3, told apart
// by their ids' second bytes.
std::vector<RefRecord> SortedTopics(int n) {
  std::vector<RefRecord> refs;
  for (int i = 0; i < n; ++i) {
    RefRecord r = Ref("refs/heads/topic/" + std::to_string(i * 7919 % 100000 + 100000), 1 + i % 3);
    r.value[1] = uint8_t(i);
    refs.push_back(r);
  }
  std::sort(refs.begin(), refs.end(),
            [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
  return refs;
}

TEST(TableWriterInputTest, BadRefsAfterTheFirstOfABlockAreRefused) {
  WriterToString out(256);
  TableWriter& w = out.w;
  ASSERT_TRUE(w.SetLimits(5, 7).ok());
  ASSERT_TRUE(w.AddRef(Ref("refs/heads/b", 5)).ok());
  EXPECT_EQ(w.AddRef(Ref("refs/heads/c", 4)).code(), Code::kInvalidArgument);
  EXPECT_EQ(w.AddRef(Ref("refs/heads/c", 8)).code(), Code::kInvalidArgument);
  // Not an order error: the fast path leaves the empty name to AddRefSlow's own check.
  EXPECT_EQ(w.AddRef(Ref("", 6)).message(), "empty refname");
  // Refused without harm: the writer goes on.
  ASSERT_TRUE(w.AddRef(Ref("refs/heads/c", 7)).ok());
  // Enough refs for several 256-byte blocks, each one's order checked on both paths.
  for (int i = 0; i < 40; ++i)
    ASSERT_TRUE(w.AddRef(Ref("refs/heads/d" + std::to_string(100 + i), 6)).ok());
  EXPECT_EQ(w.stats().ref_records, 42u);
  EXPECT_EQ(w.AddRef(Ref(std::string(300, 'x'), 6)).code(), Code::kTooLarge);
  // A failed add leaves the writer unusable (the contract in store/table_writer.h).
  EXPECT_FALSE(w.AddRef(Ref("z", 6)).ok());
  EXPECT_FALSE(w.Finish().ok());
}

TEST(TableWriterInputTest, OutOfOrderRefsAreRefusedWithinAndAcrossBlocks) {
  for (int at : {1, 2, 9, 30}) {  // within the first block, and after the first flushes
    WriterToString out(256);
    TableWriter& w = out.w;
    ASSERT_TRUE(w.SetLimits(1, 1).ok());
    for (int i = 0; i < at; ++i)
      ASSERT_TRUE(w.AddRef(Ref("refs/tags/v" + std::to_string(1000 + i))).ok());
    const std::string last = "refs/tags/v" + std::to_string(1000 + at - 1);
    Status s = w.AddRef(Ref(last));
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << at;
    EXPECT_NE(s.message().find("strictly increasing"), std::string::npos) << s.message();
    EXPECT_FALSE(w.AddRef(Ref("refs/tags/v0")).ok()) << at;
  }
}

TEST(TableWriterInputTest, FastPathTableReadsBack) {
  WriterToString out(512);
  TableWriter& w = out.w;
  ASSERT_TRUE(w.SetLimits(1, 3).ok());
  std::vector<RefRecord> refs = SortedTopics(300);
  refs[10].value_type = RefValueType::kVal2;
  refs[10].peeled[0] = 9;
  refs[11].value_type = RefValueType::kSymref;
  refs[11].target = "refs/heads/main";
  refs[12].value_type = RefValueType::kDeletion;
  for (const RefRecord& r : refs) ASSERT_TRUE(w.AddRef(r).ok());
  ASSERT_TRUE(w.Finish().ok());
  auto reader = TableReader::OpenBytes("fast.ref", out.bytes);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  TableRefIterator it(reader->get());
  ASSERT_TRUE(it.Seek("").ok());
  RefRecord got;
  for (const RefRecord& want : refs) {
    ASSERT_TRUE(it.Next(&got));
    EXPECT_EQ(got.refname, want.refname);
    EXPECT_EQ(got.update_index, want.update_index);
    EXPECT_EQ(got.value_type, want.value_type);
    if (want.value_type == RefValueType::kVal1) {
      EXPECT_EQ(got.value, want.value);
    }
    if (want.value_type == RefValueType::kSymref) {
      EXPECT_EQ(got.target, want.target);
    }
  }
  EXPECT_FALSE(it.Next(&got));
}

// AddRef(name, update_index, id) has its own fast path: it refuses bad input as AddRef of a
// record does, on the first ref of a block and after it.
TEST(TableWriterInputTest, BadRefsByNameAreRefused) {
  WriterToString out(256);
  TableWriter& w = out.w;
  ObjectId id{};
  id[0] = 1;
  EXPECT_EQ(w.AddRef("refs/heads/a", 5, id).code(), Code::kInvalidArgument);  // no limits
  ASSERT_TRUE(w.SetLimits(5, 7).ok());
  EXPECT_EQ(w.AddRef("", 5, id).code(), Code::kInvalidArgument);
  ASSERT_TRUE(w.AddRef("refs/heads/b", 5, id).ok());
  EXPECT_EQ(w.AddRef("refs/heads/c", 4, id).code(), Code::kInvalidArgument);
  EXPECT_EQ(w.AddRef("refs/heads/c", 8, id).code(), Code::kInvalidArgument);
  EXPECT_EQ(w.AddRef("", 6, id).message(), "empty refname");  // not an order error
  ASSERT_TRUE(w.AddRef("refs/heads/c", 7, id).ok());
  std::string name;
  for (int i = 0; i < 40; ++i) {
    name = "refs/heads/d" + std::to_string(100 + i);
    ASSERT_TRUE(w.AddRef(name, 6, id).ok());
  }
  EXPECT_EQ(w.stats().ref_records, 42u);
  EXPECT_EQ(w.AddRef(std::string(300, 'x'), 6, id).code(), Code::kTooLarge);
  EXPECT_FALSE(w.AddRef("z", 6, id).ok());
  EXPECT_FALSE(w.Finish().ok());

  // Order, within the first block and after the first flushes (an order error is final).
  for (int at : {1, 2, 9, 30}) {
    for (bool equal : {true, false}) {
      WriterToString out_o(256);
      TableWriter& o = out_o.w;
      ASSERT_TRUE(o.SetLimits(1, 1).ok());
      for (int i = 0; i < at; ++i)
        ASSERT_TRUE(o.AddRef("refs/tags/v" + std::to_string(1000 + i), 1, id).ok());
      const std::string last = "refs/tags/v" + std::to_string(1000 + at - 1);
      Status st = o.AddRef(equal ? last : "refs/tags/v0", 1, id);
      EXPECT_EQ(st.code(), Code::kInvalidArgument) << at;
      EXPECT_NE(st.message().find("strictly increasing"), std::string::npos) << st.message();
      EXPECT_FALSE(o.AddRef("refs/tags/w", 1, id).ok()) << at;
    }
  }
}

// Both entry points write the same bytes, mixed in one table, with and without obj index
// and for both hash sizes.
TEST(TableWriterInputTest, AddRefByNameWritesTheSameTable) {
  for (bool index_objects : {true, false}) {
    for (HashId hash : {HashId::kSha1, HashId::kSha256}) {
      WriteOptions opts;
      opts.index_objects = index_objects;
      opts.hash_id = hash;
      std::vector<RefRecord> refs = SortedTopics(500);
      for (size_t i = 0; i < refs.size(); ++i) refs[i].value[31] = uint8_t(i * 3);  // SHA-256's
      refs[20].value_type = RefValueType::kVal2;
      refs[21].value_type = RefValueType::kSymref;
      refs[21].target = "refs/heads/main";
      WriterToString want(512, opts), got(512, opts);
      TableWriter &a = want.w, &b = got.w;
      ASSERT_TRUE(a.SetLimits(1, 3).ok());
      ASSERT_TRUE(b.SetLimits(1, 3).ok());
      for (size_t i = 0; i < refs.size(); ++i) {
        const RefRecord& r = refs[i];
        ASSERT_TRUE(a.AddRef(r).ok());
        if (r.value_type == RefValueType::kVal1 && i % 50 != 7) {
          ASSERT_TRUE(b.AddRef(r.refname, r.update_index, r.value).ok());
        } else {
          ASSERT_TRUE(b.AddRef(r).ok());
        }
      }
      ASSERT_TRUE(a.Finish().ok());
      ASSERT_TRUE(b.Finish().ok());
      EXPECT_GT(a.stats().blocks, 3u);
      EXPECT_TRUE(want.bytes == got.bytes) << index_objects << " " << int(hash);
    }
  }
}

// AddSymref writes the bytes AddRef of the same symref record writes, mixed with other refs
// in one table: targets of 0 to 299 bytes (one- and two-byte lengths), records that open a
// block (its slow path) and ones that follow. It refuses what AddRef refuses.
TEST(TableWriterInputTest, AddSymrefWritesTheSameTable) {
  std::vector<RefRecord> refs = SortedTopics(500);
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i % 3 == 0) continue;  // stays an id
    refs[i].value_type = RefValueType::kSymref;
    refs[i].target = std::string(i * 7 % 300, char('a' + i % 26));
  }
  WriterToString want(1024), got(1024);
  TableWriter &a = want.w, &b = got.w;
  ASSERT_TRUE(a.SetLimits(1, 3).ok());
  ASSERT_TRUE(b.SetLimits(1, 3).ok());
  for (const RefRecord& r : refs) {
    ASSERT_TRUE(a.AddRef(r).ok());
    if (r.value_type == RefValueType::kSymref) {
      ASSERT_TRUE(b.AddSymref(r.refname, r.update_index, r.target).ok()) << r.refname;
    } else {
      ASSERT_TRUE(b.AddRef(r).ok());
    }
  }
  ASSERT_TRUE(a.Finish().ok());
  ASSERT_TRUE(b.Finish().ok());
  EXPECT_GT(a.stats().blocks, 10u);
  EXPECT_EQ(a.stats().ref_records, b.stats().ref_records);
  EXPECT_TRUE(want.bytes == got.bytes);

  WriterToString bad(256);
  TableWriter& w = bad.w;
  EXPECT_EQ(w.AddSymref("refs/heads/a", 5, "t").code(), Code::kInvalidArgument);  // no limits
  ASSERT_TRUE(w.SetLimits(5, 7).ok());
  EXPECT_EQ(w.AddSymref("", 5, "t").code(), Code::kInvalidArgument);
  ASSERT_TRUE(w.AddSymref("refs/heads/b", 5, "t").ok());
  EXPECT_EQ(w.AddSymref("refs/heads/c", 8, "t").code(), Code::kInvalidArgument);
  EXPECT_EQ(w.AddSymref("refs/heads/a", 5, "t").code(), Code::kInvalidArgument);  // order
}

// The obj index of refs sharing ids, in the ways its input can repeat an id: ids shared by
// many refs across blocks, then more distinct ids than the writer remembers at once (so the
// shared ids come back as new entries), ids that differ only past their first 8 bytes, and
// ids that all land on one hash slot (more than the writer probes). Every id's refs found
// through the obj index are the refs a scan finds, once each and in order, for both hashes.
TEST(TableWriterObjIndexTest, SharedIdsFindTheirRefs) {
  for (HashId hash : {HashId::kSha1, HashId::kSha256}) {
    const size_t hs = HashSize(hash);
    // The ids below use only their first 20 bytes, so that they are valid SHA-1 ids too.
    auto shared = [](int k) {
      ObjectId id{};
      id[0] = uint8_t(0x10 + k);
      id[5] = uint8_t(k * 7);
      id[19] = 1;
      return id;
    };
    auto same_head = [](int k) {  // the first 8 bytes of shared(0)
      ObjectId id{};
      id[0] = 0x10;
      id[9] = uint8_t(1 + k);
      return id;
    };
    auto same_slot = [](int k) {  // bytes 0..15 equal: head ^ next word is 0 for all of them
      ObjectId id{};
      for (int b = 0; b < 16; ++b) id[b] = 0xab;
      id[18] = uint8_t(k);
      return id;
    };
    std::vector<RefRecord> refs;
    for (int i = 0; i < 30000; ++i) {
      char name[40];
      std::snprintf(name, sizeof name, "refs/heads/b/%06d", i);
      RefRecord r;
      r.refname = name;
      r.update_index = 1;
      r.value_type = RefValueType::kVal1;
      if (i >= 8000 && i < 18000) {  // distinct ids
        r.value[0] = uint8_t(i >> 8);
        r.value[1] = uint8_t(i);
        r.value[2] = 0x5a;
      } else if (i % 5 == 0) {
        r.value = same_head(i % 7);
      } else if (i % 5 == 1) {
        r.value = same_slot(i % 12);
      } else {
        r.value = shared(i % 40);
      }
      if (i % 11 == 0) {
        r.value_type = RefValueType::kVal2;
        r.peeled = shared((i + 3) % 40);
      }
      refs.push_back(r);
    }
    WriteOptions opts;
    opts.hash_id = hash;
    WriterToString out(1024, opts);
    ASSERT_TRUE(out.w.SetLimits(1, 1).ok());
    for (const RefRecord& r : refs) ASSERT_TRUE(out.w.AddRef(r).ok());
    ASSERT_TRUE(out.w.Finish().ok());
    ASSERT_NE(out.w.stats().footer.obj_position, 0u);
    auto reader = TableReader::OpenBytes("shared-ids.ref", out.bytes);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    std::vector<ObjectId> ids;
    for (int k = 0; k < 40; ++k) ids.push_back(shared(k));
    for (int k = 0; k < 7; ++k) ids.push_back(same_head(k));
    for (int k = 0; k < 12; ++k) ids.push_back(same_slot(k));
    ids.push_back(refs[9000].value);
    size_t distinct = 10000 + 40 + 7 + 12;
    EXPECT_EQ(out.w.stats().obj_records, distinct) << hs;
    for (const ObjectId& id : ids) {
      std::vector<std::string> want;
      for (const RefRecord& r : refs) {
        if (r.value == id || (r.value_type == RefValueType::kVal2 && r.peeled == id)) {
          want.push_back(r.refname);
        }
      }
      std::vector<RefRecord> got;
      ASSERT_TRUE((*reader)->RefsFor(id, &got).ok());
      ASSERT_FALSE(want.empty());
      ASSERT_EQ(got.size(), want.size()) << hs << " " << HexId(id, hs);
      for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].refname, want[i]);
    }
  }
}

}  // namespace
}  // namespace reftab
