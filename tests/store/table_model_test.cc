// Model-based test of TableWriter + TableReader: seeded random ref and log sets are written
// with many combinations of block size, restart interval, padding, obj index and hash, then
// every read path (scan, seek, prefix scan, ReadRef, RefsFor, log seeks) is compared with a
// std::map holding the same records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "format/block_reader.h"
#include "format/record_codec.h"
#include "store/table_reader.h"
#include "store/table_writer.h"
#include "tests/testutil/random_refs.h"

namespace reftab {
namespace {

using testutil::SameLog;
using testutil::SameRef;

constexpr uint64_t kMinIndex = 10;
constexpr uint64_t kMaxIndex = 60;

struct ModelCase {
  uint32_t block_size;
  uint32_t restart_interval;
  bool unpadded;
  bool index_objects;
  HashId hash;
  size_t refs;
  size_t log_names;
};

std::string CaseName(const ModelCase& c) {
  return "bs" + std::to_string(c.block_size) + "ri" + std::to_string(c.restart_interval) +
         (c.unpadded ? "Unpadded" : "Padded") + (c.index_objects ? "Obj" : "NoObj") +
         (c.hash == HashId::kSha256 ? "Sha256" : "Sha1");
}

// Every block size x restart interval x hash; padding and obj index alternate so that each
// block size sees all four of their combinations.
std::vector<ModelCase> AllCases() {
  const uint32_t block_sizes[] = {200, 256, 512, 1000, 4096, 65536};
  // Enough refs for a multi-level index in the small blocks and several blocks in the big
  // ones (an index over 64 KiB blocks is covered by the medium-bs65536 golden fixture).
  const size_t ref_counts[] = {300, 400, 600, 800, 1200, 1500};
  const uint32_t intervals[] = {1, 2, 3, 16, 64};
  std::vector<ModelCase> cases;
  for (size_t b = 0; b < 6; ++b) {
    for (size_t r = 0; r < 5; ++r) {
      for (HashId hash : {HashId::kSha1, HashId::kSha256}) {
        size_t variant = (b + r + (hash == HashId::kSha256 ? 2 : 0)) % 4;
        cases.push_back(ModelCase{block_sizes[b], intervals[r], variant % 2 == 1, variant / 2 == 0,
                                  hash, ref_counts[b], ref_counts[b] / 4});
      }
    }
  }
  return cases;
}

// The records of one table and the reader over what TableWriter made of them.
struct Model {
  std::map<std::string, RefRecord> refs;
  std::map<std::string, LogRecord> logs;  // by log key: name, NUL, reversed update index
  std::vector<ObjectId> ids;              // every value and peeled id, for RefsFor
  std::unique_ptr<TableReader> table;
  std::string bytes;
};

// Space for one record in an empty first block: header, block header, one restart, count,
// and some slack for the varints that the size estimates below do not count exactly.
size_t RecordBudget(const ModelCase& c) { return c.block_size - 28 - 4 - 5 - 16; }

size_t RefSizeBound(const RefRecord& r, size_t hs) {
  return r.refname.size() + 2 * hs + r.target.size() + 8;
}

size_t LogSizeBound(const LogRecord& l, size_t hs) {
  return l.refname.size() + 9 + 2 * hs + l.name.size() + l.email.size() + l.message.size() + 20;
}

// Shrinks a record until it fits in a block of this case's size (tiny blocks only).
void FitRef(const ModelCase& c, size_t hs, RefRecord* r) {
  size_t overhead = RefSizeBound(*r, hs) - r->refname.size();
  size_t max_name = RecordBudget(c) - overhead;  // > 60 for every case
  if (r->refname.size() > max_name) r->refname.resize(max_name);
}

void FitLog(const ModelCase& c, size_t hs, LogRecord* l) {
  if (LogSizeBound(*l, hs) > RecordBudget(c)) {
    l->name = "C";
    l->email = "";
    l->message = "m\n";
  }
  size_t overhead = LogSizeBound(*l, hs) - l->refname.size();
  size_t max_name = RecordBudget(c) - overhead;  // > 40 for every case
  if (l->refname.size() > max_name) l->refname.resize(max_name);
}

void AddRandomRefs(const ModelCase& c, std::mt19937_64& rng, Model* m) {
  size_t hs = HashSize(c.hash);
  while (m->refs.size() < c.refs) {
    RefRecord r = testutil::RandomRef(rng, testutil::RandomRefName(rng), hs, kMinIndex, kMaxIndex);
    // A few refs share one id so that RefsFor returns several records and obj records get
    // several block positions.
    if (!m->ids.empty() && rng() % 8 == 0 && r.value_type == RefValueType::kVal1) {
      r.value = m->ids[rng() % m->ids.size()];
    }
    FitRef(c, hs, &r);
    if (r.value_type == RefValueType::kVal1 || r.value_type == RefValueType::kVal2) {
      m->ids.push_back(r.value);
    }
    if (r.value_type == RefValueType::kVal2) m->ids.push_back(r.peeled);
    m->refs[r.refname] = r;
  }
}

void AddRandomLogs(const ModelCase& c, std::mt19937_64& rng, Model* m) {
  size_t hs = HashSize(c.hash);
  for (size_t i = 0; i < c.log_names; ++i) {
    std::string name = testutil::RandomRefName(rng);
    size_t entries = 1 + rng() % 4;
    for (size_t e = 0; e < entries; ++e) {
      uint64_t index = kMinIndex + rng() % (kMaxIndex - kMinIndex + 1);
      LogRecord l = testutil::RandomLog(rng, name, index, hs);
      FitLog(c, hs, &l);
      std::string key;
      codec::PutLogKey(&key, l.refname, l.update_index);
      m->logs[key] = l;
    }
  }
}

void BuildModel(const ModelCase& c, uint64_t seed, Model* m) {
  std::mt19937_64 rng(seed);
  AddRandomRefs(c, rng, m);
  AddRandomLogs(c, rng, m);
  WriteOptions opts;
  opts.block_size = c.block_size;
  opts.restart_interval = c.restart_interval;
  opts.unpadded = c.unpadded;
  opts.index_objects = c.index_objects;
  opts.hash_id = c.hash;
  opts.exact_log_message = true;
  std::vector<RefRecord> refs;
  for (const auto& [name, r] : m->refs) refs.push_back(r);
  std::vector<LogRecord> logs;
  for (const auto& [key, l] : m->logs) logs.push_back(l);
  m->bytes = testutil::WriteTableToString(opts, kMinIndex, kMaxIndex, refs, logs);
  auto reader = TableReader::OpenBytes(CaseName(c) + ".ref", m->bytes);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  m->table = std::move(*reader);
}

// The step that visits about `wanted` of `n` elements: the read paths are checked on a
// sample, the full scan and ReadRef on everything.
size_t StepFor(size_t n, size_t wanted) { return std::max<size_t>(1, n / wanted); }

uint64_t SeedOf(const ModelCase& c) {
  return uint64_t(c.block_size) * 1000 + c.restart_interval * 10 + (c.hash == HashId::kSha256);
}

class TableModelTest : public testing::TestWithParam<ModelCase> {
 protected:
  // Each case's table is written once and shared by the tests of that case.
  void SetUp() override {
    static std::map<std::string, std::unique_ptr<Model>> cache;
    std::unique_ptr<Model>& m = cache[CaseName(GetParam())];
    if (!m) {
      auto built = std::make_unique<Model>();
      ASSERT_NO_FATAL_FAILURE(BuildModel(GetParam(), SeedOf(GetParam()), built.get()));
      m = std::move(built);
    }
    model_ = m.get();
    hs_ = HashSize(GetParam().hash);
  }

