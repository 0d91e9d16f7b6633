#include "store/ref_hash_index.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#include "store/huge_pages.h"

namespace reftab {

namespace {

// Below this an array is allocated as usual: a 2 MiB page for it would waste too much.
constexpr size_t kHugeMin = size_t(1) << 20;

}  // namespace

RefHashIndex::~RefHashIndex() {
  if (mapped_) {
    UnmapHugePages(slots_, bytes_);
  } else {
    delete[] slots_;
  }
}

std::unique_ptr<RefHashIndex> RefHashIndex::Build(const std::vector<Entry>& entries,
                                                  uint64_t unit) {
  if (unit == 0 || entries.size() >= (uint64_t(1) << 31)) return nullptr;
  uint64_t max_block = 0, max_offset = 0, max_checkpoint = 0;
  for (const Entry& e : entries) {
    const Location& l = e.at;
    if (l.block_offset % unit != 0 || l.restart > l.checkpoint || l.checkpoint > l.record) {
      return nullptr;
    }
    max_block = std::max(max_block, l.block_offset / unit);
    max_offset = std::max<uint64_t>(max_offset, l.record);
    max_checkpoint = std::max<uint64_t>(max_checkpoint, l.checkpoint - l.restart);
  }
  const int offset_bits = std::max(1, int(std::bit_width(max_offset)));
  const int block_bits = int(std::bit_width(max_block));
  int checkpoint_bits = int(std::bit_width(max_checkpoint));
  if (64 - 2 * offset_bits - checkpoint_bits - block_bits < kMinTagBits) checkpoint_bits = 0;
  const int tag_shift = 2 * offset_bits + checkpoint_bits + block_bits;
  if (64 - tag_shift < kMinTagBits) return nullptr;

  std::unique_ptr<RefHashIndex> index(new RefHashIndex());
  RefHashIndex& x = *index;
  x.offset_bits_ = offset_bits;
  x.checkpoint_bits_ = checkpoint_bits;
  x.checkpoint_mask_ = checkpoint_bits == 0 ? 0 : ~uint64_t(0) >> (64 - checkpoint_bits);
  x.block_shift_ = 2 * offset_bits + checkpoint_bits;
  x.tag_shift_ = tag_shift;
  x.block_mask_ = block_bits == 0 ? 0 : ~uint64_t(0) >> (64 - block_bits);
  x.unit_ = unit;
  size_t want = entries.size() + entries.size() / 2 + 1;
  size_t bytes = want * sizeof(uint64_t);
  if (bytes >= kHugeMin) {
    bytes = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    x.slots_ = static_cast<uint64_t*>(MapHugePages(bytes));
    x.mapped_ = x.slots_ != nullptr;
  }
  if (!x.mapped_) {
    bytes = want * sizeof(uint64_t);
    x.slots_ = new (std::nothrow) uint64_t[want]();
    if (x.slots_ == nullptr) return nullptr;
  }
  x.bytes_ = bytes;
  x.count_ = bytes / sizeof(uint64_t);  // the rounding's extra slots shorten probes
  if (x.count_ >= (uint64_t(1) << 32)) return nullptr;
  for (const Entry& e : entries) {
    size_t i = x.Home(e.hash);
    while (x.slots_[i] != 0) i = x.Next(i);
    // Without room for the checkpoint its distance is 0: the walk starts at the restart.
    const uint64_t checkpoint = checkpoint_bits == 0 ? 0 : e.at.checkpoint - e.at.restart;
    x.slots_[i] = x.Tag(e.hash) | (e.at.block_offset / unit) << x.block_shift_ |
                  checkpoint << 2 * offset_bits | uint64_t(e.at.restart) << offset_bits |
                  e.at.record;
  }
  return index;
}

}  // namespace reftab
