// Lock pid files (git 2.54's core.lockfilePid, store/lock_file.h): written beside a lock and
// gone with it, read back to say who holds a lock and whether that process still runs, and
// cleaned only once their process is gone and their lock released.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "store/file.h"
#include "store/lock_file.h"
#include "store/stack.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using storetest::OpenOrDie;
using storetest::Put;
using storetest::TestOptions;
using testutil::TempDir;
using testutil::WriteFileOrDie;

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// The pid of a process that has exited and been reaped: nobody runs under it (for a while).
pid_t GonePid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

TEST(LockPidFileTest, ComesAndGoesWithTheLock) {
  TempDir tmp("lockpid");
  const std::string path = tmp.path() + "/tables.list";
  for (bool commit : {true, false}) {
    auto lock = LockFile::Acquire(PosixFileSystem(), path, 0, std::nullopt, /*pid_file=*/true);
    ASSERT_TRUE(lock.ok()) << lock.status().ToString();
    auto text = PosixFileSystem()->ReadFile(path + "~pid.lock");
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(*text, "pid " + std::to_string(getpid()) + "\n");
    if (commit) {
      ASSERT_TRUE((*lock)->Commit("x\n", Durability::kNone).ok());
    } else {
      (*lock)->Rollback();
    }
    EXPECT_FALSE(Exists(path + ".lock"));
    EXPECT_FALSE(Exists(path + "~pid.lock")) << (commit ? "after commit" : "after rollback");
  }
}

// As git: a pid file that exists already is skipped silently; one created but not written
// is removed, with git's warning; the lock is taken either way.
TEST(LockPidFileTest, APidFileNotWrittenIsWarnedOf) {
  TempDir tmp("lockpid");
  const std::string path = tmp.path() + "/tables.list";
  testutil::FaultInjectingFileSystem fs;
  std::vector<std::string> warnings;
  const WarningSink warn = [&](const std::string& m) { warnings.push_back(m); };
  fs.FailNth(testutil::FsOp::kAppend, 1);
  {
    auto lock = LockFile::Acquire(&fs, path, 0, std::nullopt, /*pid_file=*/true, warn);
    ASSERT_TRUE(lock.ok()) << lock.status().ToString();
    EXPECT_FALSE(Exists(path + "~pid.lock"));
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0].rfind("could not write lock pid file '" + path + "~pid.lock': ", 0), 0u)
        << warnings[0];
  }
  fs.Reset();
  warnings.clear();
  WriteFileOrDie(path + "~pid.lock", "pid 1\n");
  auto lock = LockFile::Acquire(&fs, path, 0, std::nullopt, /*pid_file=*/true, warn);
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  EXPECT_TRUE(warnings.empty());
}

TEST(LockPidFileTest, NoPidFileUnlessAsked) {
  TempDir tmp("lockpid");
  const std::string path = tmp.path() + "/tables.list";
  auto lock = LockFile::Acquire(PosixFileSystem(), path, 0);
  ASSERT_TRUE(lock.ok());
  EXPECT_FALSE(Exists(path + "~pid.lock"));
}

TEST(LockPidFileTest, SaysWhoHoldsALock) {
  TempDir tmp("lockpid");
  const std::string path = tmp.path() + "/tables.list";
  EXPECT_EQ(LockHolderText(PosixFileSystem(), path), "");  // no pid file

  WriteFileOrDie(path + "~pid.lock", "pid " + std::to_string(getpid()) + "\n");
  std::optional<LockHolder> live = ReadLockHolder(PosixFileSystem(), path);
  ASSERT_TRUE(live);
  EXPECT_EQ(live->pid, uint64_t(getpid()));
  EXPECT_TRUE(live->running);
  EXPECT_EQ(LockHolderText(PosixFileSystem(), path),
            "Lock may be held by process " + std::to_string(getpid()) +
                "; if no git process is running, the lock file may be stale (PIDs can be reused)");

  const pid_t gone = GonePid();
  WriteFileOrDie(path + "~pid.lock", "pid " + std::to_string(gone) + "\n");
  EXPECT_EQ(LockHolderText(PosixFileSystem(), path),
            "Lock was held by process " + std::to_string(gone) +
                ", which is no longer running; the lock file appears to be stale");

  for (const char* bad : {"", "pid", "pid \n", "pid x\n", "pid 12x\n", "pid 0\n", "12\n",
                          "pid 99999999999999999999\n"}) {
    WriteFileOrDie(path + "~pid.lock", bad);
    EXPECT_FALSE(ReadLockHolder(PosixFileSystem(), path)) << bad;
    EXPECT_EQ(LockHolderText(PosixFileSystem(), path), "") << bad;
  }
}

TEST(LockPidFileTest, AWriterThatFindsTheLockNamesItsHolder) {
  TempDir tmp("lockpid");
  StackOptions o = TestOptions();
  o.lock_timeout_ms = 0;
  auto stack = OpenOrDie(tmp.path(), o);
  ASSERT_TRUE(stack);
  WriteFileOrDie(tmp.path() + "/tables.list.lock", "");
  WriteFileOrDie(tmp.path() + "/tables.list~pid.lock", "pid " + std::to_string(getpid()) + "\n");
  Status s = Put(*stack, "refs/heads/main", 1);
  EXPECT_EQ(s.code(), Code::kLockHeld);
  EXPECT_NE(s.message().find("Lock may be held by process " + std::to_string(getpid())),
            std::string::npos)
      << s.message();
}

TEST(LockPidFileTest, AStackWithPidFilesLeavesNoneBehind) {
  TempDir tmp("lockpid");
  StackOptions o = TestOptions();
  o.lock_pid_files = true;
  auto stack = OpenOrDie(tmp.path(), o);
  ASSERT_TRUE(stack);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Put(*stack, "refs/heads/b" + std::to_string(i), i).ok());
  ASSERT_TRUE(stack->CompactAll().ok());  // table locks too
  for (const std::string& name : testutil::ListDirSorted(tmp.path())) {
    EXPECT_EQ(name.find(".lock"), std::string::npos) << name;
  }
}

TEST(LockPidFileTest, CleanRemovesOnlyPidFilesOfGoneProcessesWithoutTheirLock) {
  TempDir tmp("lockpid");
  auto stack = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(stack);
  ASSERT_TRUE(Put(*stack, "refs/heads/main", 1).ok());
  const std::string dir = tmp.path();
  const std::string gone = "pid " + std::to_string(GonePid()) + "\n";
  const std::string live = "pid " + std::to_string(getpid()) + "\n";
  // A table lock (of an unlisted table) whose pid file names a gone process: both stale.
  const std::string table = dir + "/0x000000000009-0x000000000009-00000000.ref";
  WriteFileOrDie(table + "~pid.lock", gone);
  // A gone process's pid file whose lock is still there: kept with the lock.
  WriteFileOrDie(dir + "/other~pid.lock", gone);
  WriteFileOrDie(dir + "/other.lock", "");
  // A live process's pid file: kept, lock or not.
  WriteFileOrDie(dir + "/mine~pid.lock", live);
  // Not a pid file at all: not ours to judge.
  WriteFileOrDie(dir + "/odd~pid.lock", "hello\n");
  ASSERT_TRUE(stack->Clean().ok());
  EXPECT_FALSE(Exists(table + "~pid.lock"));
  EXPECT_TRUE(Exists(dir + "/other~pid.lock"));
  EXPECT_TRUE(Exists(dir + "/mine~pid.lock"));
  EXPECT_TRUE(Exists(dir + "/odd~pid.lock"));
}

}  // namespace
}  // namespace reftab
