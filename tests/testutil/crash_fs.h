// A FileSystem for machine-crash tests: it passes every operation to the operating system's
// files and keeps, beside them, what a machine crash at that instant could leave on the disk,
// as LevelDB's fault-injection environment does (files lose what was not fsynced; names
// created, renamed or removed since the folder's last fsync may be undone). Image() writes one
// such state into another folder, for a store to open as after a reboot, while the store
// under test goes on.
//
// The model, deliberately harsher than ext4's but within what POSIX allows:
//   * a file's bytes up to its last Sync() are kept; of the bytes appended after it, a
//     prefix of random length (none to all: the kernel may have written some back), or,
//     in half the images, a random set of their 512-byte sectors (written back in any
//     order: the file ends with the last sector kept, those lost before it read as zeros);
//   * the folder's entries are those of its last SyncDir(), followed by a random prefix of
//     the creates, renames and removes made since (a journaling file system commits them in
//     order); a rename moves the file's content, whatever its name;
//   * files that were in the folder before the CrashingFileSystem was made count as synced,
//     entries and bytes.
// Only one folder is watched: the one the constructor names (the store's). Operations
// elsewhere pass through untracked.
#ifndef REFTAB_TESTS_TESTUTIL_CRASH_FS_H_
#define REFTAB_TESTS_TESTUTIL_CRASH_FS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "store/file.h"

namespace reftab::testutil {

class CrashingFileSystem final : public FileSystem {
 public:
  // `dir`: the folder watched (it must exist); `keep`: an empty folder on the same file
  // system, where every file of `dir` gets a hard link, so that a state can bring back the
  // content of a file since renamed over or removed.
  CrashingFileSystem(std::string dir, std::string keep);

  // Writes into `out` (an empty folder) one state a machine crash now could leave in the
  // watched folder, chosen with `rng`. Operations of other threads wait meanwhile.
  Status Image(const std::string& out, std::mt19937_64& rng);
  // The same with the harshest choices: no name changed since the last SyncDir(), no byte
  // written since a file's last Sync().
  Status ImageLosingAllUnsynced(const std::string& out);
  // Runs before every Create(), outside the internal lock, with its path: a test can hold a
  // background thread there (a flush creating its table) while it writes.
  void set_before_create(std::function<void(const std::string&)> hook) {
    before_create_ = std::move(hook);
  }
  // How many of the names made or changed since the last SyncDir() an image may undo.
  size_t pending_dir_ops() const;

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> Create(const std::string& path, bool exclusive) override;
  Result<std::unique_ptr<WritableFile>> OpenAppend(const std::string& path) override;
  Result<std::string> ReadFile(const std::string& path) override;
  Result<std::unique_ptr<PinnedFile>> ReadPinned(const std::string& path, std::string* contents,
                                                 FileInfo* info) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  Result<std::vector<std::string>> ListDir(const std::string& dir) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Status SyncDir(const std::string& dir) override;
  Status Chmod(const std::string& path, uint32_t mode) override;
  Result<std::unique_ptr<FileLock>> TryLock(const std::string& path) override;

 private:
  friend class CrashTrackedFile;
  // One file's content, whatever names it has had: its hard link in `keep_` and how many of
  // its bytes an fsync made durable.
  struct Node {
    std::string link;
    uint64_t synced = 0;
  };
  // A change to the folder's entries since its last SyncDir().
  struct DirOp {
    enum Kind { kLink, kRename, kUnlink } kind;
    std::string name;   // kLink, kUnlink: the entry; kRename: the source
    std::string to;     // kRename: the target
    uint64_t node = 0;  // kLink: the file
  };
  // The name of `path` inside the watched folder, or "" if it is not directly in it.
  std::string NameIn(const std::string& path) const;
  // A new node for the file now at `path` (a hard link to it in keep_), synced up to `synced`.
  Result<uint64_t> AddNode(const std::string& path, uint64_t synced);
  void Synced(uint64_t node);  // the node's file was fsynced: all its bytes are durable
  static void Apply(const DirOp& op, std::map<std::string, uint64_t>* entries);
  // Image() with `rng`, or ImageLosingAllUnsynced() without.
  Status Write(const std::string& out, std::mt19937_64* rng);

  FileSystem* const base_;
  const std::string dir_;
  const std::string keep_;
  mutable std::mutex mu_;
  std::vector<Node> nodes_;
  std::map<std::string, uint64_t> live_;     // the folder's entries now
  std::map<std::string, uint64_t> durable_;  // as of its last SyncDir()
  std::vector<DirOp> pending_;               // since then, in order
  std::function<void(const std::string&)> before_create_;
};

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_CRASH_FS_H_
