// The key/value store's iterator (store/kv/kv_store.h) against std::map: long random walks
// that mix Next, Prev, Seek, SeekForPrev, SeekToFirst and SeekToLast (so that the direction
// changes often), with and without bounds and a prefix, over every kind of state a store
// has: several tables whose deletions hide older values, the memtable (in several frozen
// layers), an immutable memtable whose flush the test holds up, and one table after a full
// compaction. Small blocks give many blocks and restart intervals per table; huge values give
// blocks larger than the default.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "store/kv/kv_store.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::FaultInjectingFileSystem;
using testutil::FsOp;
using testutil::TempDir;
using Model = std::map<std::string, std::string>;

// The model's entries that an iterator with `o` visits.
Model Visible(const Model& all, const KvIteratorOptions& o) {
  Model out;
  for (const auto& [k, v] : all) {
    if (o.lower_bound && k < *o.lower_bound) continue;
    if (o.upper_bound && k >= *o.upper_bound) continue;
    if (k.compare(0, o.prefix.size(), o.prefix) != 0) continue;
    out.emplace(k, v);
  }
  return out;
}

struct Shape {
  uint32_t block_size = 4096;
  size_t keys = 300;            // distinct keys drawn from
  size_t huge_value_every = 0;  // one value in this many is 100 KiB to 300 KiB (0: none)
  int walk_steps = 400;
};

class Walker {
 public:
  Walker(const Shape& shape, uint32_t seed) : shape_(shape), rng_(seed) {}

  std::string Key() {
    std::string k = std::to_string(rng_() % shape_.keys);
    k.insert(k.begin(), 'k');
    switch (rng_() % 10) {
      case 0: k.push_back('\0'); break;
      case 1: k.push_back(char(0xff)); break;
      case 2: k.insert(1, 140, 'l'); break;  // shares more than 127 bytes with its neighbours
      default: break;
    }
    return k;
  }
  std::string Value() {
    size_t n = rng_() % 120;
    if (shape_.huge_value_every != 0 && rng_() % shape_.huge_value_every == 0) {
      n = (100 << 10) + rng_() % (200 << 10);
    }
    std::string v(n, '\0');
    for (char& c : v) c = char(rng_());
    return v;
  }
  // A batch of puts and deletes (deletes mostly of present keys: they hide older tables').
  void Write(KvStore& kv, Model* model, size_t ops) {
    KvWriteBatch b;
    for (size_t i = 0; i < ops; ++i) {
      std::string k = Key();
      if (!model->empty() && rng_() % 4 == 0) {
        auto at = model->lower_bound(k);
        if (at == model->end()) at = model->begin();
        k = at->first;
        b.Delete(k);
        model->erase(k);
      } else {
        std::string v = Value();
        b.Put(k, v);
        (*model)[k] = v;
      }
    }
    ASSERT_TRUE(kv.Write(b).ok());
  }

  KvIteratorOptions RandomOptions() {
    KvIteratorOptions o;
    switch (rng_() % 6) {
      case 0: o.prefix = "k1"; break;
      case 1:
        o.prefix = "k2";
        o.prefix.push_back(char('0' + rng_() % 10));
        break;
      case 2:
        o.lower_bound = Key();
        o.upper_bound = Key();
        break;
      case 3: o.upper_bound = Key(); break;
      default: break;
    }
    return o;
  }

