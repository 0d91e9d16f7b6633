// Internal, not installed (store/meson.build leaves it out of store_public_headers): the
// cursors over one table's records that every scan inside the library uses, defined here
// so that their per-record steps (key decoding, value decoding) inline into the caller's
// loop. The public TableRefIterator and TableLogIterator (store/table_reader.h) wrap them
// behind a pointer, so that users of the installed headers see none of this and need not
// recompile when it changes.
#ifndef REFTAB_STORE_SECTION_CURSOR_H_
#define REFTAB_STORE_SECTION_CURSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/block_reader.h"
#include "format/bytes.h"
#include "format/compression.h"
#include "format/record.h"
#include "format/record_codec.h"
#include "format/status.h"
#include "store/readahead_window.h"
#include "store/ref_view.h"
#include "store/table_reader.h"

namespace reftab {

// "ref", "log", "obj" or "index", for messages.
inline const char* SectionName(BlockType t) {
  switch (t) {
    case BlockType::kRef: return "ref";
    case BlockType::kLog: return "log";
    case BlockType::kObj: return "obj";
    case BlockType::kIndex: return "index";
  }
  return "?";
}

// Walks the records of one section (refs, objs, logs, or an index level), moving from block
// to block while the next block has the section's type.
class SectionCursor {
 public:
  SectionCursor(const TableReader* table, BlockType type) : table_(table), type_(type) {}
  const TableReader* table() const { return table_; }

  // Positions before the first record of the section (empty if the section is absent).
  Status SeekToFirst();
  // Positions before the first record with key >= want, using the section's index when
  // there is one.
  Status Seek(std::string_view want);
  // As Seek, and the records end before the first key >= limit (none if limit is empty):
  // the end of the range is found once, by a lookup, and the block holding it is cut short
  // there (BlockIterator::LimitTo), so the scan compares no key against the limit. Not for
  // log sections (their blocks are compressed).
  Status SeekRange(std::string_view want, std::string_view limit);
  // Advances to the next record and decodes its key; false at the end or on error.
  // Whether the cursor is active is checked only at the end of a block (NextBlock): an
  // inactive cursor's block iterator is stopped (Stop()), so that it has no record to give.
  REFTAB_FORCE_INLINE bool NextKey() {
    if (it_.NextKey()) [[likely]]
      return true;
    return NextBlock();
  }
  BlockIterator& it() { return it_; }
  const BlockIterator& it() const { return it_; }
  const Status& status() const { return status_; }
  // Records a malformed value at the current position.
  void FailValue();

  // Read ahead (off by default; not for log sections): once the blocks NextBlock has left
  // one after another hold `after_bytes` (ReadaheadWindow::kAfterBytes by default;
  // kFromTheSecondBlock for a pass over every block), the following blocks are decoded
  // from a window of the file (store/readahead_window.h) instead of from the mapping. A seek
  // starts the count again. What this costs the caller: a view into the current block (a
  // record's value) is valid only until the cursor moves, not for the table's lifetime.
  // Errors are never reported from a window: a block it cannot decode is read from the
  // mapping, which names the file's offset; a failed read turns the read-ahead off.
  void set_readahead(bool on, uint64_t after_bytes = ReadaheadWindow::kAfterBytes) {
    readahead_ = on && type_ != BlockType::kLog;
    readahead_after_ = after_bytes;
  }

 private:
  bool NextBlock();
  // NextBlock's read-ahead: loads the block at `offset` (> 0) from the window, refilling it
  // as needed. False if it did not (the section ended, the block is malformed or the read
  // failed): the caller then goes to the mapping.
  bool LoadAhead(uint64_t offset);
  // Starts reading the records of a decoded block.
  void Enter(const BlockView& view);
  // Ends the records: inactive, and the block iterator has none left (every path that
  // ends the section or fails goes through here, NextKey() relies on it).
  void Stop();
  // Where the section of this cursor's type starts; false if the table has none.
  bool SectionStart(uint64_t* start) const;
  Status Load(uint64_t offset);
  Status SeekFrom(std::string_view want);
  // Whether a seek first asks the table's hash index for a record with exactly the key
  // sought (TableReader::FindExactRef): found, the seek lands on it without the index
  // descent and the search of its block. For a key the table lacks the probe is wasted (a
  // cache miss): after kExactMissRun such seeks in a row, only one seek in kExactRetry
  // asks, until one finds its key again.
  bool TryExact() {
    if (exact_misses_ < kExactMissRun) return true;
    return ++exact_skips_ % kExactRetry == 0;
  }
  // Finds where the records >= limit start and sets bound_block_ / bound_pos_.
  Status PlaceBound(std::string_view limit);
  Status SeekLinear(uint64_t start, std::string_view want);
  Status Corrupt(std::string_view what);

