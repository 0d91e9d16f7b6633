// Internal, not installed (store/meson.build leaves it out of store_public_headers): the
// table writer itself. The public TableWriter (store/table_writer.h) holds one behind a
// pointer, so that its state (block writer, index entries, obj index input) is not part of
// the installed headers and may change without users recompiling.
#ifndef REFTAB_STORE_TABLE_BUILDER_H_
#define REFTAB_STORE_TABLE_BUILDER_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/block_writer.h"
#include "format/bytes.h"
#include "format/compression.h"
#include "format/header.h"
#include "format/record.h"
#include "format/status.h"
#include "store/file.h"
#include "store/grow_array.h"
#include "store/table_writer.h"

namespace reftab {

class BackgroundDeflater;  // store/background_deflater.h
struct BlockView;          // format/block_reader.h
struct WrittenLogBlocks;   // store/table_log_blocks.h

// Compares two id tails (hash_size - 8 bytes: 12 or 24, a multiple of 4) as memcmp does,
// inline: with shared ids the obj index compares a tail per ref (a memcmp call took 215 of
// 1,150 instructions per ref on refs sharing 1,000 ids).
REFTAB_FORCE_INLINE int CompareIdTails(const uint8_t* a, const uint8_t* b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x = be::Load64(a + i), y = be::Load64(b + i);
    if (x != y) return x < y ? -1 : 1;
  }
  for (; i < n; i += 4) {
    uint32_t x = be::Load32(a + i), y = be::Load32(b + i);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// Whether two id tails (12 or 24 bytes) are equal: two or three 8-byte compares, the last
// overlapping for 12, with no byte swaps (CompareIdTails orders; this only matches).
REFTAB_FORCE_INLINE bool IdTailsEqual(const uint8_t* a, const uint8_t* b, size_t n) {
  auto word = [](const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  };
  uint64_t d = (word(a) ^ word(b)) | (word(a + n - 8) ^ word(b + n - 8));
  if (n > 16) d |= word(a + 8) ^ word(b + 8);
  return d == 0;
}

// Memory kept from one table to the next by whoever writes many (a Stack): the block
// buffer and the file's write buffer (BufferedSink's). Blocks of 512 KiB (values of 100 KiB)
// are built in a buffer of about 1 MiB and written through one of 1 MiB; fresh for each
// table, their pages cost a fault each (12-15 us on the VM of perf/RESULTS.md). At most
// kMaxKeptBytes of each is kept.
struct TableScratch {
  static constexpr size_t kMaxKeptBytes = size_t(4) << 20;
  // Keep `b` or `s` for the next table, unless larger than kMaxKeptBytes.
  void Keep(BlockWriter::Buffer b) {
    if (b.size <= kMaxKeptBytes) block = std::move(b);
  }
  void Keep(std::string s) {
    if (s.capacity() <= kMaxKeptBytes) sink = std::move(s);
  }
  BlockWriter::Buffer block;
  std::string sink;
};

// See TableWriter for the contract.
class TableBuilder {
 public:
  // `sink` must outlive the writer; so must `scratch` if not null: the writer builds its
  // blocks in the buffer that holds, and gives its own buffer back to it at the end.
  TableBuilder(const WriteOptions& options, WritableFile* sink, TableScratch* scratch = nullptr);
  ~TableBuilder();
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // Must be called before the first record. Ref update indexes must lie in [min, max];
  // log update indexes must be <= max.
  Status SetLimits(uint64_t min_update_index, uint64_t max_update_index);
  Status AddRef(const RefRecord& ref);
  Status AddRef(std::string_view refname, uint64_t update_index, const ObjectId& value);
  Status AddSymref(std::string_view refname, uint64_t update_index, std::string_view target);
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
  // `more_follow`: another block of the section comes after this one.
  Status FlushBlock(bool more_follow = false);
  Status FlushLogBlock(std::string_view raw, size_t index_slot, bool more_follow);
  Status WriteLogBlock(std::string_view stored, size_t index_slot);
  Status WritePendingLogBlock();  // the block the background thread holds, if any
  Status WriteBlock(std::string_view bytes, BlockType type);
  template <class Encode>
  Status AddRecord(BlockType type, std::string_view key, uint8_t value_type, size_t max_value,
                   Encode&& encode);
  // AddRef's fast path is open for a ref of this update index: a ref is in the block
  // (ref_block_open_) and the index within the limits. An empty name needs no test here:
  // the block has a ref, so TryAddInOrder finds it out of order and AddRefSlow refuses it
  // ("empty refname") before its order check.
  REFTAB_FORCE_INLINE bool FastRefOpen(uint64_t update_index) const {
    return ref_block_open_ && update_index - header_.min_update_index <= update_index_span_;
  }
  // After a ref was added: counts it and gives its object ids (null: none) to the obj
  // index. Ok always; a Status so that the AddRefs could end in a tail call (AddRefObjIds),
  // which g++ 12 does not make of a call returning a Status in memory.
  REFTAB_FORCE_INLINE Status RefAdded(const ObjectId* value, const ObjectId* peeled) {
    ++stats_.ref_records;
    if (!opts_.index_objects) return Status::Ok();
    // One id (a constant decision in AddRef by parts): a call with fewer live values.
    if (value != nullptr && peeled == nullptr) return AddRefObjId(*value);
    return AddRefObjIds(value, peeled);
  }
  REFTAB_FORCE_INLINE Status RefAdded(const RefRecord& ref) {
    bool one = ref.value_type == RefValueType::kVal1 || ref.value_type == RefValueType::kVal2;
    return RefAdded(one ? &ref.value : nullptr,
                    ref.value_type == RefValueType::kVal2 ? &ref.peeled : nullptr);
  }
  [[gnu::noinline]] Status AddRefObjIds(const ObjectId* value, const ObjectId* peeled);
  [[gnu::noinline]] Status AddRefObjId(const ObjectId& value);
  [[gnu::noinline]] Status AddRefSlow(const RefRecord& ref);
  // AddRef(name, update_index, value)'s slow path: the ref as a record, for AddRefSlow.
  [[gnu::noinline]] Status AddRefByParts(std::string_view refname, uint64_t update_index,
                                         const ObjectId& value);
  // AddSymref's slow path, the same way.
  [[gnu::noinline]] Status AddSymrefByParts(std::string_view refname, uint64_t update_index,
                                            std::string_view target);
  Status FinishSection(uint64_t* index_position);
  Status FinishPublicSection();
  Status WriteObjSection();
  Status Fail(Status s);
  friend struct TableLogBlocks;
  void SetLogBlockRecord(WrittenLogBlocks* out) { log_record_ = out; }
  void SetBackgroundCompression(bool on) { background_allowed_ = on; }
  Status CopyLogBlocks(const uint8_t* table, uint64_t table_size, const WrittenLogBlocks& blocks);
  friend struct TableRefBlocks;
  Status CopyRefBlock(const BlockView& block, std::string_view first_key, std::string_view last_key,
                      uint64_t records);

  WriteOptions opts_;
  WritableFile* sink_;
  size_t hash_size_;
  TableHeader header_;
  std::string header_bytes_;
  bool limits_set_ = false;
  bool finished_ = false;
  Status error_;

  BlockWriter block_;
  TableScratch* scratch_;
  bool block_open_ = false;
  // AddRef's fast path is open: no error, limits set, the ref section's current block is
  // open and holds a ref (so the block writer checks the next one's order). Set only by
  // AddRefSlow after a ref was added; cleared by it on entry and by FlushBlock.
  bool ref_block_open_ = false;
  uint64_t update_index_span_ = 0;  // max_update_index - min_update_index
  uint64_t block_start_ = 0;
  bool section_open_ = false;  // a ref or log section has records and is not finished
  BlockType section_type_ = BlockType::kRef;
  uint64_t written_ = 0;
  uint64_t pending_padding_ = 0;
  uint64_t ref_blocks_ = 0, obj_blocks_ = 0, log_blocks_ = 0;

  std::vector<IndexEntry> index_;
  struct ObjSlot {
    uint64_t head;
    uint32_t entry;  // 1 + the entry's index; empty if at most obj_slot_base_
    uint32_t last_block;
  };
  struct ObjRepeat {
    uint32_t entry;
    uint32_t block;
  };
  static constexpr unsigned kObjSlotBits = 14;
  static constexpr size_t kObjSlots = size_t(1) << kObjSlotBits;
  static constexpr size_t kObjMaxProbes = 8;
  // The obj index input. An id seen recently (in obj_slots_, a small hash table) only notes
  // a block it was not yet noted for, as an ObjRepeat of its entry: refs sharing few ids
  // (tags and branches of a repository) cost a lookup each and 8 bytes per block they
  // share, not an entry, a tail and a place in the sort each. Any other id gets an entry.
  // One id may still have several entries (the table is cleared when half full, and
  // gives up after a few probes); the obj section joins them, oldest first.
  REFTAB_FORCE_INLINE void AddObjId(const ObjectId& id) {
    const uint32_t block = obj_block_;
    const uint64_t head = be::Load64(id.data());
    const size_t tail_size = hash_size_ - 8;
    uint64_t tail_word;
    std::memcpy(&tail_word, id.data() + 8, 8);
    // Ids are hashes, but tests and tools make ids differing past the first 8 bytes.
    size_t at = size_t(((head ^ tail_word) * 0x9e3779b97f4a7c15ull) >> (64 - kObjSlotBits));
    for (size_t probe = 0; probe < kObjMaxProbes; ++probe, at = (at + 1) & (kObjSlots - 1)) {
      ObjSlot& slot = obj_slots_[at];
      if (slot.entry <= obj_slot_base_) return AddObjEntry(id, head, block, &slot);
      if (slot.head == head && IdTailsEqual(obj_tails_.data() + size_t(slot.entry - 1) * tail_size,
                                            id.data() + 8, tail_size)) {
        if (slot.last_block != block) {
          slot.last_block = block;
          if (!obj_repeats_.push_back(ObjRepeat{slot.entry - 1, block})) obj_no_memory_ = true;
        }
        return;
      }
    }
    AddObjEntry(id, head, block, nullptr);
  }
  // A new entry for `id`, remembered in `slot` if given.
  void AddObjEntry(const ObjectId& id, uint64_t head, uint32_t block, ObjSlot* slot);
  void SortObjIds(std::vector<ObjSortKey>* sorted);
  void ClearObjIds();

  std::vector<ObjSortKey> obj_keys_;         // the entries, in insertion order
  GrowArray<uint8_t> obj_tails_;             // the entries' tails, hash_size - 8 bytes each
  std::vector<uint64_t> obj_block_offsets_;  // of the ref blocks, as StartBlock begins them
  uint32_t obj_block_ = 0;                   // the last of them: the current ref block
  GrowArray<ObjRepeat> obj_repeats_;         // in insertion order
  bool obj_no_memory_ = false;               // an obj index array could not grow: Finish fails
  struct FreeSlots {
    void operator()(ObjSlot* p) const { std::free(p); }
  };
  // calloc'd on the first ref (AddRefSlow): zero pages the kernel maps only when touched,
  // so a small table pays for few of them.
  std::unique_ptr<ObjSlot[], FreeSlots> obj_slots_;
  size_t obj_slots_used_ = 0;
  uint32_t obj_slot_base_ = 0;  // entries up to this one are forgotten (a cleared table)
  RefRecord slow_ref_;          // AddRef(name, ...)'s record for AddRefSlow (capacity reused)
  std::string last_key_;        // order check within a section
  std::string scratch_key_;
  std::string scratch_message_;
  std::string compressed_;
  std::string copied_block_;  // CopyRefBlock's block, when its header offset changes
  std::unique_ptr<Deflater> deflater_;
  // A section of several log blocks compresses every other block on a second thread
  // (FlushLogBlock). The thread starts only once a first block is full and more records
  // follow: a table of one log block (a small transaction) never starts one.
  bool background_allowed_ = true;
  bool background_tried_ = false;
  std::unique_ptr<BackgroundDeflater> background_;
  size_t background_slot_ = 0;  // index_ entry of the block the thread compresses
  std::vector<uint64_t> positions_;
  WrittenLogBlocks* log_record_ = nullptr;
  WriteStats stats_;
};

}  // namespace reftab

#endif  // REFTAB_STORE_TABLE_BUILDER_H_
