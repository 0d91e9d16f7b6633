// Fault injection through the FileSystem seam (STYLE.md §3.3 rule 8, §3.9 item 5): for a
// transaction, a transaction followed by auto-compaction, a full compaction, a range
// compaction and a table added by Stack::AddTable (alone and followed by auto-compaction), every
// operation the library makes (create/lock, append, sync, close, rename, remove, directory sync,
// and the reads) is failed in turn, for every N. Afterwards:
//   * if tables.list was not replaced, the directory is exactly as before (same list, same
//     files, same merged contents) and the call reported the failure;
//   * if it was replaced (a failure after the list's rename, e.g. the directory sync of
//     Durability::kFull, or one the library recovered from), the new state is fully in place
//     and consistent, with no stray files;
//   * the only file that may be left over is the one whose removal was made to fail, and
//     after removing it (or Clean() for a table) the same Stack object writes again.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/stack.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/fixtures.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using storetest::Del;
using storetest::IdValue;
using storetest::OpenOrDie;
using storetest::Put;
using storetest::TestLog;
using testutil::CaptureStack;
using testutil::FaultInjectingFileSystem;
using testutil::FsOp;
using testutil::FsOpName;
using testutil::StackState;
using testutil::TempDir;

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

struct Scenario {
  const char* name;
  Durability durability;
  bool auto_compact;
  std::function<void(Stack&)> setup;        // builds the starting stack (plain file system)
  std::function<Status(Stack&)> operation;  // what gets the faults
  std::optional<uint32_t> file_mode = std::nullopt;  // StackOptions::file_mode (chmods)
};

void FourTables(Stack& s) {
  ASSERT_TRUE(Put(s, "refs/heads/main", 1).ok());
  ASSERT_TRUE(Put(s, "refs/heads/topic", 2).ok());
  {
    Transaction tx = s.NewTransaction();
    tx.Update("HEAD", RefValue::Symref("refs/heads/main"), std::nullopt, TestLog(3, "init"));
    tx.Update("refs/tags/v1", RefValue::Peeled(testutil::TestId(4, 20), testutil::TestId(1, 20)));
    ASSERT_TRUE(tx.Commit().ok());
  }
  ASSERT_TRUE(Del(s, "refs/heads/topic").ok());
}

// Equal-sized tables, so that auto-compaction after one more commit merges them.
void EqualTables(Stack& s) {
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(Put(s, "refs/heads/b00" + std::to_string(i), uint64_t(i)).ok());
}

Status BigTransaction(Stack& s) {
  Transaction tx = s.NewTransaction();
  tx.Update("refs/heads/main", IdValue(10), IdValue(1), TestLog(10, "move main"));
  tx.Update("refs/heads/new", IdValue(11), RefValue::Absent(), TestLog(11, "create new"));
  tx.Delete("refs/tags/v1");
  tx.Verify("refs/heads/topic", RefValue::Absent());
  for (int i = 0; i < 40; ++i) {  // a few blocks' worth
    tx.Update("refs/heads/bulk/" + std::string(60, 'x') + std::to_string(1000 + i),
              IdValue(100 + uint64_t(i)));
  }
  return tx.Commit();
}

// Enough reflog entries for many log blocks: the writer compresses every other one on a
// second thread (store/background_deflater.h), so failures meet blocks of both threads.
Status LoggedTransaction(Stack& s) {
  Transaction tx = s.NewTransaction();
  for (int i = 0; i < 60; ++i) {
    const std::string name = "refs/heads/logged/" + std::to_string(1000 + i);
    tx.Update(name, IdValue(200 + uint64_t(i)), RefValue::Absent(),
              TestLog(200 + uint64_t(i), "create " + name + " with a message of some length"));
  }
  return tx.Commit();
}

// A table written straight by its records' producer (Stack::AddTable, the key/value
// store's flush): symrefs and tombstones in name order, a few blocks' worth.
Status AddedTable(Stack& s) {
  return s.AddTable(200, [](TableWriter& w, uint64_t update_index) -> Status {
    RefRecord r;
    r.update_index = update_index;
    for (int i = 0; i < 40; ++i) {
      r.refname = "refs/kv/" + std::string(60, 'x') + std::to_string(1000 + i);
      r.value_type = i % 5 == 4 ? RefValueType::kDeletion : RefValueType::kSymref;
      r.target = i % 5 == 4 ? std::string() : std::string(100 + size_t(i), char('a' + i % 26));
      REFTAB_RETURN_IF_ERROR(w.AddRef(r));
    }
    return Status::Ok();
  });
}

