// Internal, not installed (store/meson.build leaves it out of store_public_headers): the log
// blocks a TableWriter wrote, kept so that the compaction that follows right after (git's
// auto-compaction after a transaction) can copy them into the merged table as they are,
// instead of inflating, decoding, re-encoding and deflating every reflog entry again (zlib
// at level 9 is the larger part of a big `update-ref --stdin`).
//
// Why a copy gives the bytes a merge would write: a log block's contents depend only on its
// records, the block size, the restart interval, message cleaning and whether it is the
// table's first block (then it carries the file header); its compressed form only on those
// contents and the fixed zlib settings. When the merged table's log records are exactly the
// recorded table's (no other table of the range has a log section, none is expired or
// dropped) and both writers use the same options, the merge would produce these very blocks;
// only their offsets change, and with them the log index, which the writer builds anew.
#ifndef REFTAB_STORE_TABLE_LOG_BLOCKS_H_
#define REFTAB_STORE_TABLE_LOG_BLOCKS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/table_builder.h"
#include "store/table_writer.h"

namespace reftab {

struct WrittenLogBlock {
  uint64_t offset = 0;  // in the table written
  uint64_t size = 0;    // bytes in the file: plain block header, then the zlib stream
  std::string last_key;
};

// git cleans reflog messages again when it compacts: trailing newlines go, exactly one is
// added; a message that still has an inner newline (JGit writes those) is kept as it is.
inline void NormalizeLogMessage(std::string* m) {
  size_t end = m->size();
  while (end > 0 && (*m)[end - 1] == '\n') --end;
  if (m->find('\n') < end) return;
  m->resize(end);
  m->push_back('\n');
}

// Whether NormalizeLogMessage leaves `m` as it is.
inline bool IsNormalizedLogMessage(std::string_view m) {
  size_t end = m.size();
  while (end > 0 && m[end - 1] == '\n') --end;
  return m.find('\n') < end || m.size() == end + 1;
}

struct WrittenLogBlocks {
  WriteOptions options;  // of the writer that wrote them
  std::vector<WrittenLogBlock> blocks;
  uint64_t records = 0;
  bool deletions = false;           // some record is a tombstone (a merge to the base drops it)
  bool starts_table = false;        // the first log block is the table's first block
  bool messages_normalized = true;  // a compaction would store every message as it is
  // Whether a merge writing with `o` would encode these records into these blocks.
  bool CopyableWith(const WriteOptions& o) const {
    return !blocks.empty() && !starts_table && messages_normalized &&
           o.block_size == options.block_size && o.restart_interval == options.restart_interval &&
           o.unpadded == options.unpadded && o.hash_id == options.hash_id &&
           o.exact_log_message == options.exact_log_message;
  }
};

struct TableLogBlocks {
  // From now on `w` records the log blocks it writes in `*out`, which must outlive it.
  static void Record(TableWriter& w, WrittenLogBlocks* out) { w.impl_->SetLogBlockRecord(out); }
  // Ends `w`'s ref section and appends `blocks` as its log section, copied from `table`
  // (`table_size` bytes, the table they were written to). InvalidArgument, with nothing
  // written, when they cannot be copied: `w` has written no ref yet (its first block would
  // be a log block), has logs already, or was made with other options than `blocks`.
  static Status Copy(TableWriter& w, const uint8_t* table, uint64_t table_size,
                     const WrittenLogBlocks& blocks) {
    return w.impl_->CopyLogBlocks(table, table_size, blocks);
  }
  // From now on `w` compresses every log block on the caller's thread (by default, a log
  // section of several blocks has every other block compressed on a second thread; the
  // bytes are the same either way). For tests that compare the two.
  static void CompressOnOneThread(TableWriter& w) { w.impl_->SetBackgroundCompression(false); }
};

}  // namespace reftab

#endif  // REFTAB_STORE_TABLE_LOG_BLOCKS_H_
