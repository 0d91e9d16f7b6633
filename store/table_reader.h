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

#include "format/constants.h"
#include "format/header.h"
#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/file.h"

namespace reftab {

// Not installed, and kept out of the exports below: declared before REFTAB_PUBLIC_BEGIN
// because a class takes its visibility from its first declaration.
class RefBlockIndex;  // store/ref_block_index.h, not installed
struct BlockSource;   // format/block_reader.h, not installed
struct BlockView;     // format/block_reader.h, not installed
struct BlockFind;     // format/block_reader.h, not installed
class ByteReader;     // format/bytes.h, not installed

REFTAB_PUBLIC_BEGIN

class TableReader;

// Iterates the ref records of one table, tombstones included, in name order.
//
// Next() = NextKey() + ReadValue(): a caller that wants only some records (no tombstones,
// say) can look at key() and value_type() and decode only those. Each call goes into the
// library; a moved-from iterator may only be destroyed or assigned to.
class TableRefIterator {
 public:
  explicit TableRefIterator(const TableReader* table);
  ~TableRefIterator();
  TableRefIterator(TableRefIterator&&) noexcept;
  TableRefIterator& operator=(TableRefIterator&&) noexcept;

  Status SeekToFirst();
  // Positions before the first ref whose name is >= `name`.
  Status Seek(std::string_view name);
  // Fills `*ref` with the next record; false at the end or on error (see status()).
  bool Next(RefRecord* ref);
  const Status& status() const;

  // Advances to the next record and decodes only its key; false at the end or on error.
  bool NextKey();
  // The current record's key (its refname) and value type (0: a tombstone). Valid until the
  // next NextKey().
  std::string_view key() const;
  uint8_t value_type() const;
  // Fills `*ref` with the current record; false (and status() set) if it is malformed.
  bool ReadValue(RefRecord* ref);

 private:
  struct Impl;  // store/table_iterators.cc
  std::unique_ptr<Impl> impl_;
};

// Iterates the log records of one table: by name, newest update index first.
class TableLogIterator {
 public:
  explicit TableLogIterator(const TableReader* table);
  ~TableLogIterator();
  TableLogIterator(TableLogIterator&&) noexcept;
  TableLogIterator& operator=(TableLogIterator&&) noexcept;

  Status SeekToFirst();
  // Positions at the newest entry of `refname` (or the first entry after it).
  Status Seek(std::string_view refname);
  // Positions at the entry (refname, update_index) or the first one after it.
  Status SeekAt(std::string_view refname, uint64_t update_index);
  bool Next(LogRecord* log);
  const Status& status() const;

  // As for TableRefIterator: the key is refname || 0 || be64(~update_index), so byte order
  // of keys is (name, newest first).
  bool NextKey();
  std::string_view key() const;
  uint8_t value_type() const;
  bool ReadValue(LogRecord* log);

 private:
  struct Impl;  // store/table_iterators.cc
  std::unique_ptr<Impl> impl_;
};

class TableReader {
 public:
  // The most index levels a lookup descends through before it calls the index a loop: a
  // valid table has few (each level divides the blocks below it by its records per block).
  static constexpr int kMaxIndexDepth = 16;

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
  // Where the block decoder (format/block_reader.h, not installed) finds this table's blocks.
  const BlockSource& source() const { return *source_; }

  // Start offsets of the sections, or false if the table has none of that kind.
  bool RefSectionStart(uint64_t* offset) const;
  bool LogSectionStart(uint64_t* offset) const;
  bool ObjSectionStart(uint64_t* offset) const;
  uint64_t IndexPosition(BlockType section) const;

  // Exact lookup, the fast path: one index descent and one in-block seek, no iterator
  // object; after about one lookup per KiB of table, one probe of a hash index that the
  // table builds then (about 12 bytes per ref) and a walk of a few records of one block.
  // Sets *found and fills *ref when the table has a record for `name`; a tombstone counts
  // as found (callers treat it as "deleted here"). *found is false when it fails.
  Status ReadRef(std::string_view name, RefRecord* ref, bool* found) const;

  // Exact lookup across `n` tables in a stack's order (oldest first): the record for `name`
  // from the newest table that has one, a tombstone included, as ReadRef gives it (*found
  // false: none has). Overlaps the tables' memory latency; uses each table's hash index
  // once it is built (after about one lookup per KiB of that table, as for ReadRef) and its
  // filter and on-disk index until then.
  static Status ReadRefNewest(const TableReader* const* tables, size_t n, std::string_view name,
                              RefRecord* ref, bool* found);

  // For exact lookups across a stack (ReadRefNewest uses it until the table's hash index,
  // which answers the same question, is built): false if this table certainly holds no record
  // (value or tombstone) for `name`, true if it may. The answer comes from a RefFilter
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
  // The same for the hash index that ReadRef and ReadRefNewest switch to after about one
  // lookup per KiB of table (about 12 bytes per ref).
  size_t ref_hash_index_bytes() const;
  // Whether this table may build the three aids above (default: yes). Off, the table's memory
  // stays the mapping alone and repeated lookups stay as slow as the first; answers never
  // change. Thread-safe; an aid already built stays in use.
  void set_lookup_aids(bool on) const;
  // Whether it may (a stack's whole scans also keep their merge order only while every
  // table may).
  bool lookup_aids() const;

  // Appends every ref whose value or peeled value equals `id` (tombstones never match).
  // Uses the obj index when present, otherwise scans.
  Status RefsFor(const ObjectId& id, std::vector<RefRecord>* out) const;