  // Several walks over one state: each a fresh iterator with random options.
  void Walks(KvStore& kv, const Model& model, const std::string& where, int walks = 4) {
    for (int w = 0; w < walks; ++w) {
      KvIteratorOptions o = w == 0 ? KvIteratorOptions() : RandomOptions();
      o.readahead = w % 2 == 0;  // the default (read ahead) and the mapping alone, in turn
      auto it = kv.NewIterator(o);
      ASSERT_TRUE(it.ok()) << it.status().ToString();
      std::string at = where;
      at.append(", walk ").append(std::to_string(w));
      Walk(*it, Visible(model, o), at);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  void Walk(KvIterator& it, const Model& m, const std::string& where) {
    Model::const_iterator pos = m.end();  // end(): not Valid()
    for (int step = 0; step < shape_.walk_steps; ++step) {
      const uint32_t r = rng_() % 20;
      std::string what;
      if (r == 0) {
        what = "SeekToFirst";
        ASSERT_TRUE(it.SeekToFirst().ok()) << it.status().ToString();
        pos = m.begin();
      } else if (r == 1) {
        what = "SeekToLast";
        ASSERT_TRUE(it.SeekToLast().ok()) << it.status().ToString();
        pos = m.empty() ? m.end() : std::prev(m.end());
      } else if (r <= 3) {
        const std::string k = Key();
        what.assign("Seek(").append(k).append(")");
        ASSERT_TRUE(it.Seek(k).ok()) << it.status().ToString();
        pos = m.lower_bound(k);
      } else if (r <= 5) {
        const std::string k = Key();
        what.assign("SeekForPrev(").append(k).append(")");
        ASSERT_TRUE(it.SeekForPrev(k).ok()) << it.status().ToString();
        auto above = m.upper_bound(k);
        pos = above == m.begin() ? m.end() : std::prev(above);
      } else if (r <= 12) {
        what = "Next";
        it.Next();
        if (pos != m.end()) ++pos;
      } else {
        what = "Prev";
        it.Prev();
        if (pos != m.end()) pos = pos == m.begin() ? m.end() : std::prev(pos);
      }
      ASSERT_TRUE(it.status().ok()) << where << ", step " << step << ": " << it.status().ToString();
      ASSERT_EQ(it.Valid(), pos != m.end()) << where << ", step " << step << " " << what;
      if (pos != m.end()) {
        ASSERT_EQ(it.key(), pos->first) << where << ", step " << step << " " << what;
        ASSERT_EQ(it.value(), pos->second) << where << ", step " << step << " " << what;
      }
    }
  }

 private:
  Shape shape_;
  std::mt19937 rng_;
};

void RunWalks(const Shape& shape, uint32_t seed) {
  TempDir dir("kviter");
  FaultInjectingFileSystem fs;
  // While `hold`, a flush's table creation waits: its memtable stays the immutable one.
  std::mutex mu;
  std::condition_variable cv;
  bool hold = false;
  fs.set_hook([&](FsOp op, const std::string& path) {
    if (op != FsOp::kCreate || path.find(".temp.") == std::string::npos) return;
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return !hold; });
  });
  KvOptions o;
  o.durability = Durability::kNone;
  o.fs = &fs;
  o.auto_compact = false;  // the tables stay apart
  o.memtable_size = size_t(1) << 30;
  o.block_size = shape.block_size;
  auto opened = KvStore::Open(dir.path(), o);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  KvStore& kv = **opened;
  Walker w(shape, seed);
  Model model;
  const size_t ops = shape.huge_value_every ? 20 : 150;
  // Tables, each flushed from the memtable, newer ones deleting and replacing older keys.
  for (int table = 0; table < 4; ++table) {
    w.Write(kv, &model, ops);
    ASSERT_TRUE(kv.Flush().ok());
    w.Walks(kv, model, std::string("table ").append(std::to_string(table)));
    if (::testing::Test::HasFatalFailure()) return;
  }
  ASSERT_GE(kv.Properties().table_sizes.size(), 4u);
  // The memtable, in several frozen layers (an iterator freezes what was written before it).
  for (int layer = 0; layer < 3; ++layer) {
    w.Write(kv, &model, ops / 3);
    w.Walks(kv, model, std::string("memtable layer ").append(std::to_string(layer)), 2);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // An immutable memtable (its flush held up) under a new memtable.
  {
    std::lock_guard<std::mutex> lock(mu);
    hold = true;
  }
  std::thread flusher([&] { EXPECT_TRUE(kv.Flush().ok()); });
  for (int i = 0; i < 6000 && kv.Properties().immutable_memtable_bytes == 0; ++i) {
    usleep(1000);
  }
  const bool immutable = kv.Properties().immutable_memtable_bytes != 0;
  if (immutable) {
    w.Write(kv, &model, ops / 2);
    w.Walks(kv, model, "immutable memtable");
    EXPECT_NE(kv.Properties().immutable_memtable_bytes, 0u);  // it was there throughout
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    hold = false;
  }
  cv.notify_all();
  flusher.join();
  ASSERT_TRUE(immutable);
  if (::testing::Test::HasFatalFailure()) return;
  w.Walks(kv, model, "after the flush");
  if (::testing::Test::HasFatalFailure()) return;
  // One table: the backward merge's single-table path.
  ASSERT_TRUE(kv.CompactAll().ok());
  ASSERT_EQ(kv.Properties().table_sizes.size(), 1u);
  w.Walks(kv, model, "compacted");
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_TRUE(kv.Close().ok());
}

TEST(KvIteratorWalkTest, DefaultBlocks) { RunWalks(Shape(), 1); }

TEST(KvIteratorWalkTest, SmallBlocksManyBlocksAndRestartIntervals) {
  Shape s;
  s.block_size = 512;  // a few records per block (long keys and values raise some tables')
  s.keys = 600;
  RunWalks(s, 2);
}

TEST(KvIteratorWalkTest, HugeValuesInBlocksLargerThanTheDefault) {
  Shape s;
  s.keys = 40;
  s.huge_value_every = 3;
  s.walk_steps = 150;
  RunWalks(s, 3);
}

TEST(KvIteratorWalkTest, MoreSeeds) {
  for (uint32_t seed = 10; seed < 14; ++seed) {
    Shape s;
    s.block_size = seed % 2 ? 256 : 1024;
    s.keys = 100 + 100 * (seed % 3);
    RunWalks(s, seed);
    if (HasFatalFailure()) FAIL() << "seed " << seed;
  }
}

// ---------------------------------------------------------------- views

std::string Bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = char(rng());
  return s;
}

KvOptions ViewOptions() {
  KvOptions o;
  o.durability = Durability::kNone;
  o.auto_compact = false;  // the tables stay apart until the test compacts
  return o;
}

