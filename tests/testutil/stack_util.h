// Small helpers shared by the store tests (header-only, test code).
#ifndef REFTAB_TESTS_TESTUTIL_STACK_UTIL_H_
#define REFTAB_TESTS_TESTUTIL_STACK_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/stack.h"
#include "tests/testutil/store_util.h"

namespace reftab::storetest {

// Options for tests: no fsync (speed), no auto-compaction unless asked, short lock timeout.
inline StackOptions TestOptions(HashId hash = HashId::kSha1) {
  StackOptions o;
  o.hash_id = hash;
  o.durability = Durability::kNone;
  o.auto_compact = false;
  o.lock_timeout_ms = 100;
  return o;
}

inline std::unique_ptr<Stack> OpenOrDie(const std::string& dir, const StackOptions& o) {
  auto s = Stack::Open(dir, o);
  EXPECT_TRUE(s.ok()) << dir << ": " << s.status().ToString();
  if (!s.ok()) return nullptr;
  return std::move(*s);
}

inline RefValue IdValue(uint64_t n, size_t hs = 20) {
  return RefValue::Id(testutil::TestId(n, hs));
}

inline LogInfo TestLog(uint64_t time, const std::string& message) {
  LogInfo l;
  l.name = "C O Mitter";
  l.email = "committer@example.com";
  l.time = time;
  l.tz_offset = -800;
  l.message = message;
  return l;
}

// One transaction setting `name` to id `n` (with a reflog entry).
inline Status Put(Stack& s, const std::string& name, uint64_t n,
                  std::optional<RefValue> expected = std::nullopt) {
  Transaction tx = s.NewTransaction();
  tx.Update(name, IdValue(n, s.snapshot()->hash_size()), std::move(expected),
            TestLog(1700000000 + n, "set " + name));
  return tx.Commit();
}

inline Status Del(Stack& s, const std::string& name) {
  Transaction tx = s.NewTransaction();
  tx.Delete(name);
  return tx.Commit();
}

// The live refs of the current snapshot as "name value" lines.
inline std::string LiveRefs(const Stack& s) { return testutil::DumpRefs(*s.snapshot(), false); }

// Parses git's table file name, 0x<min:12 hex>-0x<max:12 hex>-<random:8 hex>.ref (lower case).
inline bool ParseTableName(const std::string& n, uint64_t* min, uint64_t* max) {
  if (n.size() != 42 || n.compare(0, 2, "0x") != 0 || n[14] != '-' || n.compare(15, 2, "0x") != 0 ||
      n[29] != '-' || n.compare(38, 4, ".ref") != 0) {
    return false;
  }
  auto hex = [&](size_t pos, size_t len, uint64_t* out) {
    uint64_t v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      char c = n[i];
      if (c >= '0' && c <= '9') {
        v = v * 16 + uint64_t(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v = v * 16 + uint64_t(c - 'a' + 10);
      } else {
        return false;
      }
    }
    *out = v;
    return true;
  };
  uint64_t random = 0;
  return hex(2, 12, min) && hex(17, 12, max) && hex(30, 8, &random);
}

inline std::vector<std::string> Without(std::vector<std::string> v, const std::string& x) {
  v.erase(std::remove(v.begin(), v.end(), x), v.end());
  return v;
}

}  // namespace reftab::storetest

#endif  // REFTAB_TESTS_TESTUTIL_STACK_UTIL_H_
