// Model-based test of the stack (STYLE.md §3.9): long seeded sequences of transactions
// (creates, updates, deletes, verifies; symrefs and peeled values; with and without expected
// old values, failing ones included; reflog entries and raw log records), full, range and
// automatic compactions (with reflog expiry), transactions and compactions through a second
// Stack object on the same directory, and reopenings. After every step the stack is compared
// with a std::map model: full scans with and without tombstones, ReadRef of present and
// absent names, prefix scans, reflogs, update indexes (git's rules), table names and ranges,
// tables.list and the directory listing. Both hash versions, auto-compaction on and off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "store/stack.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::FormatLog;
using testutil::FormatRef;
using testutil::TempDir;

// ------------------------------------------------------------------ the model

struct ModelRef {
  RefValue value;
  uint64_t update_index = 0;
};

struct ModelLog {
  ObjectId old_id{};
  ObjectId new_id{};
  std::string name, email;
  uint64_t time = 0;
  int16_t tz = 0;
  std::string message;
};

struct Model {
  std::map<std::string, ModelRef> refs;
  // Per ref, entries by update index, newest first.
  std::map<std::string, std::map<uint64_t, ModelLog, std::greater<>>> logs;
  uint64_t max_index = 0;

  bool empty() const { return refs.empty() && logs.empty(); }
};

bool SameValue(const RefValue& a, const RefValue& b, size_t hs) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case RefValueType::kDeletion: return true;
    case RefValueType::kVal1: return std::memcmp(a.id.data(), b.id.data(), hs) == 0;
    case RefValueType::kVal2:
      return std::memcmp(a.id.data(), b.id.data(), hs) == 0 &&
             std::memcmp(a.peeled.data(), b.peeled.data(), hs) == 0;
    case RefValueType::kSymref: return a.target == b.target;
  }
  return false;
}

// git's expectation rule: an expected plain id also matches a peeled ref with that id.
bool Meets(const RefValue& current, const RefValue& expected, size_t hs) {
  if (expected.type == RefValueType::kVal1 && current.type == RefValueType::kVal2) {
    return std::memcmp(current.id.data(), expected.id.data(), hs) == 0;
  }
  return SameValue(current, expected, hs);
}

// The id a reflog entry records for a value: a symref logs what it resolves to (up to five
// levels), a missing or unresolvable ref the null id.
ObjectId LoggedId(const Model& m, const RefValue& v) {
  if (v.type == RefValueType::kVal1 || v.type == RefValueType::kVal2) return v.id;
  std::string name = v.target;
  for (int depth = 0; v.type == RefValueType::kSymref && depth < 5; ++depth) {
    auto it = m.refs.find(name);
    if (it == m.refs.end()) break;
    if (it->second.value.type != RefValueType::kSymref) return it->second.value.id;
    name = it->second.value.target;
  }
  return ObjectId{};
}

std::string NormalizedMessage(std::string m) {
  while (!m.empty() && m.back() == '\n') m.pop_back();
  return m + "\n";
}

RefValue Current(const Model& m, const std::string& name) {
  auto it = m.refs.find(name);
  return it == m.refs.end() ? RefValue::Absent() : it->second.value;
}

RefRecord ToRecord(const std::string& name, const ModelRef& r) {
  RefRecord rec;
  rec.refname = name;
  rec.update_index = r.update_index;
  rec.value_type = r.value.type;
  if (r.value.type == RefValueType::kVal1 || r.value.type == RefValueType::kVal2)
    rec.value = r.value.id;
  if (r.value.type == RefValueType::kVal2) rec.peeled = r.value.peeled;
  if (r.value.type == RefValueType::kSymref) rec.target = r.value.target;
  return rec;
}

LogRecord ToLog(const std::string& name, uint64_t ui, const ModelLog& e) {
  LogRecord l;
  l.refname = name;
  l.update_index = ui;
  l.value_type = LogValueType::kUpdate;
  l.old_id = e.old_id;
  l.new_id = e.new_id;
  l.name = e.name;
  l.email = e.email;
  l.time = e.time;
  l.tz_offset = e.tz;
  l.message = e.message;
  return l;
}