  const TableReader* table_;
  BlockType type_;
  BlockIterator it_;
  bool active_ = false;
  // SeekRange's end: the record at bound_pos_ in the block at bound_block_ (and everything
  // after it) is outside the range.
  bool bounded_ = false;
  uint32_t bound_pos_ = 0;
  uint64_t bound_block_ = 0;
  Status status_;
  std::vector<uint8_t> log_buf_;
  std::unique_ptr<Inflater> inflater_;
  bool readahead_ = false;
  uint64_t readahead_after_ = ReadaheadWindow::kAfterBytes;
  uint64_t passed_ = 0;  // the bytes of the blocks NextBlock left since the last seek
  static constexpr uint8_t kExactMissRun = 8;
  static constexpr uint8_t kExactRetry = 16;
  uint8_t exact_misses_ = 0;  // seeks in a row whose key the hash index proved absent
  uint8_t exact_skips_ = 0;   // seeks since TryExact last said yes, while misses ran
  std::unique_ptr<ReadaheadWindow> window_;  // made at the first read ahead
};

// The ref records of one table, tombstones included, in name order.
//
// Next() = NextKey() + ReadValue(). The split lets a merge compare the keys of several
// tables in place and decode only the record it returns.
class TableRefCursor {
 public:
  explicit TableRefCursor(const TableReader* table)
      : cursor_(table, BlockType::kRef),
        min_update_index_(table->min_update_index()),
        hash_size_(table->hash_size()),
        fast_ids_(hash_size_ == kSha1Size ? 2 : 0) {}
  Status SeekToFirst() { return cursor_.SeekToFirst(); }
  // Positions before the first ref whose name is >= `name`.
  Status Seek(std::string_view name) { return cursor_.Seek(name); }
  // As Seek, and the refs end before the first name >= `limit` (no end if it is empty).
  Status SeekRange(std::string_view name, std::string_view limit) {
    return cursor_.SeekRange(name, limit);
  }
  // Fills `*ref` with the next record; false at the end or on error (see status()).
  REFTAB_HOT_INLINE bool Next(RefRecord* ref) { return NextKey() && ReadValue(ref); }
  const Status& status() const { return cursor_.status(); }

  // Advances to the next record and decodes only its key; false at the end or on error.
  REFTAB_FORCE_INLINE bool NextKey() { return cursor_.NextKey(); }
  // The current record's key (its refname) and value type (0: a tombstone). Valid until the
  // next NextKey().
  std::string_view key() const { return cursor_.it().key(); }
  static constexpr uint32_t kKeyReadSlack = BlockIterator::kKeyReadSlack;  // past key()
  uint8_t value_type() const { return cursor_.it().value_type(); }
  // See BlockIterator::set_track_lcp(): the common prefix of the key with the previous one.
  void set_track_lcp(bool on) { cursor_.it().set_track_lcp(on); }
  // See SectionCursor::set_readahead: views of values (RefView) then last only until the
  // cursor moves.
  void set_readahead(bool on, uint64_t after_bytes = ReadaheadWindow::kAfterBytes) {
    cursor_.set_readahead(on, after_bytes);
  }
  const TableReader* table() const { return cursor_.table(); }
  // Where the block of the current record starts in the table (0 before the first block).
  uint64_t block_offset() const { return cursor_.it().block().offset; }
  uint32_t lcp() const { return cursor_.it().lcp(); }
  // Fills `*ref` with the current record; false (and status() set) if it is malformed.
  REFTAB_FORCE_INLINE bool ReadValue(RefRecord* ref) {
    // The value first: the next record's position depends on it, and the name's byte stores
    // (which may alias anything) would make the compiler load the value's position again
    // from memory, one more step in the chain of loads from record to record.
    if (!DecodeValue(ref)) return false;
    AssignName(cursor_.it().key(), &ref->refname);
    return true;
  }
  // The same without the name: `ref->refname` is left as it was (the name stays in key()).
  REFTAB_HOT_INLINE bool ReadValueOnly(RefRecord* ref) { return DecodeValue(ref); }
  // The same into a RefView: the value is a view of the table's bytes, not a copy.
  REFTAB_FORCE_INLINE bool ReadValue(RefView* ref) {
    if (!DecodeView(ref)) return false;
    AssignName(cursor_.it().key(), &ref->refname);
    return true;
  }
  REFTAB_FORCE_INLINE bool ReadValueOnly(RefView* ref) { return DecodeView(ref); }

