// The key/value store across processes:
//   * crashes: a child writes batches or single puts, unsynced (acknowledged on a pipe once
//     Write returned OK), flushes and compacts, and is SIGKILLed at random (seeded) points;
//     after every kill the store opens (replaying the log), every acknowledged write is there
//     and no batch is there in part;
//   * the writer lock: a second writing process fails at once, naming kv.lock and the
//     holder's pid, while read-only processes read the flushed writes;
//   * concurrency: writer processes on disjoint and on shared keys, taking turns at the lock,
//     and a read-only reader that checks every snapshot it takes is the state after some
//     whole batch;
//   * git's reader: KV tables in a git repository's reftable stack, read back by `git
//     symbolic-ref --no-recurse` and listed by `git refs verify` (skipped without a
//     reftable-capable git).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "store/kv/kv_store.h"
#include "store/stack.h"
#include "tests/testutil/process.h"
#include "tests/testutil/real_git.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::Cat;

KvOptions ProcessOptions() {
  KvOptions o;
  o.durability = Durability::kNone;  // a killed process loses nothing the kernel has
  o.block_size = 1024;
  o.memtable_size = 64 * 1024;  // flushes (and log replacements) among the writes
  return o;
}

// Batch b puts keys p<b>/0 .. p<b>/<n-1>; every third batch also deletes all keys of batch
// b - 3 and puts the marker d<b-3>, which is never deleted.
size_t KeysOf(uint64_t b) { return 1 + b % 7; }
std::string KeyOf(uint64_t b, size_t j) {
  return Cat({"p", std::to_string(b), "/", std::to_string(j)});
}
std::string MarkerOf(uint64_t b) { return Cat({"d", std::to_string(b)}); }
std::string ValueOf(uint64_t b, size_t j) {
  // Mostly small; now and then 300 KiB, which needs a bigger block than the configured one.
  std::string v(b % 11 == 0 && j == 0 ? 300 * 1024 : 20 + j, '\0');
  for (size_t i = 0; i < v.size(); ++i) v[i] = char((b * 31 + j * 7 + i) & 0xff);
  return v;
}

KvWriteBatch BatchOf(uint64_t b, uint64_t first_of_run) {
  KvWriteBatch batch;
  for (size_t j = 0; j < KeysOf(b); ++j) batch.Put(KeyOf(b, j), ValueOf(b, j));
  if (b % 3 == 0 && b >= first_of_run + 3) {
    for (size_t j = 0; j < KeysOf(b - 3); ++j) batch.Delete(KeyOf(b - 3, j));
    batch.Put(MarkerOf(b - 3), "");
  }
  return batch;
}

[[noreturn]] void CrashChild(const std::string& dir, uint64_t first, uint32_t seed, int fd) {
  std::mt19937 rng(seed);
  auto kv = KvStore::Open(dir, ProcessOptions());
  if (!kv.ok()) _exit(40);
  for (uint64_t b = first;; ++b) {
    if (!(*kv)->Write(BatchOf(b, first)).ok()) _exit(41);
    if (write(fd, &b, sizeof b) != ssize_t(sizeof b)) _exit(42);
    if (rng() % 25 == 0 && !(*kv)->CompactAll().ok()) _exit(43);
  }
}

// What a batch's keys look like now: 0 none, 1 all, -1 some (a partial batch).
int BatchState(KvSnapshot& snap, uint64_t b) {
  size_t present = 0;
  for (size_t j = 0; j < KeysOf(b); ++j) {
    std::string v;
    bool found = false;
    EXPECT_TRUE(snap.Get(KeyOf(b, j), &v, &found).ok());
    if (found) {
      EXPECT_EQ(v, ValueOf(b, j)) << KeyOf(b, j);
      ++present;
    }
  }
  return present == 0 ? 0 : present == KeysOf(b) ? 1 : -1;
}

// The lock files of tables.list and of tables a killed writer held (git's kind, which
// stay behind); not kv.lock, whose advisory lock went with the process.
void RemoveLocks(const std::string& dir) {
  for (const std::string& name : testutil::ListDirSorted(dir)) {
    if (testutil::EndsWith(name, ".lock") && name != "kv.lock") {
      std::remove((dir + "/" + name).c_str());
    }
  }
}

