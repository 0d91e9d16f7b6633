// What killed writers leave behind, and what Clean() (and `reftab compact`, which runs it)
// does with it:
//   * a temporary table is removed once nobody holds its advisory lock and it is older
//     than Stack::kStaleTempTableAgeSeconds; a young one (maybe a git writer's, which holds
//     no lock) or one whose lock a live process holds is kept;
//   * the lock of a table the list no longer names is removed; the lock of a listed table is
//     kept (a compaction may be running), and a compaction that meets it says what the file
//     is and how to clear it.
// The leftovers come from compactions SIGKILLed at chosen points (through the seam's hook in
// a child process) or are planted.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "store/stack.h"
#include "store/temp_table.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/real_git.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using storetest::OpenOrDie;
using storetest::Put;
using storetest::TestOptions;
using testutil::EndsWith;
using testutil::FsOp;
using testutil::ListDirSorted;
using testutil::TempDir;

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Sets the file's modification time `seconds` into the past.
void Age(const std::string& path, int64_t seconds) {
  struct timespec times[2];
  times[0].tv_sec = time(nullptr) - seconds;
  times[0].tv_nsec = 0;
  times[1] = times[0];
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

constexpr int64_t kOld = Stack::kStaleTempTableAgeSeconds + 60;

std::vector<std::string> Matching(const std::string& dir, const std::string& part) {
  std::vector<std::string> out;
  for (const std::string& f : ListDirSorted(dir)) {
    if (f.find(part) != std::string::npos) out.push_back(f);
  }
  return out;
}

// Four tables, then a child process that runs CompactAll and is SIGKILLed just before the
// first operation `op` on a path ending in `suffix` (after `skip` such operations).
void KilledCompaction(const std::string& dir, FsOp op, const std::string& suffix, int skip = 0) {
  {
    auto w = OpenOrDie(dir, TestOptions());
    for (uint64_t i = 1; i <= 4; ++i)
      ASSERT_TRUE(Put(*w, "refs/heads/b" + std::to_string(i), i).ok());
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    testutil::FaultInjectingFileSystem fs;
    int seen = 0;
    fs.set_hook([&](FsOp o, const std::string& path) {
      if (o == op && EndsWith(path, suffix) && seen++ == skip) raise(SIGKILL);
    });
    StackOptions o = TestOptions();
    o.fs = &fs;
    auto s = Stack::Open(dir, o);
    if (s.ok()) (void)(*s)->CompactAll();
    _exit(0);  // not reached when the kill fired
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
}

TEST(LeftoversTest, CompactionKilledWhileMergingLeavesLocksThatSayWhatTheyAre) {
  TempDir tmp("leftovers");
  const std::string d = tmp.path();
  // Killed as it re-takes tables.list.lock: its merged table is written, under its
  // temporary name, and it holds the locks of all four tables.
  ASSERT_NO_FATAL_FAILURE(KilledCompaction(d, FsOp::kCreate, "/tables.list.lock", 1));
  std::vector<std::string> temps = Matching(d, ".temp.");
  std::vector<std::string> locks = Matching(d, ".ref.lock");
  ASSERT_EQ(temps.size(), 1u);
  ASSERT_EQ(locks.size(), 4u);

  auto s = OpenOrDie(d, TestOptions());
  const std::string live = storetest::LiveRefs(*s);
  Status st = s->CompactAll();
  EXPECT_EQ(st.code(), Code::kLockHeld);
  // What the file is, who may hold it, and how to clear it.
  EXPECT_NE(st.message().find(".ref.lock exists: another process is compacting this table"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("one was killed and left the lock behind"), std::string::npos);
  EXPECT_NE(st.message().find("remove " + d + "/" + locks.back()), std::string::npos)
      << st.message();

  // Clean keeps the locks of listed tables, and the temporary table while it is young.
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_EQ(Matching(d, ".ref.lock"), locks);
  EXPECT_EQ(Matching(d, ".temp."), temps);
  // Once it is old, nobody can still be writing it.
  Age(d + "/" + temps[0], kOld);
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_TRUE(Matching(d, ".temp.").empty());
  EXPECT_EQ(Matching(d, ".ref.lock"), locks);
  // The hint works: with the locks removed, compaction does.
  for (const std::string& l : locks) ASSERT_EQ(std::remove((d + "/" + l).c_str()), 0);
  ASSERT_TRUE(s->CompactAll().ok());
  EXPECT_EQ(storetest::LiveRefs(*s), live);
  EXPECT_TRUE(testutil::StrayFiles(testutil::CaptureStack(d)).empty());
}

TEST(LeftoversTest, CompactionKilledAfterItsListLeavesWhatCleanRemoves) {
  TempDir tmp("leftovers");
  const std::string d = tmp.path();
  // Killed as it deletes the first merged table: the new list is in place; the merged
  // tables and their locks are left.
  ASSERT_NO_FATAL_FAILURE(KilledCompaction(d, FsOp::kRemove, ".ref"));
  auto s = OpenOrDie(d, TestOptions());
  ASSERT_EQ(s->names().size(), 1u);
  const std::string live = storetest::LiveRefs(*s);
  EXPECT_EQ(Matching(d, ".ref.lock").size(), 4u);
  ASSERT_TRUE(s->Clean().ok());
  // The locks belonged to tables no list names: nobody can need them.
  EXPECT_TRUE(Matching(d, ".ref.lock").empty());
  EXPECT_TRUE(testutil::StrayFiles(testutil::CaptureStack(d)).empty());
  EXPECT_EQ(storetest::LiveRefs(*s), live);
  ASSERT_TRUE(Put(*s, "refs/heads/after", 5).ok());
  ASSERT_TRUE(s->CompactAll().ok());
}

// A temporary table in each situation Clean must tell apart.
TEST(LeftoversTest, CleanRemovesOnlyAbandonedTemporaryTables) {
  TempDir tmp("leftovers");
  const std::string d = tmp.path() + "/";
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  const std::string abandoned = "0x000000000002-0x000000000002-0badf00d.temp.a1b2c3";
  const std::string young = "0x000000000002-0x000000000002-0badf00d.temp.d4e5f6";
  const std::string locked = "0x000000000001-0x000000000002-12345678.temp.XyZ123";
  const std::string not_a_table = "notes.temp.txt";
  for (const std::string& f : {abandoned, young, locked, not_a_table}) {
    testutil::WriteFileOrDie(d + f, "partial table");
  }
  for (const std::string& f : {abandoned, locked, not_a_table}) Age(d + f, kOld);
  // A live writer elsewhere holds the lock of `locked` (flock: a different open file).
  auto held = PosixFileSystem()->TryLock(d + locked);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_FALSE(Exists(d + abandoned));
  EXPECT_TRUE(Exists(d + young)) << "may be a git writer's, which holds no lock";
  EXPECT_TRUE(Exists(d + locked)) << "its writer is alive";
  EXPECT_TRUE(Exists(d + not_a_table));
  held->reset();  // the writer is gone
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_FALSE(Exists(d + locked));
  EXPECT_TRUE(Exists(d + young));
}

// The lock is one another process holds, the way a writer does: a child holds it until told
// to stop.
TEST(LeftoversTest, CleanKeepsATemporaryTableWhoseOwnerProcessLives) {
  TempDir tmp("leftovers");
  auto s = OpenOrDie(tmp.path(), TestOptions());
  const std::string path = tmp.path() + "/0x000000000001-0x000000000001-00c0ffee.temp.abcdef";
  testutil::WriteFileOrDie(path, "being written");
  Age(path, kOld);
  int go[2], ready[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(ready), 0);
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int fd = open(path.c_str(), O_RDONLY);
    char c = 'x';
    if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(ready[1], &c, 1) != 1) _exit(1);
    if (read(go[0], &c, 1) < 0) _exit(2);
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_TRUE(Exists(path));
  ASSERT_EQ(write(go[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_FALSE(Exists(path));
  for (int fd : {go[0], go[1], ready[0], ready[1]}) close(fd);
}

// Our own writers hold the lock on their temporary table while it exists.
TEST(LeftoversTest, WritersHoldTheLockOfTheirTemporaryTable) {
  TempDir tmp("leftovers");
  testutil::FaultInjectingFileSystem fs;
  Status probe = Status::Ok();
  int probes = 0;
  fs.set_hook([&](FsOp op, const std::string& path) {
    if (op == FsOp::kRename && path.find(".temp.") != std::string::npos) {
      ++probes;
      auto other = PosixFileSystem()->TryLock(path);
      probe = other.ok() ? Status::Ok() : other.status();
    }
  });
  StackOptions o = TestOptions();
  o.fs = &fs;
  auto s = OpenOrDie(tmp.path(), o);
  ASSERT_TRUE(Put(*s, "refs/heads/a", 1).ok());
  EXPECT_EQ(probes, 1);
  EXPECT_EQ(probe.code(), Code::kLockHeld) << probe.ToString();
  ASSERT_TRUE(Put(*s, "refs/heads/b", 2).ok());
  ASSERT_TRUE(s->CompactAll().ok());
  EXPECT_EQ(probes, 3);
  EXPECT_EQ(probe.code(), Code::kLockHeld) << probe.ToString();
}

// The lock of an unlisted table is removed; that of a listed one, or of a file that is not a
// table, is kept.
TEST(LeftoversTest, CleanRemovesTheLocksOfUnlistedTablesOnly) {
  TempDir tmp("leftovers");
  const std::string d = tmp.path() + "/";
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  const std::string listed = s->names()[0] + ".lock";
  const std::string unlisted = "0x000000000001-0x000000000001-0badf00d.ref.lock";
  const std::string other = "x.ref.lock";
  for (const std::string& f : {listed, unlisted, other}) testutil::WriteFileOrDie(d + f, "");
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_TRUE(Exists(d + listed)) << "a compaction may hold it";
  EXPECT_FALSE(Exists(d + unlisted));
  EXPECT_TRUE(Exists(d + other));
}

// `reftab compact` runs the clean after compacting.
TEST(LeftoversTest, ReftabCompactRemovesAbandonedTemporaryTables) {
  const char* cli = std::getenv("REFTAB_CLI");
  if (!cli || access(cli, X_OK) != 0) GTEST_SKIP() << "REFTAB_CLI is not an executable";
  TempDir tmp("leftovers");
  const std::string d = tmp.path() + "/";
  {
    auto s = OpenOrDie(tmp.path(), TestOptions());
    ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
    ASSERT_TRUE(Put(*s, "refs/heads/topic", 2).ok());
  }
  const std::string abandoned = "0x000000000003-0x000000000003-0badf00d.temp.a1b2c3";
  const std::string unlisted_lock = "0x000000000001-0x000000000001-0badf00d.ref.lock";
  testutil::WriteFileOrDie(d + abandoned, std::string(1 << 20, 'x'));
  testutil::WriteFileOrDie(d + unlisted_lock, "");
  Age(d + abandoned, kOld);
  std::string out;
  EXPECT_EQ(testutil::RunProgram(cli, {"--stack", tmp.path(), "compact"}, tmp.path(), "", &out), 0)
      << out;
  EXPECT_FALSE(Exists(d + abandoned));
  EXPECT_FALSE(Exists(d + unlisted_lock));
  testutil::StackState st = testutil::CaptureStack(tmp.path());
  EXPECT_EQ(st.names.size(), 1u);
  EXPECT_TRUE(testutil::StrayFiles(st).empty());
}

// A discarded temporary table is removed without first writing out what its buffer still
// holds (a table that came out empty, or failed, has nothing worth the write).
TEST(TempTableTest, DiscardWritesNothingBuffered) {
  TempDir tmp("temptable");
  testutil::FaultInjectingFileSystem fs;
  std::minstd_rand rng(7);
  auto t = TempTable::Create(&fs, tmp.path(), "0x000000000001-0x000000000001", std::nullopt, &rng);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const std::string path = (*t)->path();
  ASSERT_TRUE((*t)->file()->Append("some block bytes").ok());
  (*t)->Discard();
  EXPECT_EQ(fs.count(FsOp::kAppend), 0u);
  EXPECT_EQ(fs.count(FsOp::kRemove), 1u);
  struct stat st;
  EXPECT_NE(stat(path.c_str(), &st), 0) << path << " left behind";
}

}  // namespace
}  // namespace reftab
