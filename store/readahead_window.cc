#include "store/readahead_window.h"

#include <algorithm>

#include "format/bytes.h"
#include "format/constants.h"

namespace reftab {

bool ReadaheadWindow::Cover(const TableReader& table, uint64_t from, uint64_t to, bool backward) {
  if (Holds(from, to)) return true;
  const uint64_t blocks_end = table.source().table_size;
  if (from >= to || to > blocks_end) return false;
  const uint64_t size = std::max(to - from, next_);
  uint64_t start = from;
  uint64_t end = std::min(from + size, blocks_end);
  if (backward) {
    start = to > size ? to - size : 0;
    end = to;
  }
  if (end - start > capacity_) {
    bytes_.reset();  // what it held was passed
    bytes_.reset(new uint8_t[end - start]);
    capacity_ = end - start;
  }
  length_ = 0;
  if (!table.CopyBytes(start, end - start, bytes_.get())) return false;
  start_ = start;
  length_ = end - start;
  next_ = std::min(next_ * 2, kMax);
  return true;
}

bool ReadaheadWindow::Decode(const TableReader& table, uint64_t offset, BlockView* view) const {
  if (offset == 0) return false;
  // The block header, then the block and the byte after it (DecodeBlock reads that byte to
  // tell padding from an unpadded next block), or up to the end of the blocks.
  const uint64_t blocks_end = table.source().table_size;
  if (!Holds(offset, std::min(offset + kBlockHeaderSize, blocks_end))) return false;
  const uint64_t block_len = be::Load24(At(offset) + 1);
  if (!Holds(offset, std::min(offset + block_len + 1, blocks_end))) return false;
  BlockSource window = table.source();
  window.data = bytes_.get();
  window.table_size = length_;
  window.header_size = 0;  // offset > 0: the block is not the file's first
  if (!DecodeBlock(window, offset - start_, nullptr, nullptr, view).ok()) return false;
  view->offset = offset;
  return true;
}

ReadaheadWindow::Load ReadaheadWindow::LoadForward(const TableReader& table, uint64_t offset,
                                                   BlockType type, BlockView* view) {
  const uint64_t blocks_end = table.source().table_size;
  if (offset == 0 || offset >= blocks_end || blocks_end - offset < kBlockHeaderSize) {
    return Load::kNotHere;
  }
  // The header tells the block's length; a refill for it takes as much as the last block
  // needed and a sixteenth more (the lengths of a table's blocks differ by a few bytes where
  // they are padded), so that a block longer than the refill's size (a table of large
  // records) is not read twice, a first part with its header, then whole.
  const uint64_t guess = std::max<uint64_t>(kBlockHeaderSize, last_length_ + last_length_ / 16);
  if (!Cover(table, offset, std::min(offset + guess, blocks_end), /*backward=*/false)) {
    return Load::kReadFailed;
  }
  const uint8_t* header = At(offset);
  if (header[0] != uint8_t(type)) return Load::kNotHere;  // a section's end, or damage
  const uint64_t length = be::Load24(header + 1) + 1;     // and the byte after it
  if (!Cover(table, offset, std::min(offset + length, blocks_end), /*backward=*/false)) {
    return Load::kReadFailed;
  }
  last_length_ = length;
  return Decode(table, offset, view) ? Load::kLoaded : Load::kNotHere;
}

}  // namespace reftab