TEST(KvProcessTest, KilledWritersLoseNoAcknowledgedBatchAndLeaveNoPartialOne) {
  testutil::TempDir tmp("kvcrash");
  const std::string dir = tmp.path();
  std::mt19937 rng(777);
  std::set<uint64_t> acked;
  std::vector<std::pair<uint64_t, uint64_t>> runs;  // [first, last started] of each child
  uint64_t next = 0;
  for (int run = 0; run < 40; ++run) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::fflush(nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      CrashChild(dir, next, uint32_t(run), fds[1]);
    }
    close(fds[1]);
    const uint32_t wait_acks = rng() % 20;
    uint64_t b = 0;
    for (uint32_t i = 0; i < wait_acks && read(fds[0], &b, sizeof b) == ssize_t(sizeof b); ++i) {
      acked.insert(b);
    }
    usleep(rng() % 3000);
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited early with " << WEXITSTATUS(status);
    while (read(fds[0], &b, sizeof b) == ssize_t(sizeof b)) acked.insert(b);
    close(fds[0]);
    // The child may have committed up to 1 batch past its last acknowledgement.
    uint64_t last = acked.empty() || *acked.rbegin() < next ? next : *acked.rbegin() + 1;
    runs.emplace_back(next, last);
    next = last + 100;  // a fresh range, so that runs never touch each other's keys

    RemoveLocks(dir);  // the killed writer's tables.list.lock, if it held it
    auto kv = KvStore::Open(dir, ProcessOptions());
    ASSERT_TRUE(kv.ok()) << kv.status().ToString();
    ASSERT_TRUE((*kv)->stack()->Clean().ok());
    auto snap = (*kv)->GetSnapshot();
    ASSERT_TRUE(snap.ok());
    for (const auto& [first, last_b] : runs) {
      for (uint64_t k = first; k <= last_b; ++k) {
        SCOPED_TRACE(Cat({"run ", std::to_string(run), " batch ", std::to_string(k)}));
        int state = BatchState(*snap, k);
        ASSERT_NE(state, -1) << "partial batch";
        std::string v;
        bool deleted = false;
        ASSERT_TRUE(snap->Get(MarkerOf(k), &v, &deleted).ok());
        if (deleted) {
          ASSERT_EQ(state, 0) << "deleted with its marker, yet present";
        } else if (acked.count(k)) {
          ASSERT_EQ(state, 1) << "acknowledged, yet missing";
        }
      }
    }
  }
  EXPECT_GT(acked.size(), 100u);
}

// A child puts key s<i> (one put per write, unsynced) for i = 0, 1, ... and reports each i
// once Put returned; SIGKILLed at random points. Every acknowledged key is there after the
// store is reopened.
[[noreturn]] void SinglePutChild(const std::string& dir, uint64_t first, int fd) {
  auto kv = KvStore::Open(dir, ProcessOptions());
  if (!kv.ok()) _exit(40);
  for (uint64_t i = first;; ++i) {
    if (!(*kv)->Put(Cat({"s", std::to_string(i)}), Cat({"value ", std::to_string(i)})).ok()) {
      _exit(41);
    }
    if (write(fd, &i, sizeof i) != ssize_t(sizeof i)) _exit(42);
  }
}

TEST(KvProcessTest, KilledSinglePutWritersLoseNoAcknowledgedPut) {
  testutil::TempDir tmp("kvputs");
  const std::string dir = tmp.path();
  std::mt19937 rng(4242);
  std::vector<uint64_t> acked;
  uint64_t next = 0;
  for (int run = 0; run < 12; ++run) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::fflush(nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      SinglePutChild(dir, next, fds[1]);
    }
    close(fds[1]);
    const uint32_t wait_acks = 200 + rng() % 3000;
    uint64_t i = 0;
    for (uint32_t n = 0; n < wait_acks && read(fds[0], &i, sizeof i) == ssize_t(sizeof i); ++n) {
      acked.push_back(i);
    }
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited early with " << WEXITSTATUS(status);
    while (read(fds[0], &i, sizeof i) == ssize_t(sizeof i)) acked.push_back(i);
    close(fds[0]);
    next = acked.back() + 2;  // the next child's keys are new ones

    RemoveLocks(dir);  // tables.list.lock, if the child was killed during a flush
    auto kv = KvStore::Open(dir, ProcessOptions());
    ASSERT_TRUE(kv.ok()) << kv.status().ToString();
    std::string v;
    bool found = false;
    for (uint64_t k : acked) {
      ASSERT_TRUE((*kv)->Get(Cat({"s", std::to_string(k)}), &v, &found).ok());
      ASSERT_TRUE(found) << "run " << run << ": acknowledged s" << k << " is missing";
      ASSERT_EQ(v, Cat({"value ", std::to_string(k)}));
    }
  }
  EXPECT_GT(acked.size(), 2000u);
}

