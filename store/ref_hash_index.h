// Internal: a hash index over one table's refnames for tables that serve many exact
// lookups. Through the on-disk index a lookup costs a descent (the flattened index: a binary
// search over the last key of every ref block), then a binary search over the block's
// restart keys, each a cache miss on a cold block, then the scan of a restart interval,
// comparing `want` with every key on the way. Here it is one probe of a table of 8-byte
// entries, which names the block, the restart point of the record's interval, a
// checkpoint record in that interval and the record itself. Knowing them, the lookup asks
// for the block's header, the restart key and every line from the checkpoint to the record
// at once, so a cold block costs one memory round trip after the probe. The checkpoint is
// the last record at or before the one named whose key is the restart key's first bytes
// and its own suffix (it shares no more with the record before it than every record since
// the restart point does): its key is known without reading the records before it. The
// records after it are stepped over (their key bytes copied, not compared: MatchRecordAt
// in format/record_match.h) and the name is compared once, whole, with the record's key. In
// git's tables about half the records are checkpoints, and a lookup steps over about 2
// records instead of 7.
//
// An entry packs, from the low bits: the record's offset in its block and the restart
// point's (R bits each: the widest in-block offset of the table), the checkpoint's distance
// from the restart point (D bits: the widest of the table), the block's offset in units of
// the table's block size when every ref block starts at a multiple of it (else in bytes),
// and in the remaining high bits a tag taken from the name's hash. For a 36 MB table of
// 4 KiB blocks that is 12 + 12 + 10 + 14 bits, leaving 16 for the tag, so another name
// sharing the probe sequence is told apart without reading its block (a false match costs
// one record walk and the probe goes on). Where the checkpoints do not fit, they are left
// out (D = 0: every walk starts at the restart point); a table whose locations leave fewer
// than kMinTagBits even then gets no index (its lookups take the on-disk index).
//
// The index is complete (every ref of the table has an entry), so a probe that ends at an
// empty slot proves the name absent: across a stack it replaces the filter
// (store/ref_filter.h), with the same one cache line per table that lacks the name.
//
// Memory: at most two thirds of the slots are used; 8 bytes a slot, so about 12 bytes per
// ref, more when the array is rounded up to whole 2 MiB pages (the extra slots shorten
// probes). Arrays of 1 MiB or more are mapped 2 MiB-aligned and offered to the kernel as
// transparent huge pages (madvise): a lookup's probe lands anywhere in the array, and with
// 4 KiB pages nearly every probe would also miss the TLB. The build needs 32 bytes per ref
// of transient memory besides.
#ifndef REFTAB_STORE_REF_HASH_INDEX_H_
#define REFTAB_STORE_REF_HASH_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace reftab {

class RefHashIndex {
 public:
  static constexpr int kMinTagBits = 8;

  // Where a ref's record is: offsets in the table (block) and in the block (the others).
  struct Location {
    uint64_t block_offset;
    uint32_t restart;     // the restart point that begins the record's interval
    uint32_t checkpoint;  // restart <= checkpoint <= record (see the file comment)
    uint32_t record;
  };
  struct Entry {
    uint64_t hash;  // RefFilter::Hash of the name
    Location at;
  };

  // The index over `entries` (one per ref of the table); `unit` divides every block offset
  // (1 always does). Null when the locations need more than 64 - kMinTagBits bits, or there
  // are 2^31 entries or more, or the slot array cannot be allocated.
  static std::unique_ptr<RefHashIndex> Build(const std::vector<Entry>& entries, uint64_t unit);
  ~RefHashIndex();
  RefHashIndex(const RefHashIndex&) = delete;
  RefHashIndex& operator=(const RefHashIndex&) = delete;

  // Asks the CPU for the line of the probe's first slot, for a caller that probes several
  // tables and wants their misses to overlap.
  void PrefetchHome(uint64_t hash) const { __builtin_prefetch(slots_ + Home(hash)); }

  // The probe, in order: the first slot whose tag matches `hash` (FirstCandidate) and the
  // ones after `slot` (NextCandidate), or kNone once an empty slot ends it: no ref of the
  // table has that hash.
  static constexpr size_t kNone = ~size_t(0);
  size_t FirstCandidate(uint64_t hash) const { return Probe(hash, Home(hash)); }
  size_t NextCandidate(uint64_t hash, size_t slot) const { return Probe(hash, Next(slot)); }
  Location At(size_t slot) const {
    const uint64_t e = slots_[slot];
    const uint64_t mask = (uint64_t(1) << offset_bits_) - 1;
    const auto restart = uint32_t(e >> offset_bits_ & mask);
    return {(e >> block_shift_ & block_mask_) * unit_, restart,
            restart + uint32_t(e >> (2 * offset_bits_) & checkpoint_mask_), uint32_t(e & mask)};
  }

  size_t memory_bytes() const { return bytes_; }
  int tag_bits() const { return 64 - tag_shift_; }

 private:
  RefHashIndex() = default;

  // The tag is never 0, so an entry is never 0 and 0 marks an empty slot.
  uint64_t Tag(uint64_t hash) const { return ((hash << tag_shift_) | (uint64_t(1) << tag_shift_)); }
  size_t Home(uint64_t hash) const {
    return size_t(((hash >> 32) * count_) >> 32);  // fewer than 2^32 slots
  }
  size_t Next(size_t i) const { return i + 1 == count_ ? 0 : i + 1; }
  size_t Probe(uint64_t hash, size_t i) const {
    const uint64_t tag = Tag(hash);
    for (;; i = Next(i)) {
      const uint64_t e = slots_[i];
      if (e == 0) return kNone;
      if ((e >> tag_shift_ << tag_shift_) == tag) return i;
    }
  }

  uint64_t* slots_ = nullptr;  // count_ slots, at most two thirds full, so every probe ends
  size_t count_ = 0;
  size_t bytes_ = 0;         // the allocation
  bool mapped_ = false;      // slots_ is an anonymous mapping (else new[])
  int offset_bits_ = 0;      // R: record offset in bits [0, R), restart in [R, 2R)
  int checkpoint_bits_ = 0;  // D: the checkpoint's distance from the restart, in [2R, 2R + D)
  uint64_t checkpoint_mask_ = 0;
  int block_shift_ = 0;  // 2R + D
  int tag_shift_ = 0;    // the tag is the bits from here up
  uint64_t block_mask_ = 0;
  uint64_t unit_ = 1;
};

}  // namespace reftab

#endif  // REFTAB_STORE_REF_HASH_INDEX_H_