const std::vector<Scenario>& Scenarios() {
  static const std::vector<Scenario> kScenarios = {
      {"TransactionFull", Durability::kFull, false, FourTables, BigTransaction},
      {"TransactionGit", Durability::kGit, false, FourTables, BigTransaction},
      {"TransactionNone", Durability::kNone, false, FourTables, BigTransaction},
      {"TransactionWithLogBlocks", Durability::kGit, false, FourTables, LoggedTransaction},
      {"TransactionThenAutoCompaction", Durability::kFull, true, EqualTables,
       [](Stack& s) { return Put(s, "refs/heads/b004", 4); }},
      {"CompactAll", Durability::kFull, false, FourTables, [](Stack& s) { return s.CompactAll(); }},
      {"CompactRange", Durability::kFull, false, FourTables,
       [](Stack& s) { return s.CompactRange(1, 2); }},
      {"TransactionThenAutoCompactionWithMode", Durability::kGit, true, EqualTables,
       [](Stack& s) { return Put(s, "refs/heads/b004", 4); }, 0640},
      {"AddTableFull", Durability::kFull, false, FourTables, AddedTable},
      {"AddTableGit", Durability::kGit, false, FourTables, AddedTable},
      {"AddTableThenAutoCompaction", Durability::kFull, true, EqualTables, AddedTable},
  };
  return kScenarios;
}

class FaultInjectionTest : public ::testing::TestWithParam<size_t> {
 protected:
  const Scenario& scenario() const { return Scenarios()[GetParam()]; }

  StackOptions Options(FileSystem* fs) const {
    StackOptions o = storetest::TestOptions();
    o.fs = fs;
    o.durability = scenario().durability;
    o.auto_compact = scenario().auto_compact;
    o.lock_timeout_ms = 20;  // a stale lock (failed removal) costs a little time only
    o.file_mode = scenario().file_mode;
    o.write_options.block_size = 512;
    return o;
  }

  void Restore() {
    testutil::ClearDir(work_);
    testutil::CopyDirContents(golden_, work_);
  }

  TempDir tmp_{"fault"};
  std::string golden_, work_;
};

std::string Describe(const std::vector<testutil::FsEvent>& events) {
  std::string out;
  for (const auto& e : events) {
    out += std::string(e.injected ? "  * " : "    ") + FsOpName(e.op) + " " + e.path +
           (e.to.empty() ? "" : " -> " + e.to) + "\n";
  }
  return out;
}

std::string Base(const std::string& path) { return path.substr(path.rfind('/') + 1); }