// ------------------------------------------------------------------ transactions

struct TxItem {
  enum Kind { kUpdate, kDelete, kVerify } kind;
  std::string name;
  RefValue value;
  std::optional<RefValue> expected;
  std::optional<LogInfo> log;
};

struct TxRaw {
  LogRecord log;
  bool keep = false;
};

struct TxPlan {
  std::vector<TxItem> items;
  std::vector<TxRaw> raws;
};

struct TxOutcome {
  Code code = Code::kOk;
  bool writes = false;  // a table is written
  Model after;
};

// What the transaction must do to the model (git's semantics, FORMAT.md §17).
TxOutcome Simulate(const Model& m, const TxPlan& plan, size_t hs) {
  TxOutcome out;
  out.after = m;
  std::vector<const TxItem*> sorted;
  for (const TxItem& it : plan.items) sorted.push_back(&it);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const TxItem* a, const TxItem* b) { return a->name < b->name; });
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i - 1]->name == sorted[i]->name) {
      out.code = Code::kInvalidArgument;
      return out;
    }
    if (sorted[i]->expected && !Meets(Current(m, sorted[i]->name), *sorted[i]->expected, hs)) {
      out.code = Code::kConflict;
      return out;
    }
  }
  const uint64_t next = m.max_index + 1;
  std::vector<std::pair<std::string, uint64_t>> log_keys;
  bool refs_written = false;
  Model& a = out.after;
  for (const TxItem* it : sorted) {
    if (it->kind == TxItem::kVerify) continue;
    RefValue cur = Current(m, it->name);
    RefValue target = it->kind == TxItem::kDelete ? RefValue::Absent() : it->value;
    if (SameValue(cur, target, hs)) continue;
    refs_written = true;
    if (it->kind == TxItem::kDelete) {
      a.refs.erase(it->name);
      auto l = m.logs.find(it->name);
      if (l != m.logs.end()) {
        for (const auto& [ui, e] : l->second) log_keys.emplace_back(it->name, ui);
      }
      a.logs.erase(it->name);
    } else {
      a.refs[it->name] = ModelRef{target, next};
      if (it->log) {
        log_keys.emplace_back(it->name, next);
        ModelLog e;
        e.old_id = LoggedId(m, cur);
        e.new_id = LoggedId(m, target);
        e.name = it->log->name;
        e.email = it->log->email;
        e.time = it->log->time;
        e.tz = it->log->tz_offset;
        e.message = NormalizedMessage(it->log->message);
        a.logs[it->name][next] = e;
      }
    }
  }
  for (const TxRaw& r : plan.raws) {
    uint64_t ui = r.keep ? r.log.update_index : next;
    log_keys.emplace_back(r.log.refname, ui);
    if (r.log.is_deletion()) {
      auto l = a.logs.find(r.log.refname);
      if (l != a.logs.end()) {
        l->second.erase(ui);
        if (l->second.empty()) a.logs.erase(l);
      }
    } else {
      LogRecord n = r.log;
      ModelLog e{
          n.old_id, n.new_id, n.name, n.email, n.time, n.tz_offset, NormalizedMessage(n.message)};
      a.logs[r.log.refname][ui] = e;
    }
  }
  std::sort(log_keys.begin(), log_keys.end());
  if (std::adjacent_find(log_keys.begin(), log_keys.end()) != log_keys.end()) {
    out.code = Code::kInvalidArgument;
    out.after = m;
    return out;
  }
  out.writes = refs_written || !log_keys.empty();
  if (out.writes) a.max_index = next;
  return out;
}

// ------------------------------------------------------------------ the test

struct ModelParam {
  HashId hash;
  bool auto_compact;
  uint64_t seed;
};

