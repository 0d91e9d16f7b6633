// The files the key/value store keeps in its folder beside the reftable stack
// (tables.list, *.ref): its write-ahead log and its writer lock. Internal to store/kv/.
//
//   kv.lock      always present once a writer has opened the store. The writing process
//                holds an advisory lock on it (flock(2), released when the process exits,
//                however it exits) and writes its pid into it, for the error a second
//                writer gets. Never removed: removing it would let two writers lock two
//                different files.
//   kv.log       the write-ahead log (store/kv/kv_log_format.h): the writes since the last
//                flush. Replaced, never truncated, by renaming kv.log.new over it; the next
//                writer appends to it when it replayed it whole.
//   kv.log.flushing  the log of the immutable memtable a background flush is writing into a
//                table: kv.log renamed when the memtable filled up. Removed once the table
//                is listed. Open replays it before kv.log (it holds the older writes). At
//                most one exists: a writer waits for the flush before it renames kv.log
//                again (which would replace it atomically anyway).
//   kv.log.new   a fresh log being made; one left by a killed process is removed at open.
#ifndef REFTAB_STORE_KV_KV_FILES_H_
#define REFTAB_STORE_KV_KV_FILES_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "format/status.h"
#include "store/file.h"
#include "store/kv/kv_log_format.h"

namespace reftab {

inline constexpr std::string_view kKvLockName = "kv.lock";
inline constexpr std::string_view kKvLogName = "kv.log";
inline constexpr std::string_view kKvNewLogName = "kv.log.new";
inline constexpr std::string_view kKvFlushingLogName = "kv.log.flushing";

// dir + "/" + name.
std::string KvPath(const std::string& dir, std::string_view name);

// Takes the writer lock of the store in `dir` without waiting. kLockHeld names the lock
// file and the pid written in it.
Result<std::unique_ptr<FileLock>> LockKvWriter(FileSystem* fs, const std::string& dir);

// The log a writer appends to.
class KvLogWriter {
 public:
  // Makes an empty log (its header only) and puts it in place of kv.log atomically: written
  // as kv.log.new, synced, renamed. With `sync`, the folder is synced after the rename, so
  // that records synced into the new log cannot be lost with its name. *out is set once the
  // rename is done, even if the folder's sync then fails (the old log is no longer kv.log:
  // appending to it would lose the records).
  // With `header` (store/kv/kv_log_format.h).
  static Status CreateFresh(FileSystem* fs, const std::string& dir, bool sync,
                            const KvLogHeader& header, std::unique_ptr<KvLogWriter>* out);
  // Opens kv.log to append to it: the log a writer replayed whole (it ends with an intact
  // record, so what follows reads back).
  static Status OpenExisting(FileSystem* fs, const std::string& dir,
                             std::unique_ptr<KvLogWriter>* out);
  // Appends records with one write(2).
  Status Append(std::string_view records) { return file_->Append(records); }
  // Appends one record held in two parts (a header, and a batch's operations where the
  // batch keeps them) with one writev(2).
  Status Append(std::string_view head, std::string_view body) {
    return file_->AppendTwo(head, body);
  }
  // fsync.
  Status Sync() { return file_->Sync(); }

 private:
  explicit KvLogWriter(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}
  std::unique_ptr<WritableFile> file_;
};

// Moves kv.log aside as kv.log.flushing (replacing one already flushed) and puts a fresh
// kv.log in its place (CreateFresh, without syncs: the writer pays none of them). With
// `keep_synced` (the old log holds synced records), the folder is synced between the two
// renames, so that a machine crash cannot keep the second without the first (which would
// lose those records). The fresh log and its name are not synced: the caller syncs the
// folder with the first synced record it appends (a machine crash before that may lose the
// fresh log, which holds only unsynced records, or leave it without its header). On
// error, *out says whether the fresh log is in place (the old one is then
// kv.log.flushing): if not, and the first rename succeeded, kv.log is missing until the
// next open replays kv.log.flushing.
Status RotateKvLog(FileSystem* fs, const std::string& dir, bool keep_synced,
                   const KvLogHeader& header, std::unique_ptr<KvLogWriter>* out);

// Opens dir/`name` for reading, through its mapping; null if it does not exist.
Result<std::unique_ptr<RandomAccessFile>> OpenKvLog(FileSystem* fs, const std::string& dir,
                                                    std::string_view name);

// What `log`'s header says; nullopt if it is missing, damaged or of the first version.
std::optional<KvLogHeader> KvLogHeaderOf(const RandomAccessFile& log);

// Calls `apply` with each intact record's payload of `log`, oldest first. A short or damaged
// record ends the replay: *damage is then kCorruption naming the file, the offset and the
// bytes dropped, else Ok. The returned status is from `apply`. The payloads are views of
// the file, read in place: they stay valid as long as `log`.
Status ReplayKvLog(const RandomAccessFile& log,
                   const std::function<Status(std::string_view payload)>& apply, Status* damage);

}  // namespace reftab

#endif  // REFTAB_STORE_KV_KV_FILES_H_
