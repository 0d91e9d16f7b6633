// Internal: a hash index over one table's refnames for tables that serve many exact
// lookups. Through the on-disk index a lookup costs a descent (the flattened index: a binary
// search over the last key of every ref block), then a binary search over the block's
// restart keys, each a cache miss on a cold block, then the scan of a restart interval.
// Here it is one probe of a table of 8-byte entries, which names the block and the restart
// point (its offset in the block) whose interval holds the name, and the scan of that
// interval alone. Knowing both offsets at once, the lookup asks for the block's header, its
// restart count and the interval's first record together, so a cold block costs about one
// memory round trip after the probe instead of three in a row. A name absent from the table
// usually ends at an empty slot without reading any block.
//
// An entry holds 7 bits of the name's hash as a tag, so another name sharing the slot is
// mostly told apart without reading its block; a tag that matches by chance costs one
// interval scan and the probe goes on. The index is complete (every ref of the table has
// an entry), so a probe that ends at an empty slot proves the name absent. Costs about 12
// bytes per ref (two thirds full), so TableReader builds it only once lookups show it pays.
#ifndef REFTAB_STORE_REF_HASH_INDEX_H_
#define REFTAB_STORE_REF_HASH_INDEX_H_

#include <cstdint>
#include <vector>

namespace reftab {

class RefHashIndex {
 public:
  // Entries pack the block offset in 32 bits and the restart point's offset in the block in
  // 24 (block_len is a 24-bit field), so tables larger than 4 GiB get no index.
  static constexpr uint64_t kMaxBlockOffset = 0xffffffffu;

  struct Entry {
    uint64_t hash;      // RefFilter::Hash of the name
    uint64_t location;  // Location(block offset, restart point's offset in the block)
  };
  static uint64_t Location(uint64_t block_offset, uint32_t record_offset) {
    return uint64_t(record_offset & 0xffffff) << 32 | block_offset;
  }

  // Builds the index over `entries` (one per ref of the table).
  explicit RefHashIndex(const std::vector<Entry>& entries)
      : slots_(entries.size() + entries.size() / 2 + 1, 0) {
    for (const Entry& e : entries) {
      size_t i = Home(e.hash);
      while (slots_[i] != 0) i = i + 1 == slots_.size() ? 0 : i + 1;
      slots_[i] = Tag(e.hash) << 56 | e.location;
    }
  }

  // Calls visit(block_offset, record_offset) for every entry whose tag matches `hash`, in probe
  // order, until visit returns true (found, or an error to stop at); returns whether one did.
  // False when an empty slot ends the probe first: no ref of the table has that hash.
  template <class Visit>
  bool ForEachCandidate(uint64_t hash, Visit&& visit) const {
    const uint64_t tag = Tag(hash);
    for (size_t i = Home(hash);; i = i + 1 == slots_.size() ? 0 : i + 1) {
      uint64_t e = slots_[i];
      if (e == 0) return false;
      if (e >> 56 == tag && visit(e & kMaxBlockOffset, uint32_t(e >> 32) & 0xffffff)) return true;
    }
  }

  size_t memory_bytes() const { return slots_.capacity() * sizeof(uint64_t); }

 private:
  // The low bits give the tag, the high 32 bits (scaled to the size) the slot. The tag
  // is never 0, so an entry is never 0 and 0 marks an empty slot.
  static uint64_t Tag(uint64_t hash) { return (hash & 0xff) | 1; }
  size_t Home(uint64_t hash) const {
    return size_t(((hash >> 32) * slots_.size()) >> 32);  // fewer than 2^32 slots
  }

  std::vector<uint64_t> slots_;  // at most two thirds full, so every probe ends
};

}  // namespace reftab

#endif  // REFTAB_STORE_REF_HASH_INDEX_H_