class StackModelTest : public ::testing::TestWithParam<ModelParam> {
 protected:
  void SetUp() override {
    const ModelParam& p = GetParam();
    hs_ = HashSize(p.hash);
    rng_.seed(p.seed * 1000003 + (p.hash == HashId::kSha256 ? 17 : 0) + (p.auto_compact ? 5 : 0));
    opts_ = storetest::TestOptions(p.hash);
    opts_.auto_compact = p.auto_compact;
    opts_.write_options.block_size = 1024;  // several blocks per table now and then
    pool_ = {"HEAD",
             "ORIG_HEAD",
             "refs/heads/a",
             "refs/heads/a-b",
             "refs/heads/a/b",
             "refs/heads/ab",
             "refs/heads/feature/one",
             "refs/heads/feature/two",
             "refs/heads/feature/three",
             "refs/heads/main",
             "refs/heads/topic",
             "refs/heads/" + std::string(300, 'l'),
             "refs/notes/commits",
             "refs/remotes/origin/HEAD",
             "refs/remotes/origin/main",
             "refs/stash",
             "refs/tags/v1.0",
             "refs/tags/v1.0.1",
             "refs/tags/v2.0",
             "refs/tags/\xc3\xbcnicode",
             "refs/tags/\x80raw"};
    for (int i = 0; i < 20; ++i) pool_.push_back("refs/heads/many/" + std::to_string(1000 + i));
    absent_ = {"",
               "A",
               "refs",
               "refs/",
               "refs/heads",
               "refs/heads/",
               "refs/heads/a/",
               "refs/zzz",
               "refs/heads/mai",
               "refs/heads/mainx",
               "\xff"};
    primary_ = storetest::OpenOrDie(tmp_.path(), opts_);
    other_ = storetest::OpenOrDie(tmp_.path(), opts_);
    ASSERT_TRUE(primary_ && other_);
  }

  uint64_t Rand(uint64_t n) { return rng_() % n; }
  const std::string& AnyName() { return pool_[Rand(pool_.size())]; }

  RefValue RandomValue() {
    uint64_t r = Rand(10);
    if (r < 7) return RefValue::Id(testutil::TestId(rng_(), hs_));
    if (r < 8)
      return RefValue::Peeled(testutil::TestId(rng_(), hs_), testutil::TestId(rng_(), hs_));
    return RefValue::Symref(AnyName());
  }

  // An expectation that the current value does not meet.
  RefValue WrongValue(const RefValue& cur) {
    for (;;) {
      RefValue v = Rand(3) == 0 ? RefValue::Absent() : RandomValue();
      if (!Meets(cur, v, hs_)) return v;
    }
  }

  std::optional<RefValue> RandomExpectation(const RefValue& cur) {
    uint64_t r = Rand(40);
    if (r < 18) return std::nullopt;
    if (r < 38) {
      // Met: the value itself, or for a peeled ref its plain id.
      if (cur.type == RefValueType::kVal2 && Rand(2)) return RefValue::Id(cur.id);
      return cur;
    }
    return WrongValue(cur);
  }

  LogInfo RandomLogInfo() {
    static const int16_t kTz[] = {0, 530, -800, 1400, -1200, 100, -330, 945};
    static const char* const kMsg[] = {"commit: x", "reset: moving to HEAD\n", "",
                                       "branch: Created\n\n", "update by \xc3\xbc"};
    LogInfo l;
    l.name = Rand(2) ? "C O Mitter" : "J\xc3\xbcrgen";
    l.email = Rand(5) ? "committer@example.com" : "";
    l.time = 1700000000 + Rand(100000);
    l.tz_offset = kTz[Rand(8)];
    l.message = kMsg[Rand(5)];
    return l;
  }

