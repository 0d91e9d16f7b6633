// Internal: a new table on its way into a stack directory.
//
// It is written under a temporary name, <stem>.temp.XXXXXX, that no list names, no reader
// opens and no clean removes while its writer lives (the writer holds an advisory lock on
// it; see Stack::Clean), and it gets its final <stem>.ref name only through Install(),
// which the stack calls while it holds tables.list.lock and right before it writes the list
// that names the table. So a file with a table's name that no list names exists only while
// tables.list is locked by the writer about to publish it: a concurrent clean, which takes
// that lock first, can never see it and delete it (which would leave a list naming a
// missing table).
#ifndef REFTAB_STORE_TEMP_TABLE_H_
#define REFTAB_STORE_TEMP_TABLE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "format/status.h"
#include "store/file.h"
#include "store/lock_file.h"

namespace reftab {

class TempTable {
 public:
  // Creates <dir>/<stem>.temp.XXXXXX exclusively (another random suffix on a clash), sets
  // its permission bits to `mode` if given, and takes the advisory lock (best effort: a file
  // system without advisory locks only loses the protection the lock adds). Writes to the
  // file are buffered in `buffer`'s memory (BufferedSink), which TakeBuffer gives back.
  static Result<std::unique_ptr<TempTable>> Create(FileSystem* fs, const std::string& dir,
                                                   const std::string& stem,
                                                   std::optional<uint32_t> mode,
                                                   std::minstd_rand* rng,
                                                   std::string buffer = std::string());
  // Removes the temporary file unless it was installed.
  ~TempTable();
  TempTable(const TempTable&) = delete;
  TempTable& operator=(const TempTable&) = delete;

  const std::string& path() const { return path_; }
  WritableFile* file() { return file_.get(); }
  // Syncs the contents (unless durability is kNone) and closes the file.
  Status Finish(Durability durability);
  // The write buffer's memory, for the next table's Create; after Finish.
  std::string TakeBuffer() { return file_->TakeBuffer(); }
  // Drops the file: the table came out empty or could not be written.
  void Discard();
  // Renames the finished file to <dir>/<name>. With kFull the directory is synced, so the
  // rename is on disk before any list names the table. On failure nothing is left: neither
  // the temporary file nor (if the directory sync failed) the renamed one.
  Status Install(const std::string& name, Durability durability);

 private:
  TempTable(FileSystem* fs, std::string dir, std::string path, std::unique_ptr<BufferedSink> file);

  FileSystem* fs_;
  std::string dir_;
  std::string path_;
  std::unique_ptr<BufferedSink> file_;
  std::unique_ptr<FileLock> owner_;  // our advisory lock on path_, while it is ours
  bool gone_ = false;                // installed or removed
};

// Whether `name` is a table's file name as git and reftab make them, 0x<hex>-0x<hex>-<hex>.ref,
// or a temporary table's, 0x<hex>-0x<hex>-<hex>.temp.<suffix>.
bool IsTableName(std::string_view name);
bool IsTempTableName(std::string_view name);

}  // namespace reftab

#endif  // REFTAB_STORE_TEMP_TABLE_H_
