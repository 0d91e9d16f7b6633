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

TEST(KvMemtableTest, LookupsThroughFrozenLayersAgreeWithAMap) {
  std::mt19937_64 rng(11);
  KvMemtable mem;
  std::map<std::string, std::optional<std::string>> model;
  std::shared_ptr<const KvMemLayers> frozen;
  std::map<std::string, std::optional<std::string>> frozen_model;
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
      auto m = model.find(q);
      if (m == model.end()) {
        EXPECT_EQ(r, KvMemLookup::kAbsent) << q;
      } else if (!m->second) {
        EXPECT_EQ(r, KvMemLookup::kDeleted) << q;
      } else {
        ASSERT_EQ(r, KvMemLookup::kValue) << q;
        EXPECT_EQ(got, *m->second) << q;
      }
      if (!frozen) continue;
      // A snapshot's layers keep what they held when frozen, whatever came later.
      const KvMemLookup f = LookupKvMemLayers(*frozen, q, &got);
      auto fm = frozen_model.find(q);
      if (fm == frozen_model.end()) {
        EXPECT_EQ(f, KvMemLookup::kAbsent) << q;
      } else if (!fm->second) {
        EXPECT_EQ(f, KvMemLookup::kDeleted) << q;
      } else {
        ASSERT_EQ(f, KvMemLookup::kValue) << q;
        EXPECT_EQ(got, *fm->second) << q;
      }
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