  // Seeks the ref iterator to `want` and checks the next few records against the model.
  void ExpectRefSeek(std::string_view want) {
    TableRefIterator it(model_->table.get());
    ASSERT_TRUE(it.Seek(want).ok()) << want;
    auto expected = model_->refs.lower_bound(std::string(want));
    RefRecord got;
    for (int i = 0; i < 3; ++i, ++expected) {
      if (expected == model_->refs.end()) {
        EXPECT_FALSE(it.Next(&got)) << "seek " << want << " gave " << got.refname;
        break;
      }
      ASSERT_TRUE(it.Next(&got)) << "seek " << want << ": " << it.status().ToString();
      EXPECT_TRUE(SameRef(got, expected->second, hs_))
          << "seek " << want << " gave " << got.refname;
    }
    EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  }

  void ExpectLogSeek(std::string_view name, uint64_t update_index, bool use_seek_at) {
    TableLogIterator it(model_->table.get());
    std::string key;
    if (use_seek_at) {
      ASSERT_TRUE(it.SeekAt(name, update_index).ok());
      codec::PutLogKey(&key, name, update_index);
    } else {
      ASSERT_TRUE(it.Seek(name).ok());
      codec::PutLogKey(&key, name, ~uint64_t(0));
    }
    auto expected = model_->logs.lower_bound(key);
    LogRecord got;
    for (int i = 0; i < 3; ++i, ++expected) {
      if (expected == model_->logs.end()) {
        EXPECT_FALSE(it.Next(&got)) << "log seek " << name;
        break;
      }
      ASSERT_TRUE(it.Next(&got)) << "log seek " << name << ": " << it.status().ToString();
      EXPECT_TRUE(SameLog(got, expected->second, hs_))
          << "log seek " << name << "@" << update_index << " gave " << got.refname << "@"
          << got.update_index;
    }
    EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  }

