// Public API: lock files, git's way (FORMAT.md §19.1).
//
// A lock on `path` is the file `path + ".lock"`, created with O_CREAT|O_EXCL. Whoever creates
// it holds the lock. Committing writes the new contents into the lock file, syncs it
// (per the durability setting) and renames it over `path`; rolling back unlinks it. There is
// no stale-lock detection: a crashed writer leaves the lock behind, as with git.
#ifndef REFTAB_STORE_LOCK_FILE_H_
#define REFTAB_STORE_LOCK_FILE_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "format/status.h"
#include "store/file.h"

namespace reftab {

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
  // Takes the lock for `path`, retrying with git's backoff until `timeout_ms` has passed
  // (0: try once; negative: wait forever). kLockHeld if it stays held.
  static Result<std::unique_ptr<LockFile>> Acquire(FileSystem* fs, const std::string& path,
                                                   int64_t timeout_ms);
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

  FileSystem* fs_;
  std::string path_;
  std::string lock_path_;
  std::unique_ptr<WritableFile> file_;
  bool held_ = true;
  bool committed_ = false;
};

// The directory part of a path ("." if none).
std::string DirName(const std::string& path);

}  // namespace reftab

#endif  // REFTAB_STORE_LOCK_FILE_H_