TEST_P(FaultInjectionTest, EveryFailureLeavesTheStackAsBeforeOrFullyUpdated) {
  const Scenario& sc = scenario();
  golden_ = tmp_.Subdir("golden");
  work_ = tmp_.Subdir("work");
  {
    StackOptions o = Options(nullptr);
    o.auto_compact = false;
    auto s = OpenOrDie(golden_, o);
    ASSERT_NO_FATAL_FAILURE(sc.setup(*s));
  }
  const StackState before = CaptureStack(golden_);
  ASSERT_TRUE(before.open_ok);

  // The fault-free run: what a successful operation leaves, and how many operations of
  // each kind it makes.
  Restore();
  FaultInjectingFileSystem fs;
  fs.set_perform_syncs(false);
  std::array<uint64_t, testutil::kNumFsOps> counts{};
  StackState want;
  {
    auto s = OpenOrDie(work_, Options(&fs));
    ASSERT_TRUE(s);
    fs.Reset();
    Status st = sc.operation(*s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    for (FsOp op : testutil::kAllFsOps) counts[size_t(op)] = fs.count(op);
    want = CaptureStack(work_);
    ASSERT_TRUE(testutil::StrayFiles(want).empty());
    ASSERT_NE(want.list, before.list);
  }
  // With auto-compaction, a failure in the compaction may leave the transaction alone.
  Ranges tx_only = before.ranges;
  const uint64_t next = before.ranges.empty() ? 1 : before.ranges.back().second + 1;
  tx_only.emplace_back(next, next);

  size_t runs = 0, unchanged = 0, replaced = 0, residues = 0;
  for (FsOp op : testutil::kAllFsOps) {
    for (uint64_t n = 1; n <= counts[size_t(op)]; ++n) {
      const std::string what =
          std::string(sc.name) + ": failing " + FsOpName(op) + " #" + std::to_string(n);
      SCOPED_TRACE(what);
      Restore();
      fs.set_hook(nullptr);
      auto s = OpenOrDie(work_, Options(&fs));
      ASSERT_TRUE(s);
      fs.Reset();
      fs.FailNth(op, n);
      Status st = sc.operation(*s);
      const bool fired = fs.fault_fired();
      const bool after_rename = fs.ListReplacedBeforeFault();
      const auto events = fs.events();
      fs.FailNth(op, 0);
      ASSERT_TRUE(fired) << "the fault-free run made " << counts[size_t(op)]
                         << " such operations:\n"
                         << Describe(events);
      ++runs;

      StackState now = CaptureStack(work_);
      ASSERT_TRUE(now.open_ok) << now.open_error << "\n" << Describe(events);
      // The file whose removal failed may remain; nothing else.
      std::string residue;
      if (op == FsOp::kRemove) residue = Base(events[size_t(fs.fault_index())].path);
      std::vector<std::string> files = now.files;
      if (!residue.empty() && std::find(files.begin(), files.end(), residue) != files.end()) {
        files = storetest::Without(files, residue);
        ++residues;
      }

      if (now.list == before.list) {
        ++unchanged;
        EXPECT_FALSE(after_rename);
        EXPECT_EQ(files, before.files) << Describe(events);
        EXPECT_EQ(now.merged, before.merged);
        EXPECT_FALSE(st.ok()) << "reported success but changed nothing\n" << Describe(events);
      } else {
        ++replaced;
        EXPECT_EQ(now.live, want.live) << Describe(events);
        if (sc.auto_compact) {
          EXPECT_TRUE(now.ranges == want.ranges || now.ranges == tx_only) << Describe(events);
        } else {
          EXPECT_EQ(now.merged, want.merged);
          EXPECT_EQ(now.ranges, want.ranges);
        }
        StackState clean = now;
        clean.files = files;
        EXPECT_TRUE(testutil::StrayFiles(clean).empty())
            << "stray: " << testutil::StrayFiles(clean).size() << "\n"
            << Describe(events);
        if (!after_rename) {
          EXPECT_TRUE(st.ok()) << "a failure before the list's rename must not change the stack: "
                               << st.ToString() << "\n"
                               << Describe(events);
        }
        // A failure inside the auto-compaction never fails the commit.
        if (sc.auto_compact && after_rename) {
          bool in_compaction = false;
          bool seen_rename = false;
          for (long i = 0; i < fs.fault_index(); ++i) {
            const auto& e = events[size_t(i)];
            if (e.op == FsOp::kRename && testutil::EndsWith(e.to, "/tables.list"))
              seen_rename = true;
            if (seen_rename && e.op == FsOp::kCreate) in_compaction = true;
          }
          if (in_compaction) {
            EXPECT_TRUE(st.ok()) << st.ToString() << "\n" << Describe(events);
          }
        }
      }
      // Whatever happened, the same object writes again once the residue is gone.
      if (!residue.empty() && testutil::EndsWith(residue, ".ref")) {
        ASSERT_TRUE(s->Clean().ok());  // an unlisted old table: Clean() removes it
        EXPECT_FALSE(testutil::FileExists(work_ + "/" + residue)) << residue;
      } else if (!residue.empty()) {
        std::remove((work_ + "/" + residue).c_str());  // a stale lock: removed by hand, as in git
      }
      ASSERT_TRUE(s->ReloadIfChanged().ok());
      Status again = Put(*s, "refs/heads/after-fault", 999);
      EXPECT_TRUE(again.ok()) << again.ToString();
      StackState final_state = CaptureStack(work_);
      EXPECT_TRUE(testutil::StrayFiles(final_state).empty()) << Describe(events);
      EXPECT_NE(final_state.live.find("refs/heads/after-fault"), std::string::npos);
    }
  }
  std::string per_kind;
  for (FsOp op : testutil::kAllFsOps) {
    if (counts[size_t(op)] != 0)
      per_kind += std::string(" ") + FsOpName(op) + "=" + std::to_string(counts[size_t(op)]);
  }
  std::printf(
      "%s: %zu fault runs (%s): %zu left the stack unchanged, %zu replaced it, %zu left the "
      "file whose removal failed\n",
      sc.name, runs, per_kind.c_str() + 1, unchanged, replaced, residues);
  EXPECT_GT(runs, 10u);
  EXPECT_GT(unchanged, 5u);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, FaultInjectionTest,
                         ::testing::Range<size_t>(0, Scenarios().size()), [](const auto& info) {
                           return std::string(Scenarios()[info.param].name);
                         });

}  // namespace
}  // namespace reftab
