#include "format/block_writer.h"

namespace reftab {

void BlockWriter::Start(BlockType type, std::string_view file_header) {
  type_ = type;
  header_off_ = uint32_t(file_header.size());
  next_ = 0;  // nothing of the last block to keep if the buffer grows
  // AddImpl's unchecked path writes records up to block_size_, and PutSuffix's spill past it.
  EnsureCapacity((block_size_ > header_off_ + kBlockHeaderSize ? block_size_
                                                               : header_off_ + kBlockHeaderSize) +
                 kSuffixSpill);
  if (!file_header.empty()) std::memcpy(buf_.get(), file_header.data(), file_header.size());
  next_ = header_off_ + uint32_t(kBlockHeaderSize);
  entries_ = 0;
  until_restart_ = 0;
  if (!restarts_) {
    restarts_.reset(new uint32_t[block_size_ / 3 < kMaxRestarts ? block_size_ / 3 : kMaxRestarts]);
  }
  restart_count_ = 0;
  fast_end_ = FastEnd();
  last_len_ = 0;
}

void BlockWriter::Grow(size_t n) {
  const size_t cap = n < 2 * cap_ ? 2 * cap_ : n;
  auto bigger = std::make_unique_for_overwrite<uint8_t[]>(cap);
  if (next_ != 0) std::memcpy(bigger.get(), buf_.get(), next_);
  buf_ = std::move(bigger);
  cap_ = cap;
}

void BlockWriter::GrowLastKey(size_t n) {
  size_t cap = last_cap_ ? 2 * size_t(last_cap_) : 64;
  while (cap < n) cap *= 2;
  std::unique_ptr<uint8_t[]> bigger(new uint8_t[cap]);
  if (last_len_) std::memcpy(bigger.get(), last_key_.get(), last_len_);
  last_key_ = std::move(bigger);
  last_cap_ = uint32_t(cap);
}

std::string_view BlockWriter::Finish() {
  EnsureCapacity(next_ + 3 * size_t(restart_count_) + 2);
  Appender a(buf_.get() + next_);
  for (uint32_t i = 0; i < restart_count_; ++i) a.PutBE24(restarts_[i]);
  a.PutBE16(uint16_t(restart_count_));
  uint32_t block_len = uint32_t(a.pos() - buf_.get());
  buf_[header_off_] = uint8_t(type_);
  be::Store24(buf_.get() + header_off_ + 1, block_len);
  return std::string_view(reinterpret_cast<const char*>(buf_.get()), block_len);
}

}  // namespace reftab