TEST(KvProcessTest, ASecondWriterProcessFailsAtOnceWhileReadersReadFlushedWrites) {
  testutil::TempDir tmp("kvlock");
  const std::string dir = tmp.path();
  auto kv = KvStore::Open(dir, ProcessOptions());
  ASSERT_TRUE(kv.ok());
  ASSERT_TRUE((*kv)->Put("flushed", "1").ok());
  ASSERT_TRUE((*kv)->Flush().ok());
  ASSERT_TRUE((*kv)->Put("unflushed", "2").ok());
  const std::string holder = std::to_string(getpid());
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto second = KvStore::Open(dir, ProcessOptions());
    if (second.ok()) _exit(10);
    const std::string& m = second.status().message();
    if (second.status().code() != Code::kLockHeld) _exit(11);
    if (m.find(dir + "/kv.lock") == std::string::npos) _exit(12);
    if (m.find("process " + holder) == std::string::npos) _exit(13);
    KvOptions ro = ProcessOptions();
    ro.read_only = true;
    auto reader = KvStore::Open(dir, ro);
    if (!reader.ok()) _exit(14);
    std::string v;
    bool found = false;
    if (!(*reader)->Get("flushed", &v, &found).ok() || !found || v != "1") _exit(15);
    if (!(*reader)->Get("unflushed", &v, &found).ok() || found) _exit(16);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

// ------------------------------------------------------------------ concurrency

constexpr int kWriters = 3;
constexpr int kBatchesPerWriter = 60;
constexpr int kBatchesPerTurn = 10;
constexpr int kSharedKeys = 8;

std::string SharedKey(int k) { return Cat({"shared/", std::to_string(k)}); }

// Opens the store for writing, waiting while other writers hold it (the lock fails at once;
// the waiting is this test's).
std::unique_ptr<KvStore> OpenWhenFree(const std::string& dir) {
  for (;;) {
    auto kv = KvStore::Open(dir, ProcessOptions());
    if (kv.ok()) return std::move(*kv);
    if (kv.status().code() != Code::kLockHeld) {
      std::fprintf(stderr, "open: %s\n", kv.status().ToString().c_str());
      _exit(40);
    }
    usleep(200);
  }
}

// Writer w: batch i puts w<w>/<i> (its own keys) and sets every shared key to "<w>:<i>",
// kBatchesPerTurn batches per turn at the lock, flushed at the end of the turn.
[[noreturn]] void WriterChild(const std::string& dir, int w) {
  for (int turn = 0; turn < kBatchesPerWriter / kBatchesPerTurn; ++turn) {
    std::unique_ptr<KvStore> kv = OpenWhenFree(dir);
    for (int j = 0; j < kBatchesPerTurn; ++j) {
      const int i = turn * kBatchesPerTurn + j;
      KvWriteBatch b;
      const std::string tag = Cat({std::to_string(w), ":", std::to_string(i)});
      b.Put(Cat({"w", std::to_string(w), "/", std::to_string(i)}), tag);
      for (int k = 0; k < kSharedKeys; ++k) b.Put(SharedKey(k), tag);
      Status s = kv->Write(b);
      if (!s.ok()) {
        std::fprintf(stderr, "writer %d: %s\n", w, s.ToString().c_str());
        _exit(41);
      }
    }
    if (!kv->Flush().ok()) _exit(42);
  }
  _exit(0);
}

// Takes snapshots until the writers are done: in each, all shared keys hold one value.
[[noreturn]] void ReaderChild(const std::string& dir) {
  KvOptions ro = ProcessOptions();
  ro.read_only = true;
  auto kv = KvStore::Open(dir, ro);
  if (!kv.ok()) _exit(50);
  for (int round = 0; round < 300; ++round) {
    auto snap = (*kv)->GetSnapshot();
    if (!snap.ok()) _exit(51);
    KvIteratorOptions o;
    o.prefix = "shared/";
    KvIterator it = snap->NewIterator(o);
    if (!it.SeekToFirst().ok()) _exit(52);
    std::set<std::string> values;
    int n = 0;
    for (; it.Valid(); it.Next(), ++n) values.insert(std::string(it.value()));
    if (!it.status().ok()) _exit(53);
    if (values.size() > 1 || (n != 0 && n != kSharedKeys)) {
      std::fprintf(stderr, "reader: a snapshot mixes batches (%d keys)\n", n);
      _exit(54);
    }
  }
  _exit(0);
}

TEST(KvProcessTest, WritersTakingTurnsOnDisjointAndSharedKeysAndAReader) {
  testutil::TempDir tmp("kvconc");
  const std::string dir = tmp.path();
  std::vector<pid_t> pids;
  std::fflush(nullptr);
  for (int w = 0; w <= kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      if (w == kWriters) ReaderChild(dir);
      WriterChild(dir, w);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  auto kv = KvStore::Open(dir, ProcessOptions());
  ASSERT_TRUE(kv.ok());
  std::string v;
  bool found = false;
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kBatchesPerWriter; ++i) {
      ASSERT_TRUE(
          (*kv)->Get(Cat({"w", std::to_string(w), "/", std::to_string(i)}), &v, &found).ok());
      ASSERT_TRUE(found);
      EXPECT_EQ(v, Cat({std::to_string(w), ":", std::to_string(i)}));
    }
  }
  std::string last;
  for (int k = 0; k < kSharedKeys; ++k) {
    ASSERT_TRUE((*kv)->Get(SharedKey(k), &v, &found).ok());
    ASSERT_TRUE(found);
    if (k > 0) {
      EXPECT_EQ(v, last) << "the shared keys hold values of different batches";
    }
    last = v;
  }
  // The last batch of some writer wrote them last.
  EXPECT_NE(last.find(Cat({":", std::to_string(kBatchesPerWriter - 1)})), std::string::npos);
}