 private:
  // The value of the current record into `*ref`. The common values of a scan, a one-byte
  // update index delta and one SHA-1 (or two: an annotated tag's), are decoded here with
  // raw pointers and one length check; the rest go to codec::GetRefValue, out of line.
  // Forced inline into ReadValue: scans rely on ReadValue being one inlinable step (a call
  // from it to a shared body cost 43 instructions per ref, callgrind).
  REFTAB_FORCE_INLINE bool DecodeValue(RefRecord* ref) {
    BlockIterator& it = cursor_.it();
    const uint8_t* v = it.value_data();
    const uint32_t ids = uint32_t(it.value_type()) - 1;  // 0: one id, 1: two, else other
    if (ids < fast_ids_ && size_t(it.records_end() - v) > kSha1Size * (ids + 1) && v[0] < 0x80)
        [[likely]] {
      ref->update_index = min_update_index_ + v[0];
      ref->value_type = RefValueType(ids + 1);
      std::memcpy(ref->value.data(), v + 1, kSha1Size);
      if (ids != 0) std::memcpy(ref->peeled.data(), v + 1 + kSha1Size, kSha1Size);
      it.ValueDoneAt(v + 1 + kSha1Size * (ids + 1));
      return true;
    }
    return DecodeOtherValue(ref);
  }
  // DecodeValue's general case: any hash size, long varints, tombstones, symrefs, and
  // malformed values (false, status() set).
  [[gnu::noinline]] bool DecodeOtherValue(RefRecord* ref);
  REFTAB_FORCE_INLINE bool DecodeView(RefView* ref) {
    BlockIterator& it = cursor_.it();
    if (const uint8_t* after = GetShortKvValue(it.value_type(), it.value_data(), it.records_end(),
                                               &ref->value)) [[likely]] {
      ref->value_type = 3;
      it.ValueDoneAt(after);
      return true;
    }
    ByteReader in = it.value();
    ref->value_type = it.value_type();
    if (!GetRefValueView(in, ref->value_type, hash_size_, &ref->value)) [[unlikely]] {
      cursor_.FailValue();
      return false;
    }
    it.ValueDone(in);
    return true;
  }

  // name.assign(key), for a scan: a name as long as the one it replaces (the usual case:
  // ref names come in families, refs/heads/topic/1234...) is copied inline (CopyShort) over
  // it; std::string::assign's aliasing checks and memcpy call cost more than the copy of a
  // short name. Other lengths go through assign, out of line, so that ReadValue stays small
  // enough for the merge's loops (callgrind: any std::string call kept inline here pushed
  // a call out of the stack's scan loop).
  REFTAB_FORCE_INLINE static void AssignName(std::string_view key, std::string* name) {
    if (key.size() == name->size()) {
      CopyShort(name->data(), key.data(), key.size());
    } else {
      AssignOther(key, name);
    }
  }
  [[gnu::noinline]] static void AssignOther(std::string_view key, std::string* name) {
    name->assign(key.data(), key.size());
  }

  SectionCursor cursor_;
  uint64_t min_update_index_;
  size_t hash_size_;
  // DecodeValue's fast path takes value types below fast_ids_ + 1: 1 and 2 for SHA-1
  // tables, none for others (one comparison instead of a type check and a hash check).
  uint32_t fast_ids_;
};

// The log records of one table: by name, newest update index first.
class TableLogCursor {
 public:
  explicit TableLogCursor(const TableReader* table)
      : cursor_(table, BlockType::kLog), hash_size_(table->hash_size()) {}
  Status SeekToFirst() { return cursor_.SeekToFirst(); }
  // Positions at the newest entry of `refname` (or the first entry after it).
  Status Seek(std::string_view refname) { return SeekAt(refname, ~uint64_t(0)); }
  // Positions at the entry (refname, update_index) or the first one after it.
  Status SeekAt(std::string_view refname, uint64_t update_index);
  bool Next(LogRecord* log) { return NextKey() && ReadValue(log); }
  const Status& status() const { return cursor_.status(); }

  // As for TableRefCursor: the key is refname || 0 || be64(~update_index), so byte order
  // of keys is (name, newest first).
  bool NextKey() { return cursor_.NextKey(); }
  std::string_view key() const { return cursor_.it().key(); }
  static constexpr uint32_t kKeyReadSlack = BlockIterator::kKeyReadSlack;  // past key()
  uint8_t value_type() const { return cursor_.it().value_type(); }
  void set_track_lcp(bool on) { cursor_.it().set_track_lcp(on); }
  const TableReader* table() const { return cursor_.table(); }
  uint32_t lcp() const { return cursor_.it().lcp(); }
  bool ReadValue(LogRecord* log);

 private:
  SectionCursor cursor_;
  size_t hash_size_;
  std::string key_;
};

}  // namespace reftab

#endif  // REFTAB_STORE_SECTION_CURSOR_H_