  std::vector<std::string> ModelRefsFor(const ObjectId& id) const {
    std::vector<std::string> names;
    for (const auto& [name, r] : model_->refs) {
      bool val = r.value_type == RefValueType::kVal1 || r.value_type == RefValueType::kVal2;
      bool match = val && std::equal(id.begin(), id.begin() + long(hs_), r.value.begin());
      match = match || (r.value_type == RefValueType::kVal2 &&
                        std::equal(id.begin(), id.begin() + long(hs_), r.peeled.begin()));
      if (match) names.push_back(name);
    }
    return names;
  }

  const Model* model_ = nullptr;
  size_t hs_ = 20;
};

TEST_P(TableModelTest, FullScansReturnEveryRecordInOrder) {
  TableRefIterator refs(model_->table.get());
  ASSERT_TRUE(refs.SeekToFirst().ok());
  RefRecord r;
  auto expected = model_->refs.begin();
  while (refs.Next(&r)) {
    ASSERT_NE(expected, model_->refs.end()) << "extra ref " << r.refname;
    ASSERT_TRUE(SameRef(r, expected->second, hs_)) << r.refname << " vs " << expected->first;
    ++expected;
  }
  EXPECT_TRUE(refs.status().ok()) << refs.status().ToString();
  EXPECT_EQ(expected, model_->refs.end());

  TableLogIterator logs(model_->table.get());
  ASSERT_TRUE(logs.SeekToFirst().ok());
  LogRecord l;
  auto expected_log = model_->logs.begin();
  while (logs.Next(&l)) {
    ASSERT_NE(expected_log, model_->logs.end()) << "extra log " << l.refname;
    ASSERT_TRUE(SameLog(l, expected_log->second, hs_)) << l.refname << "@" << l.update_index;
    ++expected_log;
  }
  EXPECT_TRUE(logs.status().ok()) << logs.status().ToString();
  EXPECT_EQ(expected_log, model_->logs.end());
}

TEST_P(TableModelTest, SeeksFindPresentAbsentAndBoundaryKeys) {
  const size_t step = StepFor(model_->refs.size(), 100);
  size_t i = 0;
  for (const auto& [name, r] : model_->refs) {
    if (i++ % step != 0) continue;
    ExpectRefSeek(name);
    ExpectRefSeek(name + '\0');                      // just after: the successor
    ExpectRefSeek(name.substr(0, name.size() - 1));  // just before (or a shorter name)
  }
  ExpectRefSeek("");
  ExpectRefSeek("A");
  ExpectRefSeek(model_->refs.rbegin()->first + "x");
  ExpectRefSeek("\xff\xff");
  std::mt19937_64 rng(7);
  for (int k = 0; k < 100; ++k) {
    std::string random = testutil::RandomRefName(rng);
    random.resize(rng() % (random.size() + 1));
    ExpectRefSeek(random);
  }
  // The first seeks descend the on-disk index; once they add up, the table flattens it
  // (store/ref_block_index.h) and the later ones go through that: both were checked above.
  if (model_->table->footer().ref_index_position != 0) {
    EXPECT_GT(model_->table->ref_block_index_bytes(), 0u);
  }
}

TEST_P(TableModelTest, PrefixScansMatchTheModel) {
  std::vector<std::string> prefixes = {
      "refs/",       "refs/heads/",   "refs/tags/", "refs/heads/feature/", "refs/remotes/origin/",
      "refs/notes/", "refs/nothing/", "H"};
  const size_t step = StepFor(model_->refs.size(), 10);
  size_t i = 0;
  for (const auto& [name, r] : model_->refs) {
    if (i++ % step == 0) prefixes.push_back(name.substr(0, name.size() / 2 + 1));
  }
  for (const std::string& prefix : prefixes) {
    std::vector<std::string> want;
    for (auto it = model_->refs.lower_bound(prefix);
         it != model_->refs.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      want.push_back(it->first);
    }
    TableRefIterator it(model_->table.get());
    ASSERT_TRUE(it.Seek(prefix).ok());
    std::vector<std::string> got;
    RefRecord r;
    while (it.Next(&r) && r.refname.compare(0, prefix.size(), prefix) == 0)
      got.push_back(r.refname);
    EXPECT_TRUE(it.status().ok());
    EXPECT_EQ(got, want) << "prefix " << prefix;
  }
}

TEST_P(TableModelTest, ReadRefFindsPresentNamesOnly) {
  RefRecord got;
  bool found = false;
  for (const auto& [name, r] : model_->refs) {
    ASSERT_TRUE(model_->table->ReadRef(name, &got, &found).ok()) << name;
    ASSERT_TRUE(found) << name;
    EXPECT_TRUE(SameRef(got, r, hs_)) << name;
  }
  const size_t step = StepFor(model_->refs.size(), 200);
  size_t i = 0;
  for (const auto& [name, r] : model_->refs) {
    if (i++ % step != 0) continue;
    for (const std::string& absent : {name + '\0', name + "/x", name.substr(0, name.size() - 1)}) {
      if (model_->refs.count(absent)) continue;
      ASSERT_TRUE(model_->table->ReadRef(absent, &got, &found).ok()) << absent;
      EXPECT_FALSE(found) << absent;
    }
  }
  for (const std::string absent : {"", "\x01", "\xff\xff\xff"}) {
    ASSERT_TRUE(model_->table->ReadRef(absent, &got, &found).ok());
    EXPECT_FALSE(found);
  }
}

TEST_P(TableModelTest, RefsForMatchesAFilteredModel) {
  std::vector<ObjectId> ids;
  for (size_t i = 0; i < model_->ids.size(); i += StepFor(model_->ids.size(), 25)) {
    ids.push_back(model_->ids[i]);
  }
  std::mt19937_64 rng(11);
  ids.push_back(testutil::RandomId(rng, hs_));  // (almost surely) no ref has it
  ObjectId near_miss = ids.front();
  near_miss[hs_ - 1] ^= 1;  // same obj prefix, different id
  ids.push_back(near_miss);
  for (const ObjectId& id : ids) {
    std::vector<RefRecord> got;
    ASSERT_TRUE(model_->table->RefsFor(id, &got).ok());
    std::vector<std::string> names;
    for (const RefRecord& r : got) names.push_back(r.refname);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, ModelRefsFor(id)) << HexId(id, hs_);
    for (const RefRecord& r : got) {
      EXPECT_TRUE(SameRef(r, model_->refs.at(r.refname), hs_));
    }
  }
}

TEST_P(TableModelTest, LogSeeksMatchTheModel) {
  // Without a log index a seek inflates each log block it passes, so sample ~20 entries.
  const size_t step = StepFor(model_->logs.size(), 20);
  size_t i = 0;
  for (const auto& [key, l] : model_->logs) {
    if (i++ % step != 0) continue;
    ExpectLogSeek(l.refname, 0, false);
    ExpectLogSeek(l.refname, l.update_index, true);
    ExpectLogSeek(l.refname, l.update_index - 1, true);
    ExpectLogSeek(l.refname + '\x01', ~uint64_t(0), true);
  }
  ExpectLogSeek("", 0, false);
  ExpectLogSeek("\xff", 0, false);
  ExpectLogSeek("refs/heads/", 5, true);
}

// Writer structure: what the footer promises matches what the blocks are.
TEST_P(TableModelTest, SectionsAndIndexesFollowGitsThresholds) {
  const ModelCase& c = GetParam();
  const TableFooter& f = model_->table->footer();
  std::map<char, size_t> blocks;
  std::vector<uint64_t> ref_offsets;
  Status s = model_->table->ForEachBlock([&](const BlockView& b) {
    ++blocks[char(b.type)];
    if (b.type == BlockType::kRef) ref_offsets.push_back(b.offset);
    if (b.type != BlockType::kLog) {
      EXPECT_LE(b.block_len, c.block_size);
    }
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  const size_t threshold = c.unpadded ? 1 : 3;
  EXPECT_EQ(f.ref_index_position != 0, blocks['r'] > threshold);
  EXPECT_EQ(f.obj_position != 0, c.index_objects && f.ref_index_position != 0);
  EXPECT_EQ(f.log_index_position != 0, blocks['g'] > threshold);
  if (!c.unpadded) {
    for (uint64_t off : ref_offsets) {
      EXPECT_EQ(off % c.block_size, 0u) << off;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllOptions, TableModelTest, testing::ValuesIn(AllCases()),
                         [](const testing::TestParamInfo<ModelCase>& info) {
                           return CaseName(info.param);
                         });

}  // namespace
}  // namespace reftab