  TxPlan RandomPlan(const Model& m) {
    TxPlan plan;
    size_t n = 1 + Rand(5);
    std::vector<std::string> used;
    for (size_t i = 0; i < n; ++i) {
      std::string name = AnyName();
      // Occasionally the same name twice (must be rejected); otherwise distinct names.
      if (std::find(used.begin(), used.end(), name) != used.end() && Rand(4) != 0) continue;
      used.push_back(name);
      RefValue cur = Current(m, name);
      TxItem item;
      item.name = name;
      uint64_t k = Rand(10);
      if (k < 6) {
        item.kind = TxItem::kUpdate;
        item.value = Rand(6) == 0 && cur.exists() ? cur : RandomValue();  // sometimes a no-op
        item.expected = RandomExpectation(cur);
        if (Rand(2)) item.log = RandomLogInfo();
      } else if (k < 8) {
        item.kind = TxItem::kDelete;
        item.expected = RandomExpectation(cur);
      } else {
        item.kind = TxItem::kVerify;
        item.expected = Rand(8) == 0 ? WrongValue(cur) : cur;
      }
      plan.items.push_back(std::move(item));
    }
    if (Rand(6) == 0) {
      TxRaw raw;
      raw.log.refname = AnyName();
      auto existing = m.logs.find(raw.log.refname);
      uint64_t k = Rand(4);
      if (existing != m.logs.end() && k >= 2) {
        auto e = existing->second.begin();
        std::advance(e, long(Rand(existing->second.size())));
        raw.keep = true;
        raw.log.update_index = e->first;
        if (k == 2) {
          raw.log.value_type = LogValueType::kDeletion;  // like `git reflog delete`
        } else {
          raw.log.value_type = LogValueType::kUpdate;  // a rewritten entry
        }
      } else {
        raw.log.update_index = 0;  // replaced by the transaction's index
        raw.log.value_type = LogValueType::kUpdate;
      }
      if (raw.log.value_type == LogValueType::kUpdate) {
        LogInfo info = RandomLogInfo();
        raw.log.old_id = testutil::TestId(rng_(), hs_);
        raw.log.new_id = testutil::TestId(rng_(), hs_);
        raw.log.name = info.name;
        raw.log.email = info.email;
        raw.log.time = info.time;
        raw.log.tz_offset = info.tz_offset;
        raw.log.message = info.message;
      }
      plan.raws.push_back(raw);
    }
    return plan;
  }

  // Deletes every ref and every remaining reflog entry: the next compaction down to the
  // base leaves no table at all.
  static TxPlan ClearPlan(const Model& m) {
    TxPlan plan;
    for (const auto& [name, r] : m.refs) {
      TxItem item;
      item.kind = TxItem::kDelete;
      item.name = name;
      item.expected = r.value;
      plan.items.push_back(std::move(item));
    }
    for (const auto& [name, entries] : m.logs) {
      if (m.refs.count(name)) continue;  // deleting the ref deletes its reflog
      for (const auto& [ui, e] : entries) {
        TxRaw raw;
        raw.log.refname = name;
        raw.log.update_index = ui;
        raw.keep = true;
        plan.raws.push_back(raw);
      }
    }
    return plan;
  }

  Status Commit(Stack& s, const TxPlan& plan, uint64_t* index) {
    Transaction tx = s.NewTransaction();
    for (const TxItem& it : plan.items) {
      switch (it.kind) {
        case TxItem::kUpdate: tx.Update(it.name, it.value, it.expected, it.log); break;
        case TxItem::kDelete: tx.Delete(it.name, it.expected); break;
        case TxItem::kVerify: tx.Verify(it.name, *it.expected); break;
      }
    }
    for (const TxRaw& r : plan.raws) tx.AddLogRecord(r.log, r.keep);
    Status st = tx.Commit();
    *index = tx.committed_update_index();
    return st;
  }

