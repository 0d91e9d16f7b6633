// Public API: the file-system seam. Everything the library reads or writes goes through a
// FileSystem, so tests, fuzzers and fault injection can substitute an in-memory one.
//
// RandomAccessFile serves a whole immutable file as one contiguous byte view (an mmap of a
// table, or an in-memory copy); readers hand out pointers into it instead of copying blocks.
#ifndef REFTAB_STORE_FILE_H_
#define REFTAB_STORE_FILE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // The file's name as given when it was opened (used in error messages).
  virtual const std::string& name() const = 0;
  virtual uint64_t size() const = 0;
  // The file's bytes, valid for the object's lifetime.
  virtual const uint8_t* data() const = 0;
  // A hint that [offset, offset + length) will not be read again soon: a mapping gives those
  // pages back to the system (they stay in its cache and are faulted in again when read),
  // so that a pass over a whole file need not hold it all. data() and its bytes stay valid.
  // Does nothing by default.
  virtual void Release(uint64_t offset, uint64_t length) const {
    (void)offset;
    (void)length;
  }
  // Copies the bytes [offset, offset + length) into `out` with a read through the kernel
  // rather than through data(): long sequential scans read ahead this way (a copy into a
  // buffer the scan reuses), because the first touch of a mapping's page can cost more
  // than the copy (on virtual machines with shadow page tables, several microseconds per
  // 4 KiB page). False if the range is not inside the file or the read failed; the caller
  // then reads data(). The default copies from data(). (Defined here, as every virtual of
  // these classes is: an out-of-line one would make its file the only home of the class's
  // type information, which libreftab.so does not export.)
  virtual bool ReadInto(uint64_t offset, uint64_t length, uint8_t* out) const {
    const uint64_t n = size();
    if (offset > n || length > n - offset) return false;
    if (length > 0) std::memcpy(out, data() + offset, size_t(length));
    return true;
  }
};

// A sink for bytes; tables are written through it.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  // Appends `head` then `body`, as one Append of the two joined would (a log record's header
  // and the operations a write batch holds). This default joins them; the operating
  // system's files write them with one writev(2), without the copy.
  virtual Status AppendTwo(std::string_view head, std::string_view body) {
    std::string joined;
    joined.reserve(head.size() + body.size());
    joined.append(head).append(body);
    return Append(joined);
  }
  // Makes the written bytes durable (fsync). Counted by tests through the seam.
  virtual Status Sync() = 0;
  virtual Status Close() = 0;
};

// A RandomAccessFile over bytes held in memory (tests, fuzzers, in-memory tables).
std::unique_ptr<RandomAccessFile> NewMemoryFile(std::string name, std::string bytes);

// A WritableFile that appends to a caller-owned string.
class StringSink final : public WritableFile {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  Status Append(std::string_view data) override {
    out_->append(data);
    return Status::Ok();
  }
  Status Sync() override { return Status::Ok(); }
  Status Close() override { return Status::Ok(); }

 private:
  std::string* out_;
};

