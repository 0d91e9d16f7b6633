// Internal, not installed: the window of a table's bytes that a cursor reading ahead decodes
// blocks from (SectionCursor and TableRefReverseCursor, set_readahead). Long scans copy the
// table with TableReader::CopyBytes (pread) into one buffer the cursor reuses, instead of
// touching the file's mapping: on virtual machines with shadow page tables the first touch
// of a mapped page costs several microseconds (on the 2-core VM we measure on, a 100 MB table
// scanned through the mapping took 52-55 ms in page touches alone, against 16-17 ms read
// with pread), and the scan holds no pages of the mapping afterwards.
//
// A window is refilled forward (starting where the scan is) or backward (ending there),
// kFirst bytes the first time, twice as many at each refill up to kMax, or one block if it
// is larger (forward, a refill made to find a block's header takes the last block's length
// and a sixteenth more, when that is larger: a block longer than kMax is then read once).
// A refill overwrites the bytes of the block the cursor is leaving: what a cursor hands out
// of a window is valid only until the cursor moves.
#ifndef REFTAB_STORE_READAHEAD_WINDOW_H_
#define REFTAB_STORE_READAHEAD_WINDOW_H_

#include <cstdint>
#include <memory>

#include "format/block_reader.h"
#include "store/table_reader.h"

namespace reftab {

class ReadaheadWindow {
 public:
  // A cursor reads ahead, by default, once the blocks it has left one after another since
  // its last seek hold this many bytes: a lookup, or a seek followed by a few steps, stays
  // on the mapping whatever the size of the records. Counted in blocks (two, as before), a
  // seek followed by ten steps among values of 100 KiB (blocks of 512 KiB, five records
  // each) copied a whole block to give one or two records, and did so for most seeks:
  // 3,000 such seeks into a 325 MB table took 71-85 ms read ahead against 2.5-3.2 ms on the
  // mapping once its pages were mapped, and 160-289 ms against 77-79 ms when they were not.
  // What the bytes cost: a scan from a cold mapping reads its first 2 MiB there, at a few
  // microseconds a page on the VM we measure on (about a millisecond, once per scan).
  static constexpr uint64_t kAfterBytes = uint64_t(2) << 20;
  // The threshold for a pass over every block (a compaction's inputs): the window from the
  // second block on (the first carries the file header and is read from the mapping).
  static constexpr uint64_t kFromTheSecondBlock = 0;
  static constexpr uint64_t kFirst = uint64_t(64) << 10;
  static constexpr uint64_t kMax = uint64_t(256) << 10;

  // Makes the window hold the file's bytes [from, to), with to <= the end of the table's
  // blocks (BlockSource::table_size). A refill starts at `from` (forward) or ends at `to`
  // (backward). False if the range is empty or out of the blocks, or the read failed.
  bool Cover(const TableReader& table, uint64_t from, uint64_t to, bool backward);
  // Whether the window holds [from, to).
  bool Holds(uint64_t from, uint64_t to) const {
    return from >= start_ && to <= start_ + length_ && from < to;
  }
  // The byte at file offset `at`, which the window holds.
  const uint8_t* At(uint64_t at) const { return bytes_.get() + (at - start_); }
  // Decodes the block at file offset `offset` (not 0: the first block carries the file
  // header) from the window, as DecodeBlock would from the table: the window must hold the
  // block and the byte after it, if the table has one. The view's offset is the file's.
  // False (no message: the caller reads the block again from the table, which reports it
  // with the file's offsets) if the block is malformed.
  bool Decode(const TableReader& table, uint64_t offset, BlockView* view) const;

  enum class Load : uint8_t {
    kLoaded,
    kNotHere,     // no block of that type there, or a malformed one: read it from the table
    kReadFailed,  // the read failed: stop reading ahead, read from the table
  };
  // A forward scan's next block: the block of type `type` at file offset `offset` (not 0),
  // refilling the window forward as needed (its header first, for its length, then the
  // block and the byte after it). On kNotHere the caller goes to the table, which tells the
  // end of a section from a malformed block and reports the latter with the file's offsets.
  Load LoadForward(const TableReader& table, uint64_t offset, BlockType type, BlockView* view);

 private:
  std::unique_ptr<uint8_t[]> bytes_;
  uint64_t capacity_ = 0;
  uint64_t start_ = 0;
  uint64_t length_ = 0;
  uint64_t next_ = kFirst;    // the size of the next refill
  uint64_t last_length_ = 0;  // the last block LoadForward loaded, with the byte after it
};

}  // namespace reftab

#endif  // REFTAB_STORE_READAHEAD_WINDOW_H_