  // Every check against the model, on `s` (which must be up to date).
  void Check(Stack& s, const Model& m, const std::string& where) {
    SCOPED_TRACE(where);
    auto snap = s.snapshot();
    ASSERT_EQ(snap->hash_id(), GetParam().hash);
    // Full scan without tombstones: exactly the model.
    std::string want_refs;
    for (const auto& [name, r] : m.refs) want_refs += FormatRef(ToRecord(name, r), hs_) + "\n";
    ASSERT_EQ(testutil::DumpRefs(*snap, false), want_refs);
    // With tombstones: the same, plus tombstones of names the model does not have.
    {
      MergedRefIterator it = snap->NewRefIterator();
      ASSERT_TRUE(it.SeekToFirst().ok());
      RefRecord r;
      std::string live;
      while (it.Next(&r)) {
        if (r.is_deletion()) {
          ASSERT_EQ(m.refs.count(r.refname), 0u) << r.refname;
        } else {
          live += FormatRef(r, hs_) + "\n";
        }
      }
      ASSERT_TRUE(it.status().ok());
      ASSERT_EQ(live, want_refs);
    }
    // Exact lookups.
    auto lookup = [&](const std::string& name) {
      RefRecord r;
      bool found = false;
      ASSERT_TRUE(snap->ReadRef(name, &r, &found).ok());
      auto it = m.refs.find(name);
      ASSERT_EQ(found, it != m.refs.end()) << name;
      if (found) {
        ASSERT_EQ(FormatRef(r, hs_), FormatRef(ToRecord(name, it->second), hs_));
      }
    };
    for (const std::string& name : pool_) lookup(name);
    for (const std::string& name : absent_) lookup(name);
    // Prefix scans, as callers do them: seek, suppress tombstones, stop past the prefix.
    for (const char* prefix :
         {"", "HEAD", "refs/", "refs/heads/", "refs/heads/a", "refs/heads/a/",
          "refs/heads/feature/", "refs/heads/many/10", "refs/tags/", "refs/zz"}) {
      std::string want, got;
      for (auto it = m.refs.lower_bound(prefix);
           it != m.refs.end() && testutil::StartsWith(it->first, prefix); ++it) {
        want += FormatRef(ToRecord(it->first, it->second), hs_) + "\n";
      }
      MergedRefIterator it = snap->NewRefIterator();
      it.set_suppress_deletions(true);
      ASSERT_TRUE(it.Seek(prefix).ok());
      RefRecord r;
      while (it.Next(&r) && testutil::StartsWith(r.refname, prefix))
        got += FormatRef(r, hs_) + "\n";
      ASSERT_TRUE(it.status().ok());
      ASSERT_EQ(got, want) << "prefix " << prefix;
    }
    // Reflogs.
    std::string want_logs;
    for (const auto& [name, entries] : m.logs) {
      for (const auto& [ui, e] : entries) want_logs += FormatLog(ToLog(name, ui, e), hs_) + "\n";
    }
    ASSERT_EQ(testutil::DumpLogs(*snap, false), want_logs);
    // Update indexes: the stack's maximum, and contiguous table ranges.
    ASSERT_EQ(snap->max_update_index(), m.max_index);
    const auto& tables = snap->tables();
    std::string list;
    for (size_t i = 0; i < tables.size(); ++i) {
      ASSERT_LE(tables[i]->min_update_index(), tables[i]->max_update_index());
      if (i > 0) {
        ASSERT_EQ(tables[i]->min_update_index(), tables[i - 1]->max_update_index() + 1);
      }
      uint64_t min = 0, max = 0;
      ASSERT_TRUE(storetest::ParseTableName(s.names()[i], &min, &max)) << s.names()[i];
      ASSERT_EQ(min, tables[i]->min_update_index());
      ASSERT_EQ(max, tables[i]->max_update_index());
      ASSERT_EQ(tables[i]->hash_id(), GetParam().hash);
      list += s.names()[i] + "\n";
    }
    // The directory holds exactly the listed tables and the list.
    ASSERT_EQ(testutil::ReadFileOr(tmp_.path() + "/tables.list"), list);
    std::vector<std::string> want_files = s.names();
    want_files.push_back("tables.list");
    std::sort(want_files.begin(), want_files.end());
    std::vector<std::string> files = testutil::ListDirSorted(tmp_.path());
    if (tables.empty() && files.empty()) return;  // no list written yet
    ASSERT_EQ(files, want_files);
  }

