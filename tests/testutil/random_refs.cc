#include "tests/testutil/random_refs.h"

#include <gtest/gtest.h>

#include <cstring>

namespace reftab::testutil {

std::string RandomRefName(std::mt19937_64& rng) {
  static const char* const kTops[] = {"refs/heads/", "refs/tags/", "refs/remotes/origin/",
                                      "refs/changes/", "refs/heads/feature/", "refs/notes/"};
  static const char* const kWords[] = {"main", "topic", "a", "b", "fix", "release", "v1.0",
                                       "user", "x", "long-name-with-many-characters", "ü", "日本"};
  std::string name = kTops[rng() % 6];
  int parts = 1 + int(rng() % 3);
  for (int i = 0; i < parts; ++i) {
    if (i) name.push_back('/');
    name += kWords[rng() % 12];
    name += std::to_string(rng() % 1000);
  }
  if (rng() % 50 == 0) name.push_back(char(0x80 + rng() % 0x7f));  // an invalid-UTF-8 byte
  if (rng() % 100 == 0) name.append(size_t(100 + rng() % 300), 'z');  // a long name
  return name;
}

ObjectId RandomId(std::mt19937_64& rng, size_t hash_size) {
  ObjectId id{};
  for (size_t i = 0; i < hash_size; ++i) id[i] = uint8_t(rng());
  // Now and then share a long prefix with a fixed id, to push obj_id_len up.
  if (rng() % 20 == 0) std::memset(id.data(), 0xab, hash_size / 2);
  return id;
}

RefRecord RandomRef(std::mt19937_64& rng, const std::string& name, size_t hash_size,
                    uint64_t min_update_index, uint64_t max_update_index) {
  RefRecord r;
  r.refname = name;
  r.update_index = min_update_index + rng() % (max_update_index - min_update_index + 1);
  switch (rng() % 10) {
    case 0: r.value_type = RefValueType::kDeletion; break;
    case 1:
      r.value_type = RefValueType::kSymref;
      r.target = "refs/heads/target" + std::to_string(rng() % 100);
      break;
    case 2: case 3:
      r.value_type = RefValueType::kVal2;
      r.value = RandomId(rng, hash_size);
      r.peeled = RandomId(rng, hash_size);
      break;
    default:
      r.value_type = RefValueType::kVal1;
      r.value = RandomId(rng, hash_size);
  }
  return r;
}

LogRecord RandomLog(std::mt19937_64& rng, const std::string& name, uint64_t update_index,
                    size_t hash_size) {
  LogRecord l;
  l.refname = name;
  l.update_index = update_index;
  if (rng() % 8 == 0) {
    l.value_type = LogValueType::kDeletion;
    return l;
  }
  l.value_type = LogValueType::kUpdate;
  l.old_id = RandomId(rng, hash_size);
  l.new_id = RandomId(rng, hash_size);
  l.name = rng() % 2 ? "C O Mitter" : "Jürgen Müller";
  l.email = rng() % 5 ? "committer@example.com" : "";
  l.time = 1700000000 + rng() % 100000000;
  static const int16_t kTz[] = {0, 530, -800, 1400, -1200, 100, -330, 945};
  l.tz_offset = kTz[rng() % 8];
  l.message = "update " + std::to_string(rng()) + "\n";
  if (rng() % 30 == 0) l.message = std::string(size_t(rng() % 700), 'm') + "\n";
  return l;
}

std::map<std::string, RefRecord> RandomRefSet(std::mt19937_64& rng, size_t n, size_t hash_size,
                                              uint64_t min_update_index, uint64_t max_update_index) {
  std::map<std::string, RefRecord> out;
  while (out.size() < n) {
    std::string name = RandomRefName(rng);
    out[name] = RandomRef(rng, name, hash_size, min_update_index, max_update_index);
  }
  return out;
}

std::string WriteTableToString(const WriteOptions& opts, uint64_t min_update_index,
                               uint64_t max_update_index, const std::vector<RefRecord>& refs,
                               const std::vector<LogRecord>& logs) {
  std::string out;
  StringSink sink(&out);
  TableWriter w(opts, &sink);
  Status s = w.SetLimits(min_update_index, max_update_index);
  EXPECT_TRUE(s.ok()) << s.ToString();
  for (const auto& r : refs) {
    s = w.AddRef(r);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  for (const auto& l : logs) {
    s = w.AddLog(l);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  s = w.Finish();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

bool SameRef(const RefRecord& a, const RefRecord& b, size_t hs) {
  if (a.refname != b.refname || a.update_index != b.update_index || a.value_type != b.value_type) {
    return false;
  }
  switch (a.value_type) {
    case RefValueType::kDeletion: return true;
    case RefValueType::kVal1: return std::memcmp(a.value.data(), b.value.data(), hs) == 0;
    case RefValueType::kVal2:
      return std::memcmp(a.value.data(), b.value.data(), hs) == 0 &&
             std::memcmp(a.peeled.data(), b.peeled.data(), hs) == 0;
    case RefValueType::kSymref: return a.target == b.target;
  }
  return false;
}

bool SameLog(const LogRecord& a, const LogRecord& b, size_t hs) {
  if (a.refname != b.refname || a.update_index != b.update_index || a.value_type != b.value_type) {
    return false;
  }
  if (a.value_type == LogValueType::kDeletion) return true;
  return std::memcmp(a.old_id.data(), b.old_id.data(), hs) == 0 &&
         std::memcmp(a.new_id.data(), b.new_id.data(), hs) == 0 && a.name == b.name &&
         a.email == b.email && a.time == b.time && a.tz_offset == b.tz_offset &&
         a.message == b.message;
}

}  // namespace reftab::testutil