// A WritableFile that collects appends in a large buffer and hands them to `file` in chunks
// of `chunk` bytes, so writing a table costs a few dozen write calls instead of one per
// block. Close() flushes and closes `file`.
class BufferedSink final : public WritableFile {
 public:
  static constexpr size_t kDefaultChunk = size_t(1) << 20;
  explicit BufferedSink(std::unique_ptr<WritableFile> file, size_t chunk = kDefaultChunk)
      : BufferedSink(std::move(file), chunk, std::string()) {}
  // Buffers in `buffer` (its contents dropped, its memory kept): another sink's, given back
  // by TakeBuffer, so that a writer of many files does not fault fresh pages in for each.
  BufferedSink(std::unique_ptr<WritableFile> file, size_t chunk, std::string buffer)
      : file_(std::move(file)), chunk_(std::max<size_t>(chunk, 1)), buf_(std::move(buffer)) {
    buf_.clear();
    buf_.reserve(chunk_);
  }
  // The file is written in pieces of exactly `chunk` bytes, the last one apart (appends
  // that fill whole chunks go to the file without a copy). The page cache then holds the
  // file in large pieces, which later reads profit from: tables whose 512 KiB blocks (values
  // of 100 KiB) went to the file as they were, at any offset, took 40% longer to read back
  // at random than tables written in 1 MiB pieces (2026-12-06).
  Status Append(std::string_view data) override {
    while (!data.empty()) {
      if (buf_.empty() && data.size() >= chunk_) {
        const size_t whole = data.size() - data.size() % chunk_;
        REFTAB_RETURN_IF_ERROR(file_->Append(data.substr(0, whole)));
        data.remove_prefix(whole);
        continue;
      }
      const size_t n = std::min(chunk_ - buf_.size(), data.size());
      buf_.append(data.data(), n);
      data.remove_prefix(n);
      if (buf_.size() == chunk_) REFTAB_RETURN_IF_ERROR(FlushBuffer());
    }
    return Status::Ok();
  }
  // The buffer, emptied, for another sink. Nothing may be written after it.
  std::string TakeBuffer() {
    buf_.clear();
    return std::move(buf_);
  }
  Status Sync() override {
    REFTAB_RETURN_IF_ERROR(FlushBuffer());
    return file_->Sync();
  }
  Status Close() override {
    REFTAB_RETURN_IF_ERROR(FlushBuffer());
    return file_->Close();
  }
  // Closes the file without writing what is still buffered: for a file about to be removed.
  Status CloseUnflushed() {
    buf_.clear();
    return file_->Close();
  }

 private:
  Status FlushBuffer() {
    if (buf_.empty()) return Status::Ok();
    Status s = file_->Append(buf_);
    buf_.clear();
    return s;
  }
  std::unique_ptr<WritableFile> file_;
  size_t chunk_;
  std::string buf_;
};

struct FileInfo {
  uint64_t size = 0;
  uint64_t dev = 0;
  uint64_t ino = 0;
  int64_t mtime_ns = 0;  // last modification, nanoseconds since the Unix epoch
  uint32_t mode = 0;     // permission bits (st_mode & 07777)
};

// An open file kept open only to pin its identity: while it lives, the file system cannot
// hand its inode number to a new file, so (dev, ino) comparisons stay free of ABA races.
class PinnedFile {
 public:
  virtual ~PinnedFile() = default;
};

// An advisory lock on a file, held while the object lives.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) = 0;
  // Creates `path`; with `exclusive`, fails with kLockHeld if it exists (O_EXCL).
  virtual Result<std::unique_ptr<WritableFile>> Create(const std::string& path, bool exclusive) = 0;
  // Opens the existing file `path` for appending at its end (O_APPEND); kNotFound if it does
  // not exist.
  virtual Result<std::unique_ptr<WritableFile>> OpenAppend(const std::string& path) = 0;
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // Reads `path` and keeps it open; fills its contents and identity.
  virtual Result<std::unique_ptr<PinnedFile>> ReadPinned(const std::string& path,
                                                         std::string* contents, FileInfo* info) = 0;
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  virtual Status Remove(const std::string& path) = 0;
  virtual Result<std::vector<std::string>> ListDir(const std::string& dir) = 0;
  virtual Result<FileInfo> Stat(const std::string& path) = 0;
  virtual Status SyncDir(const std::string& dir) = 0;
  // Sets the permission bits of `path` exactly (the umask does not apply).
  virtual Status Chmod(const std::string& path, uint32_t mode) = 0;
  // Takes an exclusive advisory lock on the existing file `path` without waiting (flock(2)
  // on a new descriptor): kLockHeld if another holder has it. Only cooperating processes
  // see it. Writers hold one on their temporary tables, so that a clean can tell a live
  // writer's file from one a killed writer left behind.
  virtual Result<std::unique_ptr<FileLock>> TryLock(const std::string& path) = 0;
};

// The operating system's file system (POSIX; tables are mmapped, and each open table keeps
// its descriptor for ReadInto). Stateless.
FileSystem* PosixFileSystem();

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_FILE_H_
