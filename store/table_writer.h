// Public API: writing one reftable file.
//
// The output is byte-identical to git's writer for the same records and options
// (FORMAT.md §13): same restart points, padding, index levels, obj index and zlib settings.
//
// Usage: construct, SetLimits(), AddRef() in strictly increasing name order, then AddLog()
// in strictly increasing (name, descending update index) order, then Finish(). Any error
// leaves the writer unusable; the bytes already given to the sink are then garbage and the
// caller discards them (the store writes to a temporary file and only renames on success).
#ifndef REFTAB_STORE_TABLE_WRITER_H_
#define REFTAB_STORE_TABLE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "format/constants.h"
#include "format/header.h"
#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/file.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class BlockWriter;  // format/block_writer.h, not installed
class Deflater;     // format/compression.h, not installed

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
  Status AddLog(const LogRecord& log);
  // Writes the remaining blocks, indexes and the footer. The sink is not synced or closed.
  Status Finish();

  const WriteStats& stats() const { return stats_; }

 private:
  struct IndexEntry {
    std::string last_key;
    uint64_t offset;
  };
  // The obj index input, one 16-byte key per id in insertion order (so blocks ascend),
  // plus the ids' remaining bytes back to back in obj_tails_. The keys carry everything the
  // obj section needs when the ids' first 8 bytes differ (as they do for hashes), so
  // sorting moves only them and the sorted pass reads no id at random.
  struct ObjSortKey {
    uint64_t head;   // the id's first 8 bytes, big-endian: most comparisons end here
    uint32_t block;  // into obj_block_offsets_
    uint32_t index;  // insertion order; the id's tail is at obj_tails_[index * (hash_size - 8)]
  };

  uint64_t next_offset() const { return written_ + pending_padding_; }
  void StartBlock(BlockType type);
  Status FlushBlock();
  Status WriteBlock(std::string_view bytes, BlockType type);
  template <class Encode>
  Status AddRecord(BlockType type, std::string_view key, uint8_t value_type, size_t max_value,
                   Encode&& encode);
  Status FinishSection(uint64_t* index_position);
  Status FinishPublicSection();
  Status WriteObjSection();
  Status Fail(Status s);

  WriteOptions opts_;
  WritableFile* sink_;
  size_t hash_size_;
  TableHeader header_;
  std::string header_bytes_;
  bool limits_set_ = false;
  bool finished_ = false;
  Status error_;

  std::unique_ptr<BlockWriter> block_;  // allocated once per writer
  bool block_open_ = false;
  uint64_t block_start_ = 0;
  bool section_open_ = false;  // a ref or log section has records and is not finished
  BlockType section_type_ = BlockType::kRef;
  uint64_t written_ = 0;
  uint64_t pending_padding_ = 0;
  uint64_t ref_blocks_ = 0, obj_blocks_ = 0, log_blocks_ = 0;

  std::vector<IndexEntry> index_;
  void AddObjId(const ObjectId& id);
  void SortObjIds(std::vector<ObjSortKey>* sorted);
  void ClearObjIds();

  std::vector<ObjSortKey> obj_keys_;
  std::vector<uint8_t> obj_tails_;
  std::vector<uint64_t> obj_block_offsets_;
  std::string last_key_;  // order check within a section
  std::string scratch_key_;
  std::string scratch_message_;
  std::string compressed_;
  std::unique_ptr<Deflater> deflater_;
  std::vector<uint64_t> positions_;
  WriteStats stats_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_TABLE_WRITER_H_
