// Crash consistency (LESSONS.md §2.5): a child process runs transactions and compactions
// (full, range and automatic) in a loop and is SIGKILLed at random (seeded) points, again and
// again. The child acknowledges each transaction on a pipe after Commit() returned OK. After
// every kill:
//   * the stack opens;
//   * every acknowledged transaction is present and none is half-applied: each creates a
//     pair of refs (a<k>, b<k>) or deletes one, so a and b exist together or not at all;
//   * deleted pairs never come back, surviving pairs never vanish;
//   * after removing the stale *.lock and temporary files the killed writer left behind and
//     running Clean(), the next child writes again, and Clean() left only tables that are
//     listed or newer than the stack.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "store/stack.h"
#include "store/table_reader.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

constexpr int kKills = 100;
constexpr int kPrepopulated = 300;

struct Message {
  uint32_t kind;  // see below
  uint32_t pad;
  uint64_t k;
};
enum : uint32_t { kCreated = 1, kIntendDelete = 2, kDeleted = 3, kCompacted = 4 };

std::string PairName(char side, uint64_t k) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "refs/pairs/%c%06llu", side, static_cast<unsigned long long>(k));
  return buf;
}

uint64_t DecodeId(const ObjectId& id) {
  uint64_t n = 0;
  for (size_t i = 12; i < 20; ++i) n = (n << 8) | id[i];
  return n;
}

StackOptions CrashOptions(bool sync) {
  StackOptions o;
  o.hash_id = HashId::kSha1;
  o.durability = sync ? Durability::kGit : Durability::kNone;
  o.lock_timeout_ms = 1000;
  o.auto_compact = true;
  o.write_options.block_size = 1024;
  return o;
}

void Send(int fd, uint32_t kind, uint64_t k) {
  Message m{kind, 0, k};
  if (write(fd, &m, sizeof m) != ssize_t(sizeof m)) _exit(49);
}

Status CreatePair(Stack& s, uint64_t k) {
  Transaction tx = s.NewTransaction();
  tx.Update(PairName('a', k), storetest::IdValue(k), RefValue::Absent());
  tx.Update(PairName('b', k), storetest::IdValue(k), RefValue::Absent());
  tx.Update("refs/last", storetest::IdValue(k), std::nullopt,
            storetest::TestLog(1700000000 + k, "pair " + std::to_string(k)));
  return tx.Commit();
}

[[noreturn]] void ChildMain(const std::string& dir, uint64_t start, uint64_t seed, bool sync,
                            int fd) {
  std::mt19937_64 rng(seed);
  auto opened = Stack::Open(dir, CrashOptions(sync));
  if (!opened.ok()) {
    std::fprintf(stderr, "child: open: %s\n", opened.status().ToString().c_str());
    _exit(40);
  }
  Stack& s = **opened;
  for (uint64_t k = start;; ++k) {
    uint64_t r = rng() % 20;
    Status st;
    if (r < 11) {
      st = CreatePair(s, k);
      if (st.ok()) Send(fd, kCreated, k);
    } else if (r < 15) {
      // Delete a surviving pair, checking both values.
      MergedRefIterator it = s.snapshot()->NewRefIterator();
      it.set_suppress_deletions(true);
      if (!it.Seek(std::string("refs/pairs/a")).ok()) _exit(41);
      RefRecord rec;
      std::vector<uint64_t> candidates;
      while (candidates.size() < 64 && it.Next(&rec) &&
             testutil::StartsWith(rec.refname, "refs/pairs/a")) {
        candidates.push_back(DecodeId(rec.value));
      }
      if (candidates.empty()) continue;
      uint64_t j = candidates[rng() % candidates.size()];
      Send(fd, kIntendDelete, j);
      Transaction tx = s.NewTransaction();
      tx.Delete(PairName('a', j), storetest::IdValue(j));
      tx.Delete(PairName('b', j), storetest::IdValue(j));
      st = tx.Commit();
      if (st.ok()) Send(fd, kDeleted, j);
    } else if (r < 16) {
      // A transaction whose expectation fails must change nothing.
      Transaction tx = s.NewTransaction();
      tx.Update(PairName('a', k), storetest::IdValue(k), storetest::IdValue(k + 1));
      tx.Update(PairName('b', k), storetest::IdValue(k));
      st = tx.Commit();
      if (st.code() != Code::kConflict) {
        std::fprintf(stderr, "child: expected a conflict, got %s\n", st.ToString().c_str());
        _exit(42);
      }
      continue;
    } else if (r < 18) {
      st = s.CompactAll();
      if (st.ok()) Send(fd, kCompacted, 0);
    } else {
      if (!s.ReloadIfChanged().ok()) _exit(43);
      size_t n = s.names().size();
      if (n < 2) continue;
      size_t first = rng() % n, last = first + rng() % (n - first);
      st = s.CompactRange(first, last);
      if (st.ok()) Send(fd, kCompacted, 0);
    }
    if (!st.ok()) {
      std::fprintf(stderr, "child: %s\n", st.ToString().c_str());
      _exit(44);
    }
  }
}