// Entries in two tables (the newer one replacing some of the older's) and the memtable,
// values from empty to 1 MiB: sizes around the 4 KiB block size (a record that ends just
// before, at or after where a block of the configured size would) and far above it (the
// table's blocks are raised to hold its largest record).
Model FillForViews(KvStore& kv) {
  const size_t sizes[] = {0,      1,    100,  4000, 4050, 4070,      4080,
                          4090,   4096, 4097, 5000, 8192, 100 << 10, (100 << 10) + 1,
                          1 << 20};
  Model model;
  uint32_t seed = 1;
  for (int part = 0; part < 3; ++part) {
    KvWriteBatch b;
    for (size_t i = 0; i < std::size(sizes); ++i) {
      if (part != 0 && (i + size_t(part)) % 2 == 0) continue;  // newer parts replace some
      std::string k = "key" + std::to_string(i % 10) + std::to_string(i);
      std::string v = Bytes(sizes[(i + size_t(part) * 5) % std::size(sizes)], seed++);
      b.Put(k, v);
      model[k] = v;
    }
    b.Delete("key00");
    model.erase("key00");
    EXPECT_TRUE(kv.Write(b).ok());
    if (part < 2) {
      EXPECT_TRUE(kv.Flush().ok());  // the last part stays in the memtable
    }
  }
  return model;
}

TEST(KvIteratorViewTest, ValuesAroundAndAboveTheBlockSizeForwardsAndBackwards) {
  TempDir dir("kviter");
  auto opened = KvStore::Open(dir.path(), ViewOptions());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  KvStore& kv = **opened;
  const Model model = FillForViews(kv);
  for (int round = 0; round < 2; ++round) {  // tables and memtable, then one table
    auto it = kv.NewIterator();
    ASSERT_TRUE(it.ok());
    Model seen;
    ASSERT_TRUE(it->SeekToFirst().ok());
    for (; it->Valid(); it->Next()) {
      seen.emplace(it->key(), it->value());
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_TRUE(seen == model) << "forwards, round " << round;
    seen.clear();
    ASSERT_TRUE(it->SeekToLast().ok());
    for (; it->Valid(); it->Prev()) {
      seen.emplace(it->key(), it->value());
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_TRUE(seen == model) << "backwards, round " << round;
    ASSERT_TRUE(kv.CompactAll().ok());
  }
  EXPECT_TRUE(kv.Close().ok());
}

// key() and value() are views (of a mapped table, of a table cursor's key buffer or of the
// memtable): they keep their bytes until the iterator's next move, whatever happens
// meanwhile: writes to the same keys, flushes and compactions that replace the tables the
// views point into, other iterators' moves.
TEST(KvIteratorViewTest, ViewsStayValidUntilTheNextMoveWhateverTheStoreDoes) {
  TempDir dir("kviter");
  auto opened = KvStore::Open(dir.path(), ViewOptions());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  KvStore& kv = **opened;
  const Model model = FillForViews(kv);
  // Both iterators of each direction see the state before the test's writes.
  Result<KvIterator> iterators[2][2] = {{kv.NewIterator(), kv.NewIterator()},
                                        {kv.NewIterator(), kv.NewIterator()}};
  for (int backwards = 0; backwards < 2; ++backwards) {
    Result<KvIterator>& it = iterators[backwards][0];
    Result<KvIterator>& other = iterators[backwards][1];
    ASSERT_TRUE(it.ok() && other.ok());
    ASSERT_TRUE((backwards ? it->SeekToLast() : it->SeekToFirst()).ok());
    auto pos = model.begin();
    auto rpos = model.rbegin();
    int step = 0;
    for (; it->Valid(); backwards ? it->Prev() : it->Next(), ++step) {
      const auto& [want_key, want_value] = backwards ? *rpos++ : *pos++;
      const std::string_view k = it->key(), v = it->value();
      const std::string key_copy(k);
      ASSERT_EQ(k, want_key);
      // Meanwhile: the same key rewritten, the other iterator moved over the same tables,
      // and now and then the tables replaced (a flush, then a full compaction).
      ASSERT_TRUE(kv.Put(key_copy, "rewritten").ok());
      ASSERT_TRUE(other->Seek(key_copy).ok());
      other->Next();
      other->Prev();
      Status s = step % 4 == 0 ? kv.Flush() : step % 4 == 2 ? kv.CompactAll() : Status::Ok();
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(k, want_key) << "step " << step;
      EXPECT_TRUE(v == want_value) << "step " << step << ", key " << want_key;
      // A seek to the iterator's own key (a view of its own buffers) lands on it.
      ASSERT_TRUE(it->Seek(it->key()).ok());
      ASSERT_TRUE(it->Valid());
      EXPECT_EQ(it->key(), want_key);
      ASSERT_TRUE(it->SeekForPrev(it->key()).ok());
      ASSERT_TRUE(it->Valid());
      EXPECT_EQ(it->key(), want_key);
      EXPECT_TRUE(it->value() == want_value);
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(size_t(step), model.size());
  }
  EXPECT_TRUE(kv.Close().ok());
}

}  // namespace
}  // namespace reftab