  // Hints that the bytes [offset, offset + length) of the file will not be read again soon
  // (RandomAccessFile::Release): a pass over the whole table then holds only what it reads
  // at the moment. Reads stay correct, only slower if they come back there.
  void ReleasePages(uint64_t offset, uint64_t length) const { file_->Release(offset, length); }
  // Copies the file's bytes [offset, offset + length) into `out` through a read rather than
  // the mapping (RandomAccessFile::ReadInto), for scans that read ahead. False if they
  // cannot be read that way; source() still has them.
  bool CopyBytes(uint64_t offset, uint64_t length, uint8_t* out) const {
    return file_->ReadInto(offset, length, out);
  }
  // Lookups (ReadRef, ReadRefNewest) copy a symref target of this many bytes or more (a
  // key/value store's large value) with CopyBytes rather than from the mapping, falling
  // back to the mapping if that read fails: on the virtual machines we measure on, the
  // first touch of a mapped page costs several microseconds, and lookups among many large
  // values mostly touch pages for the first time (random reads of a 300 MB table, 16 KiB:
  // 17-18 us a copy through a fresh mapping, 8-9 us on a second pass, 3.5 us with pread;
  // 100 KiB: 32 us through a fresh mapping, 5.5 us once every page is mapped, 7.5 us with
  // pread).
  static constexpr size_t kReadTargetBytes = size_t(8) << 10;

  // Calls `fn` for every block in file order, for dumps and verification.
  Status ForEachBlock(const std::function<Status(const BlockView&)>& fn) const;

  // "<name>: <message>" for a corruption found at a position in this table.
  Status Error(std::string_view what) const;

  // Descends the index of a section from its top level at `index_pos` to the block of type
  // `leaf` that holds the first key >= want. *found is false when every key is smaller.
  // Reads keys in place; allocates nothing.
  Status DescendIndex(uint64_t index_pos, BlockType leaf, std::string_view want, uint64_t* offset,
                      bool* found) const;

  // DescendIndex for a section whose index is at IndexPosition(section) != 0, through the
  // flattened ref index for refs once lookups built it (one binary search over contiguous
  // keys instead of decoding index blocks; seeks count towards its build as lookups do).
  Status FindIndexedBlock(BlockType section, std::string_view want, uint64_t* offset,
                          bool* found) const;

  // For a seek to `name` (SectionCursor::Seek): where this table's record for exactly `name`
  // starts, from the ref hash index (store/ref_hash_index.h), skipping the index descent
  // and the search inside the block. kFound: *block_offset and *record (from the block's
  // start) are set, and the record's key was compared whole with `name`. kAbsent: the index
  // proves the table holds no record for it. kNoIndex: the index is not built (the call
  // counts toward its build as a lookup does). An error: the record the index names does
  // not read cleanly (the message names the file and offset).
  enum class ExactRef : uint8_t { kNoIndex, kAbsent, kFound };
  Status FindExactRef(std::string_view name, uint64_t* block_offset, uint32_t* record,
                      ExactRef* result) const;

  // Called where a block of `section` ends at `next` and the block there is not one more of
  // its kind: Ok when the section may end there (the end of the block data, its own index,
  // or a later section the footer points at), Corruption otherwise, so that a damaged type
  // byte is reported instead of silently cutting the section short.
  Status CheckSectionEnd(uint64_t next, BlockType section) const;

 private:
  TableReader(std::unique_ptr<RandomAccessFile> file, const TableFooter& footer);
  // ReadRef in two halves, so that ReadRefNewest can overlap the memory latency of a stack's
  // tables: LocateRef descends the index to the ref block that may hold `name` and asks the
  // CPU to fetch that block's header, restart table and restart keys (*pos = kNoBlock: the
  // table cannot hold `name`); ReadRefAt finishes the lookup there.
  static constexpr uint64_t kNoBlock = ~uint64_t(0);
  Status LocateRef(std::string_view name, uint64_t* pos) const;
  Status ReadRefAt(uint64_t pos, std::string_view name, RefRecord* ref, bool* found) const;
  // LocateRef without the prefetch.
  Status FindRefBlock(std::string_view name, uint64_t* pos) const;
  // A lookup's found record's value, from `in` (its bytes in a ref block, from the update
  // index on) into *ref, as codec::GetRefValue decodes it, long targets with CopyBytes
  // (kReadTargetBytes); false if malformed.
  bool GetFoundValue(ByteReader in, uint8_t value_type, RefRecord* ref) const;
  // Decodes the value FindInBlock found for `name` into *ref.
  Status ReadFound(const BlockView& view, const BlockFind& f, std::string_view name,
                   RefRecord* ref) const;
  Status ScanRefsFor(const ObjectId& id, std::vector<RefRecord>* out) const;
  bool BuildRefFilter() const;
  const RefBlockIndex* MaybeBuildRefBlockIndex() const;
  bool AddIndexLevel(uint64_t pos, int depth, uint64_t* budget, RefBlockIndex* out,
                     uint64_t* block_size = nullptr) const;

  std::unique_ptr<RandomAccessFile> file_;
  TableFooter footer_;
  std::unique_ptr<BlockSource> source_;
  // What RefMayExist and LocateRef build lazily, shared between threads (table_reader.cc).
  struct LookupAids;
  std::unique_ptr<LookupAids> aids_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_TABLE_READER_H_