// ------------------------------------------------------------------ git's reader

TEST(KvProcessTest, GitReadsTheStoreInAGitRepository) {
  std::string why;
  std::optional<std::string> git = testing::FindReftableGit(&why);
  if (!git) REFTAB_SKIP_WITHOUT_GIT(why);
  testutil::TempDir tmp("kvgit");
  const std::string home = tmp.Subdir("home");
  const std::string repo = tmp.path() + "/repo";
  ASSERT_EQ(testutil::RunProgram(*git, {"init", "-q", "--ref-format=reftable", repo}, home), 0);
  // git reads values as symref targets, so this test keeps them printable; 1 MiB among them.
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < 50; ++i) {
    entries.emplace_back(Cat({"refs/kv/", std::to_string(i)}), Cat({"value ", std::to_string(i)}));
  }
  entries.emplace_back("refs/kv/big", std::string(1 << 20, 'x'));
  {
    auto kv = KvStore::Open(repo + "/.git/reftable", ProcessOptions());
    ASSERT_TRUE(kv.ok()) << kv.status().ToString();
    KvWriteBatch b;
    for (const auto& [k, v] : entries) b.Put(k, v);
    b.Put("refs/kv/deleted", "soon gone");
    ASSERT_TRUE((*kv)->Write(b).ok());
    ASSERT_TRUE((*kv)->Delete("refs/kv/deleted").ok());
    ASSERT_TRUE((*kv)->Flush().ok());  // git reads tables, not kv.log
  }
  const std::string git_dir = "--git-dir=" + repo + "/.git";
  int compared = 0, identical = 0;
  for (const auto& [k, v] : entries) {
    std::string out;
    int rc =
        testutil::RunProgram(*git, {git_dir, "symbolic-ref", "--no-recurse", k}, home, "", &out);
    ++compared;
    if (rc == 0 && out == v + "\n") ++identical;
  }
  EXPECT_EQ(identical, compared);
  // `git refs verify` walks the whole merged stack and names every entry (none is a valid
  // symref target), and not the deleted one.
  std::string out;
  testutil::RunProgram(*git, {git_dir, "refs", "verify"}, home, "", &out);
  for (const auto& [k, v] : entries) {
    if (k == "refs/kv/big") continue;
    EXPECT_NE(out.find(Cat({k, ": badReferentName: points to invalid refname '", v, "'"})),
              std::string::npos)
        << out;
  }
  EXPECT_EQ(out.find("refs/kv/deleted"), std::string::npos) << out;
  std::printf("compared %d, identical %d\n", compared, identical);
}

}  // namespace
}  // namespace reftab
