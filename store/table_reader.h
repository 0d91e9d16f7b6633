// Public API: reading one reftable file.
//
// Open() reads the footer first, verifies its CRC and cross-checks it with the header; block
// data is then served straight from the file's mapping. A TableReader is immutable after
// Open and may be shared by any number of iterators and threads.
//
// Every iterator here keeps one key buffer and decodes keys in place; Next() fills a
// caller-provided record, reusing its buffers, so a scan allocates nothing per record.
// Errors (corrupt blocks) are sticky: Next() returns false and status() names the file and
// the offset.
#ifndef REFTAB_STORE_TABLE_READER_H_
#define REFTAB_STORE_TABLE_READER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/block_reader.h"
#include "format/compression.h"
#include "format/header.h"
#include "format/record.h"
#include "format/record_codec.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/file.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class TableReader;
class RefBlockIndex;  // store/ref_block_index.h, not installed

namespace internal {

struct TableReaderAblation;  // store/table_reader_ablation.h, not installed

// Walks the records of one section (refs, objs, logs, or an index level), moving from block
// to block while the next block has the section's type.
class SectionCursor {
 public:
  SectionCursor(const TableReader* table, BlockType type) : table_(table), type_(type) {}

  // Positions before the first record of the section (empty if the section is absent).
  Status SeekToFirst();
  // Positions before the first record with key >= want, using the section's index when
  // there is one.
  Status Seek(std::string_view want);
  // Advances to the next record and decodes its key; false at the end or on error.
  REFTAB_HOT_INLINE bool NextKey() {
    if (!active_) return false;
    if (it_.NextKey()) return true;
    return NextBlock();
  }
  BlockIterator& it() { return it_; }
  const BlockIterator& it() const { return it_; }
  const Status& status() const { return status_; }
  // Records a malformed value at the current position.
  void FailValue();

 private:
  bool NextBlock();
  Status Load(uint64_t offset);
  Status SeekLinear(uint64_t start, std::string_view want);
  Status Corrupt(std::string_view what);

  const TableReader* table_;
  BlockType type_;
  BlockIterator it_;
  bool active_ = false;
  Status status_;
  std::vector<uint8_t> log_buf_;
  std::unique_ptr<Inflater> inflater_;
};

}  // namespace internal

// Iterates the ref records of one table, tombstones included, in name order.
//
// Next() = NextKey() + ReadValue(). The split lets a merge compare the keys of several
// tables in place and decode only the record it returns.
class TableRefIterator {
 public:
  explicit TableRefIterator(const TableReader* table);
  Status SeekToFirst() { return cursor_.SeekToFirst(); }
  // Positions before the first ref whose name is >= `name`.
  Status Seek(std::string_view name) { return cursor_.Seek(name); }
  // Fills `*ref` with the next record; false at the end or on error (see status()).
  REFTAB_HOT_INLINE bool Next(RefRecord* ref) { return NextKey() && ReadValue(ref); }
  const Status& status() const { return cursor_.status(); }

  // Advances to the next record and decodes only its key; false at the end or on error.
  REFTAB_HOT_INLINE bool NextKey() { return cursor_.NextKey(); }
  // The current record's key (its refname) and value type (0: a tombstone). Valid until the
  // next NextKey().
  std::string_view key() const { return cursor_.it().key(); }
  uint8_t value_type() const { return cursor_.it().value_type(); }
  // See BlockIterator::set_track_lcp(): the common prefix of the key with the previous one.
  void set_track_lcp(bool on) { cursor_.it().set_track_lcp(on); }
  uint32_t lcp() const { return cursor_.it().lcp(); }
  // Fills `*ref` with the current record; false (and status() set) if it is malformed.
  REFTAB_HOT_INLINE bool ReadValue(RefRecord* ref) {
    BlockIterator& it = cursor_.it();
    std::string_view k = it.key();
    ref->refname.assign(k.data(), k.size());
    ByteReader in = it.value();
    if (!codec::GetRefValue(in, it.value_type(), min_update_index_, hash_size_, ref)) {
      cursor_.FailValue();
      return false;
    }
    it.ValueDone(in);
    return true;
  }

 private:
  internal::SectionCursor cursor_;
  uint64_t min_update_index_;
  size_t hash_size_;
};

// Iterates the log records of one table: by name, newest update index first.
class TableLogIterator {
 public:
  explicit TableLogIterator(const TableReader* table);
  Status SeekToFirst() { return cursor_.SeekToFirst(); }
  // Positions at the newest entry of `refname` (or the first entry after it).
  Status Seek(std::string_view refname);
  // Positions at the entry (refname, update_index) or the first one after it.
  Status SeekAt(std::string_view refname, uint64_t update_index);
  bool Next(LogRecord* log) { return NextKey() && ReadValue(log); }
  const Status& status() const { return cursor_.status(); }

  // As for TableRefIterator: the key is refname || 0 || be64(~update_index), so byte order
  // of keys is (name, newest first).
  bool NextKey() { return cursor_.NextKey(); }
  std::string_view key() const { return cursor_.it().key(); }
  uint8_t value_type() const { return cursor_.it().value_type(); }
  void set_track_lcp(bool on) { cursor_.it().set_track_lcp(on); }
  uint32_t lcp() const { return cursor_.it().lcp(); }
  bool ReadValue(LogRecord* log);

