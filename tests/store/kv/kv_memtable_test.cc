// The key/value store's memtable (store/kv/kv_memtable.h): lookups in the writable map and
// in frozen layers (through each layer's hash, KvMemHash) answer as a std::map of the same
// writes does, across freezes that merge layers, for present, deleted and absent keys.
#include "store/kv/kv_memtable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "store/huge_pages.h"

namespace reftab {
namespace {

using Model = std::map<std::string, std::optional<std::string>>;

// That a lookup of `key` answered `r` (and `got` for a value) as `model` says it should.
void ExpectAnswer(const Model& model, const std::string& key, KvMemLookup r,
                  const std::string& got) {
  auto m = model.find(key);
  if (m == model.end()) {
    EXPECT_EQ(r, KvMemLookup::kAbsent) << key;
  } else if (!m->second) {
    EXPECT_EQ(r, KvMemLookup::kDeleted) << key;
  } else {
    EXPECT_EQ(r, KvMemLookup::kValue) << key;
    EXPECT_EQ(got, *m->second) << key;
  }
}

TEST(KvMemtableTest, LookupsThroughFrozenLayersAgreeWithAMap) {
  std::mt19937_64 rng(11);
  // One chunk: the arenas' later blocks come from the allocator, past the pool's limit.
  auto pool = std::make_shared<KvMemPool>(kHugePageBytes);
  KvMemtable mem(pool);
  Model model;
  std::shared_ptr<const KvMemLayers> frozen;
  Model frozen_model;
  auto key = [](uint64_t i) { return "key-" + std::to_string(i); };
  for (int step = 0; step < 20000; ++step) {
    const std::string k = key(rng() % 3000);
    if (rng() % 5 == 0) {
      mem.Delete(k);
      model[k] = std::nullopt;
    } else {
      std::string v(rng() % 40, char('a' + rng() % 26));  // empty values too
      mem.Put(k, v);
      model[k] = v;
    }
    // Freezes at random intervals, so that layers of many sizes are made and merged.
    if (rng() % (1 + step % 700) == 0) {
      frozen = mem.Freeze();
      frozen_model = model;
    }
    if (step % 97 != 0) continue;
    for (uint64_t i = 0; i < 3100; i += 7) {  // absent keys too (3000 and up)
      const std::string q = key(i);
      std::string got;
      const KvMemLookup r = mem.Get(q, &got);
      ExpectAnswer(model, q, r, got);
      if (!frozen) continue;
      // A snapshot's layers keep what they held when frozen, whatever came later.
      const KvMemLookup f = LookupKvMemLayers(*frozen, q, &got);
      ExpectAnswer(frozen_model, q, f, got);
    }
  }
  ASSERT_NE(frozen, nullptr);
  EXPECT_GT(frozen->size(), 1u);  // layers were stacked, not only merged
  EXPECT_EQ(pool->chunk_bytes(), kHugePageBytes);
}

// A pool makes chunks up to its limit, hands out their blocks (64 KiB apart, writable),
// then blocks of the allocator; blocks given back are handed out again, without new chunks.
TEST(KvMemtableTest, APoolReusesItsChunksBlocksUpToItsLimit) {
  KvMemPool pool(2 * kHugePageBytes);
  constexpr size_t kPerChunk = kHugePageBytes / kKvArenaBlock;
  std::vector<KvMemPool::Block> taken;
  for (size_t i = 0; i < 2 * kPerChunk; ++i) {
    taken.push_back(pool.Take());
    ASSERT_TRUE(taken.back().pooled) << i;
    std::memset(taken.back().data, int(i), kKvArenaBlock);
  }
  EXPECT_EQ(pool.chunk_bytes(), 2 * kHugePageBytes);
  std::vector<char*> starts;
  for (const auto& b : taken) starts.push_back(b.data);
  std::sort(starts.begin(), starts.end());
  for (size_t i = 1; i < starts.size(); ++i)
    ASSERT_GE(starts[i] - starts[i - 1], ptrdiff_t(kKvArenaBlock));
  KvMemPool::Block beyond = pool.Take();
  EXPECT_FALSE(beyond.pooled);
  std::memset(beyond.data, 1, kKvArenaBlock);
  pool.Give(beyond);
  for (size_t i = 0; i < taken.size(); ++i) {
    EXPECT_EQ(taken[i].data[kKvArenaBlock - 1], char(i));  // no block was handed out twice
    pool.Give(taken[i]);
  }
  for (size_t i = 0; i < 2 * kPerChunk; ++i) EXPECT_TRUE(pool.Take().pooled);
  EXPECT_EQ(pool.chunk_bytes(), 2 * kHugePageBytes);
}

// Memtables that come and go (frozen, then dropped as after their flush) take the same
// chunks again: the pool does not grow past one memtable's and one frozen layer's worth.
TEST(KvMemtableTest, MemtablesThatComeAndGoReuseThePoolsChunks) {
  auto pool = std::make_shared<KvMemPool>(8 * kHugePageBytes);
  const std::string value(200, 'v');
  std::shared_ptr<const KvMemLayers> flushing;
  auto key = [](int round, int i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "r%d-%d", round, i);
    return std::string(buf);
  };
  for (int round = 0; round < 20; ++round) {
    KvMemtable mem(pool);
    for (int i = 0; i < 5000; ++i) mem.Put(key(round, i), value);
    flushing = mem.Freeze();  // the one before is dropped here
    std::string got;
    ASSERT_EQ(LookupKvMemLayers(*flushing, key(round, 4999), &got), KvMemLookup::kValue);
    EXPECT_EQ(got, value);
  }
  // 5000 entries of about 300 bytes with their nodes: under 2 MiB each, so two at a time.
  EXPECT_LE(pool->chunk_bytes(), 2 * kHugePageBytes);
}

// Entries over a quarter block and up to a quarter chunk are bumped in whole chunks of the
// pool (twenty of 100 KiB to a chunk), which go back to it with the arena for the next
// one; past the pool's limit, and over a quarter chunk, they come from the allocator.
TEST(KvMemtableTest, LargeEntriesFillWholeChunksOfThePoolThatTheNextArenaReuses) {
  auto pool = std::make_shared<KvMemPool>(2 * kHugePageBytes);
  std::string value(100 << 10, '\0');
  for (size_t i = 0; i < value.size(); ++i) value[i] = char(i * 13);
  std::vector<const char*> first;
  {
    KvArena arena(pool);
    for (int i = 0; i < 42; ++i) {
      std::string_view v = arena.Copy(value);
      EXPECT_EQ(v, value);
      first.push_back(v.data());
    }
    const std::string huge(kHugePageBytes / 4 + 1, 'h');
    EXPECT_EQ(arena.Copy(huge), huge);
    EXPECT_EQ(pool->chunk_bytes(), 2 * kHugePageBytes);  // the limit: the rest the arena maps
    for (int i = 0; i < 40; ++i) {
      if (i % 20 != 19) {
        EXPECT_EQ(first[size_t(i) + 1], first[size_t(i)] + value.size()) << i;
      }
    }
    for (int i = 0; i < 42; ++i)
      EXPECT_EQ(std::memcmp(first[size_t(i)], value.data(), value.size()), 0);
  }
  KvArena next(pool);
  const char* reused = next.Copy(value).data();
  EXPECT_TRUE(reused == first[0] || reused == first[20]);
  EXPECT_EQ(pool->chunk_bytes(), 2 * kHugePageBytes);
}

// Past the pool's limit (a batch larger than the memtable), large entries still fill whole
// huge-page chunks, the arena's own: one fault per 2 MiB instead of one per 4 KiB page.
TEST(KvMemtableTest, LargeEntriesPastThePoolsLimitFillChunksOfTheArenasOwn) {
  auto pool = std::make_shared<KvMemPool>(kHugePageBytes);
  std::string value(100 << 10, '\0');
  std::vector<const char*> at;
  {
    KvArena arena(pool);
    for (int i = 0; i < 70; ++i) {
      for (size_t j = 0; j < value.size(); j += 4096) value[j] = char(i + j / 4096);
      std::string_view v = arena.Copy(value);
      ASSERT_EQ(v, value) << i;
      at.push_back(v.data());
    }
    EXPECT_EQ(pool->chunk_bytes(), kHugePageBytes);  // the pool gave its one chunk only
    for (size_t i = 0; i < 70; ++i) {
      if (i % 20 == 0) {  // the first of a chunk, 20 to a chunk
        EXPECT_EQ(reinterpret_cast<uintptr_t>(at[i]) % kHugePageBytes, 0u) << i;
      } else {
        EXPECT_EQ(at[i], at[i - 1] + value.size()) << i;
      }
    }
    for (size_t i = 0; i < 70; ++i) {  // each kept its own bytes
      for (size_t j = 0; j < value.size(); j += 4096) ASSERT_EQ(at[i][j], char(i + j / 4096));
    }
  }
  EXPECT_EQ(pool->chunk_bytes(), kHugePageBytes);  // the arena's own went with it
}

TEST(KvMemtableTest, BorrowedWritesKeepTheCallersBytesOthersACopy) {
  const std::string key_a = "a", key_b = "b", key_c = "c", value(1000, 'v');
  KvMemtable mem;
  mem.PutBorrowed(key_a, value);
  mem.Put(key_b, value);
  mem.DeleteBorrowed(key_c);
  KvMemCursor c(mem.Freeze());
  c.Seek("");
  ASSERT_TRUE(c.Valid());
  EXPECT_EQ(c.key().data(), key_a.data());
  EXPECT_EQ(c.value()->data(), value.data());
  c.Next();
  ASSERT_TRUE(c.Valid());
  EXPECT_EQ(c.key(), "b");
  EXPECT_NE(c.key().data(), key_b.data());
  EXPECT_NE(c.value()->data(), value.data());
  EXPECT_EQ(*c.value(), value);
  c.Next();
  ASSERT_TRUE(c.Valid());
  EXPECT_EQ(c.key().data(), key_c.data());
  EXPECT_FALSE(c.value());
  c.Next();
  EXPECT_FALSE(c.Valid());
  // Counted as any write is.
  EXPECT_EQ(mem.largest(), 1001u);
  std::string got;
  EXPECT_EQ(mem.Get("a", &got), KvMemLookup::kValue);
  EXPECT_EQ(got, value);
  EXPECT_EQ(mem.Get("c", &got), KvMemLookup::kDeleted);
}

TEST(KvMemtableTest, AnEmptyLayerSetFindsNothing) {
  KvMemtable mem;
  std::string v;
  EXPECT_EQ(LookupKvMemLayers(*mem.Freeze(), "a", &v), KvMemLookup::kAbsent);
  mem.Put("a", "1");
  mem.Freeze();
  mem.Clear();
  EXPECT_EQ(mem.Get("a", &v), KvMemLookup::kAbsent);
}

}  // namespace
}  // namespace reftab
