// Internal: the leaf level of a table's ref index, flattened into one sorted array, for
// tables that serve many exact lookups. A lookup through the on-disk index decodes one or
// two index blocks (a binary search over restart keys, then a linear scan of up to a
// restart interval of prefix-compressed records each); here it is one binary search over
// contiguous keys. Costs about (key length + 12) bytes per ref block, so ~0.3 MB for a
// table of a million refs. TableReader builds it once lookups show it pays.
#ifndef REFTAB_STORE_REF_BLOCK_INDEX_H_
#define REFTAB_STORE_REF_BLOCK_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace reftab {

class RefBlockIndex {
 public:
  // Appends the ref block at `offset` whose last key is `last_key`; keys must ascend.
  // False if they do not (a malformed index).
  bool Add(std::string_view last_key, uint64_t offset) {
    if (!ends_.empty() && !(key(ends_.size() - 1) < last_key)) return false;
    if (keys_.size() + last_key.size() > UINT32_MAX) return false;
    keys_.append(last_key);
    ends_.push_back(uint32_t(keys_.size()));
    offsets_.push_back(offset);
    return true;
  }
  // The first block whose last key is >= want: the only block that can hold `want`.
  // False if every key is smaller.
  bool Find(std::string_view want, uint64_t* offset) const {
    size_t lo = 0, hi = ends_.size();
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (key(mid) < want) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == ends_.size()) return false;
    *offset = offsets_[lo];
    return true;
  }
  size_t blocks() const { return ends_.size(); }
  size_t memory_bytes() const {
    return keys_.capacity() + ends_.capacity() * sizeof(uint32_t) +
           offsets_.capacity() * sizeof(uint64_t);
  }
  void ShrinkToFit() {
    keys_.shrink_to_fit();
    ends_.shrink_to_fit();
    offsets_.shrink_to_fit();
  }

 private:
  std::string_view key(size_t i) const {
    size_t begin = i ? ends_[i - 1] : 0;
    return std::string_view(keys_.data() + begin, ends_[i] - begin);
  }

  std::string keys_;               // every last key, back to back
  std::vector<uint32_t> ends_;     // end of key i in keys_
  std::vector<uint64_t> offsets_;  // file offset of block i
};

}  // namespace reftab

#endif  // REFTAB_STORE_REF_BLOCK_INDEX_H_
