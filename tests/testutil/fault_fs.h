// A FileSystem for fault-injection tests: wraps another one (the operating system's by
// default), counts every operation by kind, records them in order, and can make the Nth
// operation of one kind fail with kIoError. A hook runs before every operation so that tests
// can interleave another writer at an exact point (deterministic concurrency tests).
#ifndef REFTAB_TESTS_TESTUTIL_FAULT_FS_H_
#define REFTAB_TESTS_TESTUTIL_FAULT_FS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/file.h"

namespace reftab::testutil {

// Every operation the seam offers. Writes: kCreate (also how lock files are taken),
// kOpenAppend, kAppend, kSync, kClose, kRename, kRemove, kSyncDir, kChmod. Reads: kOpenRead,
// kReadFile, kReadPinned, kListDir, kStat. kLock: an advisory lock (FileSystem::TryLock).
enum class FsOp : uint8_t {
  kCreate,
  kOpenAppend,
  kAppend,
  kSync,
  kClose,
  kRename,
  kRemove,
  kSyncDir,
  kOpenRead,
  kReadFile,
  kReadPinned,
  kListDir,
  kStat,
  kChmod,
  kLock,
};
inline constexpr size_t kNumFsOps = 15;
inline constexpr std::array<FsOp, kNumFsOps> kAllFsOps = {
    FsOp::kCreate,     FsOp::kOpenAppend, FsOp::kAppend,  FsOp::kSync,     FsOp::kClose,
    FsOp::kRename,     FsOp::kRemove,     FsOp::kSyncDir, FsOp::kOpenRead, FsOp::kReadFile,
    FsOp::kReadPinned, FsOp::kListDir,    FsOp::kStat,    FsOp::kChmod,    FsOp::kLock};
const char* FsOpName(FsOp op);

// One operation as it happened. `path` is the file (for kRename the source, `to` the target).
struct FsEvent {
  FsOp op;
  std::string path;
  std::string to;
  bool injected = false;  // this is the operation that was made to fail
  bool ok = true;         // the operation (or the injected fault) reported success
};

class FaultInjectingFileSystem final : public FileSystem {
 public:
  explicit FaultInjectingFileSystem(FileSystem* base = PosixFileSystem());

  // Makes the `n`th operation of kind `op` (1-based, counted since the last Reset) fail with
  // kIoError; n == 0 disarms. Only one fault is armed at a time. A failing kAppend writes half
  // of its data first (a short write); other failing operations do nothing.
  void FailNth(FsOp op, uint64_t n);
  // Clears the counters, the event log and the armed fault (the hook stays).
  void Reset();
  // Whether fsync()s (file and directory) are really performed; counting is unaffected.
  // Off speeds up sweeps that do not test durability.
  void set_perform_syncs(bool v) { perform_syncs_ = v; }
  // Runs before every operation, outside the internal lock, with the operation and its path.
  void set_hook(std::function<void(FsOp, const std::string&)> hook) { hook_ = std::move(hook); }

  uint64_t count(FsOp op) const;
  bool fault_fired() const;
  std::vector<FsEvent> events() const;
  // Index into events() of the injected failure, or -1.
  long fault_index() const;
  // Whether some rename onto a file named `tables.list` succeeded before the fault fired
  // (with no fault fired: at all).
  bool ListReplacedBeforeFault() const;

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
  friend class CountingWritableFile;
  // Runs the hook, counts the operation, logs it (its index in *index) and returns true if
  // it must fail.
  bool Begin(FsOp op, const std::string& path, const std::string& to, size_t* index);
  // Records the outcome of the operation logged at `index`.
  void End(size_t index, bool ok);
  Status Injected(FsOp op, const std::string& path) const;
  // Create and OpenAppend: the operation `op` counted (and failed if armed), `open` run,
  // and the file wrapped so that its appends, syncs and close count too.
  Result<std::unique_ptr<WritableFile>> OpenWritable(
      FsOp op, const std::string& path,
      const std::function<Result<std::unique_ptr<WritableFile>>()>& open);

  FileSystem* base_;
  mutable std::mutex mu_;
  std::array<uint64_t, kNumFsOps> counts_{};
  std::vector<FsEvent> events_;
  FsOp fail_op_ = FsOp::kCreate;
  uint64_t fail_n_ = 0;
  long fault_index_ = -1;
  bool perform_syncs_ = true;
  std::function<void(FsOp, const std::string&)> hook_;
};

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_FAULT_FS_H_
