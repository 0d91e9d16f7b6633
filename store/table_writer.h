// Public API: writing one reftable file.
//
// The output is byte-identical to git's writer for the same records and options
// (FORMAT.md §13): same restart points, padding, index levels, obj index and zlib settings.
//
// Usage: construct, SetLimits(), AddRef() in strictly increasing name order, then AddLog()
// in strictly increasing (name, descending update index) order, then Finish(). Any error
// leaves the writer unusable; the bytes already given to the sink are then garbage and the
// caller discards them (the store writes to a temporary file and only renames on success).
//
// A log section of more than one block has every other block compressed on a second thread
// that the writer starts and ends itself (not on a single-core machine); the sink is only
// ever called from the caller's thread, and the bytes are the same as with one thread.
#ifndef REFTAB_STORE_TABLE_WRITER_H_
#define REFTAB_STORE_TABLE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/constants.h"
#include "format/header.h"
#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/file.h"

namespace reftab {

// Not installed, and kept out of the exports below: declared before REFTAB_PUBLIC_BEGIN
// because a class takes its visibility from its first declaration.
class TableBuilder;     // store/table_builder.h, not installed
struct TableScratch;    // store/table_builder.h, not installed
struct TableLogBlocks;  // store/table_log_blocks.h, not installed
struct TableRefBlocks;  // store/table_ref_blocks.h, not installed

REFTAB_PUBLIC_BEGIN

struct WriteOptions {
  uint32_t block_size = kDefaultBlockSize;              // 64 .. 16777215
  uint32_t restart_interval = kDefaultRestartInterval;  // 1 .. 65535
  bool index_objects = true;       // write the obj section (only when the ref section has an index)
  bool unpadded = false;           // no NUL padding between blocks (header still has block_size)
  HashId hash_id = HashId::kSha1;  // SHA-1 -> version 1, SHA-256 -> version 2
  // false (git's default): a log message loses its trailing newlines, must then be a single
  // line, and gets exactly one newline appended. true: messages are stored as given.
  bool exact_log_message = false;
};

// Checks option ranges; kInvalidArgument names the bad option.
Status ValidateWriteOptions(const WriteOptions& options);

struct WriteStats {
  uint64_t ref_records = 0;
  uint64_t log_records = 0;
  uint64_t obj_records = 0;
  uint64_t blocks = 0;
  uint64_t bytes = 0;
  bool empty = true;  // no records: git would not add such a table to a stack
  TableFooter footer;
};

class TableWriter {
 public:
  // `sink` must outlive the writer.
  TableWriter(const WriteOptions& options, WritableFile* sink);
  ~TableWriter();
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  // Must be called before the first record. Ref update indexes must lie in [min, max];
  // log update indexes must be <= max.
  Status SetLimits(uint64_t min_update_index, uint64_t max_update_index);
  Status AddRef(const RefRecord& ref);
  // The same as AddRef of a RefRecord {refname, update_index, kVal1, value}, the common ref
  // (one object id), for a caller streaming names from its own buffers: no RefRecord to
  // fill, so no copy of each name into one. `refname` need only live for the call.
  Status AddRef(std::string_view refname, uint64_t update_index, const ObjectId& value);
  // The same as AddRef of a RefRecord {refname, update_index, kSymref, target}, for a caller
  // whose names and targets are views of its own buffers (the key/value store's flush, whose
  // values are stored as targets): nothing is copied into a record first. Both views need
  // only live for the call.
  Status AddSymref(std::string_view refname, uint64_t update_index, std::string_view target);
  Status AddLog(const LogRecord& log);
  // Writes the remaining blocks, indexes and the footer. The sink is not synced or closed.
  Status Finish();

  const WriteStats& stats() const;

 private:
  friend struct TableLogBlocks;
  friend struct TableRefBlocks;
  friend class Stack;
  // For a stack: the writer builds its blocks in memory `scratch` keeps from one table to
  // the next (store/table_builder.h). `scratch` must outlive the writer.
  TableWriter(const WriteOptions& options, WritableFile* sink, TableScratch* scratch);
  std::unique_ptr<TableBuilder> impl_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_TABLE_WRITER_H_
