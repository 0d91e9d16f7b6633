// StackOptions::file_mode: every file a stack creates gets exactly those permission bits,
// whatever the umask: tables (through their temporary file), table locks, tables.list.lock
// and so tables.list. Checked on the files at rest after transactions and compactions, and on
// each temporary or lock file while it exists (through the seam's hook). Unset, files get
// what open(2) gives: 0666 minus the umask.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "store/stack.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::FsOp;

uint32_t ModeOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0xffffffff;
  return uint32_t(st.st_mode & 07777);
}

// Sets the umask for the scope (it is per process; these tests run one at a time).
class Umask {
 public:
  explicit Umask(mode_t m) : old_(umask(m)) {}
  ~Umask() { umask(old_); }

 private:
  mode_t old_;
};

struct Seen {
  std::vector<std::string> bad;  // "<file> <mode>" for every file with another mode
  int checked = 0;
};

// Writes, auto-compacts, range- and fully compacts a stack, checking the mode of every
// temporary table and lock file just before it is renamed or removed, and of every file
// in the directory after each step.
Seen Exercise(std::optional<uint32_t> mode, uint32_t want) {
  testutil::TempDir tmp("file-mode");
  testutil::FaultInjectingFileSystem fs;
  fs.set_perform_syncs(false);
  Seen seen;
  auto check = [&](const std::string& path) {
    uint32_t m = ModeOf(path);
    if (m == 0xffffffff) return;  // already gone (e.g. a lock removed by its owner)
    ++seen.checked;
    char octal[16];
    std::snprintf(octal, sizeof octal, "%04o", unsigned(m));
    if (m != want) seen.bad.push_back(path + " " + octal);
  };
  fs.set_hook([&](FsOp op, const std::string& path) {
    bool transient = path.find(".temp.") != std::string::npos || testutil::EndsWith(path, ".lock");
    if (transient && (op == FsOp::kRename || op == FsOp::kRemove)) check(path);
  });
  StackOptions o = storetest::TestOptions();
  o.fs = &fs;
  o.file_mode = mode;
  o.auto_compact = true;
  auto s = storetest::OpenOrDie(tmp.path(), o);
  if (!s) return seen;
  auto check_dir = [&] {
    for (const std::string& f : testutil::ListDirSorted(tmp.path())) check(tmp.path() + "/" + f);
  };
  for (uint64_t i = 1; i <= 6; ++i) {
    EXPECT_TRUE(storetest::Put(*s, "refs/heads/b" + std::to_string(i), i).ok());
    check_dir();
  }
  o.auto_compact = false;
  s = storetest::OpenOrDie(tmp.path(), o);
  for (uint64_t i = 7; i <= 9; ++i) EXPECT_TRUE(storetest::Put(*s, "refs/heads/c", i).ok());
  EXPECT_TRUE(s->CompactRange(1, 2).ok());
  check_dir();
  EXPECT_TRUE(s->CompactAll().ok());
  check_dir();
  EXPECT_TRUE(s->Clean().ok());
  check_dir();
  return seen;
}

TEST(FileModeTest, EveryFileGetsTheModeWhateverTheUmask) {
  for (uint32_t mode : {0600u, 0660u}) {
    SCOPED_TRACE(mode);
    Umask u(022);  // would give 0644 without the option
    Seen seen = Exercise(mode, mode);
    EXPECT_TRUE(seen.bad.empty()) << seen.bad.size() << " files, first " << seen.bad[0];
    EXPECT_GT(seen.checked, 30);
  }
}

TEST(FileModeTest, UnsetFollowsTheUmask) {
  for (mode_t mask : {mode_t(022), mode_t(077)}) {
    SCOPED_TRACE(mask);
    Umask u(mask);
    Seen seen = Exercise(std::nullopt, 0666u & ~uint32_t(mask));
    EXPECT_TRUE(seen.bad.empty()) << seen.bad.size() << " files, first " << seen.bad[0];
    EXPECT_GT(seen.checked, 30);
  }
}

}  // namespace
}  // namespace reftab