 private:
  internal::SectionCursor cursor_;
  size_t hash_size_;
  std::string key_;
};

class TableReader {
 public:
  // Opens and validates `file` (footer, CRC, header copy).
  static Result<std::unique_ptr<TableReader>> Open(std::unique_ptr<RandomAccessFile> file);
  // Convenience for tests and fuzzers: a table held in memory.
  static Result<std::unique_ptr<TableReader>> OpenBytes(std::string name, std::string bytes);
  ~TableReader();

  const std::string& name() const { return file_->name(); }
  uint64_t file_size() const { return file_->size(); }
  const TableHeader& header() const { return footer_.header; }
  const TableFooter& footer() const { return footer_; }
  HashId hash_id() const { return footer_.header.hash_id; }
  size_t hash_size() const { return footer_.header.hash_size(); }
  uint64_t min_update_index() const { return footer_.header.min_update_index; }
  uint64_t max_update_index() const { return footer_.header.max_update_index; }
  const BlockSource& source() const { return source_; }

  // Start offsets of the sections, or false if the table has none of that kind.
  bool RefSectionStart(uint64_t* offset) const;
  bool LogSectionStart(uint64_t* offset) const;
  bool ObjSectionStart(uint64_t* offset) const;
  uint64_t IndexPosition(BlockType section) const;

  // Exact lookup, the fast path: one index descent and one in-block seek, no iterator
  // object. Sets *found and fills *ref when the table has a record for `name`; a tombstone
  // counts as found (callers treat it as "deleted here").
  Status ReadRef(std::string_view name, RefRecord* ref, bool* found) const;

  // ReadRef in two halves, so that a stack can overlap the memory latency of its tables:
  // LocateRef descends the index to the ref block that may hold `name` and asks the CPU to
  // fetch that block's header, restart table and restart keys (*pos = kNoBlock: the table
  // cannot hold `name`); ReadRefAt finishes the lookup there. ReadRef is the two in a row.
  static constexpr uint64_t kNoBlock = ~uint64_t(0);
  Status LocateRef(std::string_view name, uint64_t* pos) const;
  Status ReadRefAt(uint64_t pos, std::string_view name, RefRecord* ref, bool* found) const;

  // For exact lookups across a stack: false if this table certainly holds no record (value
  // or tombstone) for `name`, true if it may. The answer comes from a RefFilter
  // (store/ref_filter.h) that the table builds once lookups have shown it pays: after about
  // one query per KiB of table, the cost of the build (one pass over the ref keys) is
  // matched by the searches it saves. Until then, and if the build fails (a corrupt table:
  // the lookup itself reports it), the answer is true. Thread-safe; building never blocks
  // a concurrent caller.
  // Takes the name as RefFilter::Hash(name), computed once for all tables of a stack.
  bool RefMayExist(uint64_t name_hash) const;
  // The filter's size in bytes (0 while it is not built), for memory reports.
  size_t ref_filter_bytes() const;
  // The same for the flattened ref index that LocateRef switches to after about one lookup
  // per 32 KiB of table (store/ref_block_index.h).
  size_t ref_block_index_bytes() const;

  // Appends every ref whose value or peeled value equals `id` (tombstones never match).
  // Uses the obj index when present, otherwise scans.
  Status RefsFor(const ObjectId& id, std::vector<RefRecord>* out) const;

  // Calls `fn` for every block in file order, for dumps and verification.
  Status ForEachBlock(const std::function<Status(const BlockView&)>& fn) const;

  // "<name>: <message>" for a corruption found at a position in this table.
  Status Error(std::string_view what) const;

  // Descends the index of a section from its top level at `index_pos` to the block of type
  // `leaf` that holds the first key >= want. *found is false when every key is smaller.
  // Reads keys in place; allocates nothing.
  Status DescendIndex(uint64_t index_pos, BlockType leaf, std::string_view want, uint64_t* offset,
                      bool* found) const;

  // Called where a block of `section` ends at `next` and the block there is not one more of
  // its kind: Ok when the section may end there (the end of the block data, its own index,
  // or a later section the footer points at), Corruption otherwise, so that a damaged type
  // byte is reported instead of silently cutting the section short.
  Status CheckSectionEnd(uint64_t next, BlockType section) const;

 private:
  TableReader(std::unique_ptr<RandomAccessFile> file, const TableFooter& footer);
  Status ScanRefsFor(const ObjectId& id, std::vector<RefRecord>* out) const;
  bool BuildRefFilter() const;
  const RefBlockIndex* MaybeBuildRefBlockIndex() const;
  bool AddIndexLevel(uint64_t pos, int depth, uint64_t* budget, RefBlockIndex* out,
                     uint64_t* block_size = nullptr) const;
  // Switches the lookup aids on or off (internal::TableReaderAblation).
  void SetLookupAids(bool on) const;

  std::unique_ptr<RandomAccessFile> file_;
  TableFooter footer_;
  BlockSource source_;
  // What RefMayExist and LocateRef build lazily, shared between threads (table_reader.cc).
  struct LookupAids;
  std::unique_ptr<LookupAids> aids_;
  friend struct internal::TableReaderAblation;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_TABLE_READER_H_