  std::vector<std::pair<uint64_t, uint64_t>> Ranges(const Stack& s) {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const auto& t : s.snapshot()->tables())
      out.emplace_back(t->min_update_index(), t->max_update_index());
    return out;
  }

  // Applies the expiry options of a full compaction to the model.
  static void Expire(Model* m, const CompactionOptions& o) {
    for (auto it = m->logs.begin(); it != m->logs.end();) {
      size_t kept = 0;
      for (auto e = it->second.begin(); e != it->second.end();) {
        bool drop = (o.expire_logs_before && e->second.time < *o.expire_logs_before) ||
                    (o.max_logs_per_ref && kept >= *o.max_logs_per_ref);
        if (drop) {
          e = it->second.erase(e);
        } else {
          ++kept;
          ++e;
        }
      }
      it = it->second.empty() ? m->logs.erase(it) : std::next(it);
    }
  }

  TempDir tmp_{"model"};
  size_t hs_ = 20;
  std::mt19937_64 rng_;
  StackOptions opts_;
  std::vector<std::string> pool_, absent_;
  std::unique_ptr<Stack> primary_, other_;
};

TEST_P(StackModelTest, RandomOperationsMatchTheModel) {
  const int kSteps = 400;
  Model m;
  size_t commits = 0, conflicts = 0, invalid = 0, noops = 0, compactions = 0, emptied = 0;
  for (int step = 0; step < kSteps; ++step) {
    const std::string where = "step " + std::to_string(step);
    uint64_t op = Rand(100);
    const bool via_other = Rand(6) == 0;
    Stack& s = via_other ? *other_ : *primary_;
    std::string list_before = testutil::ReadFileOr(tmp_.path() + "/tables.list", "<none>");
    bool changed = false;
    if (op < 62) {
      TxPlan plan = Rand(40) == 0 ? ClearPlan(m) : RandomPlan(m);
      TxOutcome want = Simulate(m, plan, hs_);
      uint64_t index = 0;
      Status st = Commit(s, plan, &index);
      ASSERT_EQ(st.code(), want.code) << where << ": " << st.ToString();
      if (!st.ok() || !want.writes) {
        ASSERT_EQ(index, 0u) << where;
        ASSERT_EQ(testutil::ReadFileOr(tmp_.path() + "/tables.list", "<none>"), list_before)
            << where << ": a transaction that fails or changes nothing writes nothing";
        conflicts += st.code() == Code::kConflict;
        invalid += st.code() == Code::kInvalidArgument;
        noops += st.ok();
      } else {
        ASSERT_EQ(index, m.max_index + 1) << where << ": each transaction takes max + 1";
        ++commits;
        changed = true;
        m = want.after;
        if (opts_.auto_compact) {
          ASSERT_TRUE(s.last_auto_compaction().ok()) << s.last_auto_compaction().ToString();
        } else {
          ASSERT_EQ(Ranges(s).back(), std::make_pair(index, index)) << where;
        }
      }
    } else if (op < 70) {
      CompactionOptions co;
      if (Rand(3) == 0) {
        if (Rand(2)) co.max_logs_per_ref = 1 + Rand(3);
        if (Rand(2)) co.expire_logs_before = 1700000000 + Rand(100000);
      }
      ASSERT_TRUE(s.ReloadIfChanged().ok());
      auto ranges = Ranges(s);
      ASSERT_TRUE(s.CompactAll(co).ok()) << where;
      Expire(&m, co);
      ++compactions;
      changed = true;
      if (!ranges.empty() && !m.empty()) {
        ASSERT_EQ(Ranges(s), (std::vector<std::pair<uint64_t, uint64_t>>{
                                 {ranges.front().first, ranges.back().second}}))
            << where << ": compaction keeps the range";
      }
    } else if (op < 78) {
      ASSERT_TRUE(s.ReloadIfChanged().ok());
      auto ranges = Ranges(s);
      if (ranges.empty()) continue;
      size_t first = Rand(ranges.size()), last = first + Rand(ranges.size() - first);
      ASSERT_TRUE(s.CompactRange(first, last).ok()) << where;
      ++compactions;
      changed = true;
      auto want = ranges;
      want.erase(want.begin() + long(first), want.begin() + long(last) + 1);
      auto got = Ranges(s);
      if (got.size() == want.size() + 1) {
        want.insert(want.begin() + long(first), {ranges[first].first, ranges[last].second});
      } else {
        // Only a compaction down to the base can come out empty.
        ASSERT_EQ(first, 0u) << where;
      }
      ASSERT_EQ(got, want) << where << ": compaction keeps the range";
    } else if (op < 84) {
      ASSERT_TRUE(s.AutoCompact().ok()) << where;
      changed = opts_.auto_compact;
      if (!opts_.auto_compact) {
        ASSERT_EQ(testutil::ReadFileOr(tmp_.path() + "/tables.list", "<none>"), list_before)
            << where << ": auto-compaction is off";
      }
    } else if (op < 88) {
      primary_ = storetest::OpenOrDie(tmp_.path(), opts_);  // a fresh object
      ASSERT_TRUE(primary_);
    }
    // An emptied stack has no tables and starts again at update index 1.
    if (changed && s.names().empty() && m.max_index != 0) {
      ASSERT_TRUE(m.empty()) << where << ": tables vanished but the model is not empty";
      m.max_index = 0;
      ++emptied;
    }
    // The other object sees the change only after reloading.
    Stack& watcher = via_other ? *primary_ : *other_;
    if (changed && testutil::ReadFileOr(tmp_.path() + "/tables.list", "<none>") != list_before) {
      ASSERT_FALSE(watcher.IsUpToDate()) << where;
    }
    ASSERT_TRUE(primary_->ReloadIfChanged().ok());
    ASSERT_TRUE(other_->ReloadIfChanged().ok());
    ASSERT_TRUE(primary_->IsUpToDate());
    ASSERT_TRUE(other_->IsUpToDate());
    ASSERT_NO_FATAL_FAILURE(Check(*primary_, m, where));
    ASSERT_EQ(other_->names(), primary_->names()) << where;
    ASSERT_EQ(testutil::DumpSnapshot(*other_->snapshot(), true),
              testutil::DumpSnapshot(*primary_->snapshot(), true))
        << where;
  }
  // Make sure the sequence exercised what it should.
  EXPECT_GT(commits, 150u);
  EXPECT_GT(conflicts, 10u);
  EXPECT_GT(invalid, 0u);
  EXPECT_GT(noops, 0u);
  EXPECT_GT(compactions, 30u);
  RecordProperty("commits", int(commits));
  std::printf(
      "commits=%zu conflicts=%zu invalid=%zu noops=%zu compactions=%zu emptied=%zu tables=%zu\n",
      commits, conflicts, invalid, noops, compactions, emptied, primary_->names().size());
}

std::vector<ModelParam> Params() {
  std::vector<ModelParam> out;
  for (HashId h : {HashId::kSha1, HashId::kSha256}) {
    for (bool ac : {false, true}) {
      for (uint64_t seed : {1, 2, 3}) out.push_back(ModelParam{h, ac, seed});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Seeds, StackModelTest, ::testing::ValuesIn(Params()),
                         [](const auto& info) {
                           return std::string(info.param.hash == HashId::kSha256 ? "Sha256"
                                                                                 : "Sha1") +
                                  (info.param.auto_compact ? "AutoCompact" : "NoAutoCompact") +
                                  "Seed" + std::to_string(info.param.seed);
                         });

}  // namespace
}  // namespace reftab