bool ReadMessage(int fd, Message* m) {
  size_t got = 0;
  auto* p = reinterpret_cast<char*>(m);
  while (got < sizeof *m) {
    ssize_t n = read(fd, p + got, sizeof *m - got);
    if (n <= 0) return false;
    got += size_t(n);
  }
  return true;
}

TEST(CrashTest, KilledWritersNeverLoseAcknowledgedOrHalfApplyTransactions) {
  testutil::TempDir tmp("crash");
  const std::string dir = tmp.Subdir("stack");
  std::mt19937_64 rng(424242);

  std::set<uint64_t> must_exist, must_not_exist;
  {
    auto s = storetest::OpenOrDie(dir, CrashOptions(false));
    ASSERT_TRUE(s);
    Transaction tx = s->NewTransaction();
    for (uint64_t k = 0; k < kPrepopulated; ++k) {
      tx.Update(PairName('a', k), storetest::IdValue(k));
      tx.Update(PairName('b', k), storetest::IdValue(k));
      must_exist.insert(k);
    }
    tx.Update("refs/last", storetest::IdValue(kPrepopulated - 1));
    ASSERT_TRUE(tx.Commit().ok());
  }

  uint64_t next_k = kPrepopulated;
  uint64_t max_acked_create = kPrepopulated - 1;
  int runs = 0, kills = 0, died_early = 0;
  size_t acked_creates = 0, acked_deletes = 0, acked_compactions = 0;
  size_t left_list_lock = 0, left_table_locks = 0, left_temp = 0, left_unlisted = 0;
  for (int run = 0; run < kKills; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::fflush(nullptr);
    const bool sync = run % 2 == 1;
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      ChildMain(dir, next_k, 1000 + uint64_t(run), sync, fds[1]);
    }
    close(fds[1]);
    ++runs;
    // Let it acknowledge a few transactions, then kill it somewhere in what follows.
    std::optional<uint64_t> in_doubt;
    auto handle = [&](const Message& m) {
      switch (m.kind) {
        case kCreated:
          must_exist.insert(m.k);
          max_acked_create = std::max(max_acked_create, m.k);
          ++acked_creates;
          break;
        case kIntendDelete: in_doubt = m.k; break;
        case kDeleted:
          must_exist.erase(m.k);
          must_not_exist.insert(m.k);
          in_doubt.reset();
          ++acked_deletes;
          break;
        case kCompacted: ++acked_compactions; break;
        default: ADD_FAILURE() << "bad message " << m.kind;
      }
    };
    const uint64_t wait_for = rng() % 6;
    bool alive = true;
    Message m;
    for (uint64_t i = 0; i < wait_for && alive; ++i) {
      alive = ReadMessage(fds[0], &m);
      if (alive) handle(m);
    }
    usleep(useconds_t(rng() % 4000));
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
      ++kills;
    } else {
      ++died_early;
      ADD_FAILURE() << "the child exited by itself with status " << status;
    }
    while (ReadMessage(fds[0], &m)) handle(m);
    close(fds[0]);

    // The stack opens and holds exactly consistent pairs.
    auto opened = Stack::Open(dir, CrashOptions(false));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    auto snap = (*opened)->snapshot();
    std::set<uint64_t> a_side, b_side;
    uint64_t last = 0;
    bool have_last = false;
    {
      MergedRefIterator it = snap->NewRefIterator();
      it.set_suppress_deletions(true);
      ASSERT_TRUE(it.SeekToFirst().ok());
      RefRecord r;
      while (it.Next(&r)) {
        if (r.refname == "refs/last") {
          have_last = true;
          last = DecodeId(r.value);
          continue;
        }
        ASSERT_TRUE(testutil::StartsWith(r.refname, "refs/pairs/")) << r.refname;
        uint64_t k = std::stoull(r.refname.substr(12));
        ASSERT_EQ(DecodeId(r.value), k) << r.refname;
        (r.refname[11] == 'a' ? a_side : b_side).insert(k);
      }
      ASSERT_TRUE(it.status().ok());
    }
    ASSERT_EQ(a_side, b_side) << "a transaction was half-applied";
    ASSERT_TRUE(have_last);
    EXPECT_GE(last, max_acked_create);
    for (uint64_t k : must_exist) {
      if (in_doubt && *in_doubt == k) continue;
      ASSERT_TRUE(a_side.count(k)) << "acknowledged pair " << k << " is missing";
    }
    for (uint64_t k : must_not_exist)
      ASSERT_FALSE(a_side.count(k)) << "deleted pair " << k << " is back";
    // The in-flight transaction either happened or not; from now on the stack is the truth.
    if (in_doubt && !a_side.count(*in_doubt)) must_not_exist.insert(*in_doubt);
    must_exist = a_side;
    for (uint64_t k : a_side) max_acked_create = std::max(max_acked_create, k);
    next_k = std::max(last, max_acked_create) + 1;
    const auto& tables = snap->tables();
    for (size_t i = 1; i < tables.size(); ++i) {
      ASSERT_EQ(tables[i]->min_update_index(), tables[i - 1]->max_update_index() + 1);
    }

    // What the killed writer left behind; stale locks and temporary files are removed by
    // hand (there is no stale-lock detection, as in git), stray tables by Clean().
    std::vector<std::string> names = (*opened)->names();
    for (const std::string& f : testutil::ListDirSorted(dir)) {
      const std::string path = dir + "/" + f;
      if (f == "tables.list.lock") {
        ++left_list_lock;
        std::remove(path.c_str());
      } else if (testutil::EndsWith(f, ".lock")) {
        ++left_table_locks;
        std::remove(path.c_str());
      } else if (f.find(".temp.") != std::string::npos) {
        ++left_temp;
        std::remove(path.c_str());
      } else if (f != "tables.list" && std::find(names.begin(), names.end(), f) == names.end()) {
        ++left_unlisted;
      }
    }
    ASSERT_TRUE((*opened)->Clean().ok());
    const uint64_t max = snap->max_update_index();
    for (const std::string& f : testutil::ListDirSorted(dir)) {
      if (f == "tables.list" || std::find(names.begin(), names.end(), f) != names.end()) continue;
      ASSERT_TRUE(testutil::EndsWith(f, ".ref")) << "unexpected file " << f;
      auto file = PosixFileSystem()->OpenRead(dir + "/" + f);
      ASSERT_TRUE(file.ok());
      auto t = TableReader::Open(std::move(*file));
      ASSERT_TRUE(t.ok());
      EXPECT_GT((*t)->max_update_index(), max) << f << " should have been cleaned";
    }
  }
  // Writes work again after the last crash, and a full compaction plus Clean() tidy up.
  auto s = storetest::OpenOrDie(dir, CrashOptions(false));
  ASSERT_TRUE(s);
  ASSERT_TRUE(CreatePair(*s, next_k).ok());
  ASSERT_TRUE(s->CompactAll().ok());
  ASSERT_TRUE(s->Clean().ok());
  testutil::StackState final_state = testutil::CaptureStack(dir);
  EXPECT_TRUE(testutil::StrayFiles(final_state).empty());
  EXPECT_EQ(final_state.names.size(), 1u);

  std::printf(
      "crash: %d runs, %d SIGKILLs (%d early exits); acknowledged %zu pair creations, "
      "%zu pair deletions, %zu compactions; kills left tables.list.lock %zu times, table "
      "locks %zu, temp files %zu, unlisted tables %zu; final stack %zu live pairs\n",
      runs, kills, died_early, acked_creates, acked_deletes, acked_compactions, left_list_lock,
      left_table_locks, left_temp, left_unlisted, must_exist.size());
  EXPECT_EQ(kills, kKills);
  EXPECT_GT(acked_creates, size_t(kKills / 2));
}

}  // namespace
}  // namespace reftab
