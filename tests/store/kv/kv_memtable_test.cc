// The key/value store's memtable (store/kv/kv_memtable.h): lookups in the writable map and
// in frozen layers (through each layer's hash, KvMemHash) answer as a std::map of the same
// writes does, across freezes that merge layers, for present, deleted and absent keys.
#include "store/kv/kv_memtable.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>

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
  KvMemtable mem;
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
