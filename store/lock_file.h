// Public API: lock files, git's way (FORMAT.md §19.1).
//
// A lock on `path` is the file `path + ".lock"`, created with O_CREAT|O_EXCL. Whoever creates
// it holds the lock. Committing writes the new contents into the lock file, syncs it
// (per the durability setting) and renames it over `path`; rolling back unlinks it. There is
// no stale-lock detection: a crashed writer leaves the lock behind, as with git, and the
// error says so and how to clear it.
//
// With git 2.54's core.lockfilePid, whoever takes the lock also writes `path + "~pid.lock"`
// ("pid <n>\n", created with O_EXCL, removed with the lock): a writer that finds the lock
// taken can then say which process holds it and whether that process still runs. '~' cannot
// appear in a ref name, so the name never collides with a ref's.
#ifndef REFTAB_STORE_LOCK_FILE_H_
#define REFTAB_STORE_LOCK_FILE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "format/status.h"
#include "format/visibility.h"
#include "store/file.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// Where a problem that fails nothing goes, for a caller that prints it as git prints its
// warnings (a lock's pid file that was created but could not be written). Empty: dropped.
using WarningSink = std::function<void(const std::string& message)>;

// How hard a write tries to survive power loss.
enum class Durability : uint8_t {
  kNone,  // never fsync (git's own default configuration: refs are not fsynced)
  kGit,   // fsync each new table and the new tables.list before renaming them, as git does
          // with core.fsync=reference; the directory is not synced
  kFull,  // kGit plus an fsync of the directory after every rename, so the renames
          // themselves are durable
};

class LockFile {
 public:
  // Takes the lock for `path`, retrying with git's backoff (sleeps of about 1, 4, 9, 16 ...
  // ms, at most 1 s) until the sleeps add up to `timeout_ms`, as git counts it (0: try once;
  // negative: wait forever). Counting the sleeps rather than the wall clock means a loaded
  // machine, where each attempt and each wake-up is late, does not shorten the wait: a
  // writer makes as many attempts as git's would. kLockHeld if the lock stays held. With
  // `mode`, the lock file (so the file it replaces on commit) gets those permission bits.
  // With `pid_file`, also writes the pid file; without one if it cannot (as git), telling
  // `warn` when it could create the file but not write it (WriteLockPidFile).
  static Result<std::unique_ptr<LockFile>> Acquire(FileSystem* fs, const std::string& path,
                                                   int64_t timeout_ms,
                                                   std::optional<uint32_t> mode = std::nullopt,
                                                   bool pid_file = false,
                                                   const WarningSink& warn = {});
  ~LockFile();  // rolls back unless committed
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

  const std::string& lock_path() const { return lock_path_; }
  // Writes `contents` to the lock file, syncs it if durability asks, and renames it over
  // the target. On failure before the rename the lock is rolled back and the target is
  // unchanged (committed() stays false). A failure to sync the directory afterwards is
  // reported, but the new contents are in place (committed() is true).
  Status Commit(std::string_view contents, Durability durability);
  bool committed() const { return committed_; }
  // Unlinks the lock file.
  void Rollback();

 private:
  LockFile(FileSystem* fs, std::string path, std::unique_ptr<WritableFile> file);
  // How long the lock has been held, for tracing.
  double HeldMs() const;

  FileSystem* fs_;
  std::string path_;
  std::string lock_path_;
  std::unique_ptr<WritableFile> file_;
  bool has_pid_file_ = false;
  bool held_ = true;
  bool committed_ = false;
  std::chrono::steady_clock::time_point taken_ = std::chrono::steady_clock::now();
};

// The error for a lock file that exists: what it is, who may hold it (from its pid file, if
// there is one), and how to clear it if nobody does. `what` describes the locked file
// ("tables.list", "table ...").
Status LockHeldError(FileSystem* fs, const std::string& path, const std::string& what);

// The pid file of the lock on `path`: path + "~pid.lock".
std::string LockPidFilePath(const std::string& path);
// Creates the pid file of the lock on `path` for this process; false if it could not. As
// git, a file that cannot be created (one exists) is skipped silently, while one created but
// not written is removed and `warn` told, in git's words: "could not write lock pid file
// '<pid file>': <why>".
bool WriteLockPidFile(FileSystem* fs, const std::string& path, std::optional<uint32_t> mode,
                      const WarningSink& warn = {});

// Who holds the lock on `path`, as its pid file says: nullopt without a readable pid file.
struct LockHolder {
  uint64_t pid = 0;
  bool running = false;  // a process with that pid exists (pids are reused: a hint only)
};
std::optional<LockHolder> ReadLockHolder(FileSystem* fs, const std::string& path);
// git's sentence about that holder ("Lock may be held by process 123; ..."), or "".
std::string LockHolderText(FileSystem* fs, const std::string& path);

// The directory part of a path ("." if none).
std::string DirName(const std::string& path);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_LOCK_FILE_H_
