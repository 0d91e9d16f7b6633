// The memtable's frozen layers (store/kv/kv_memtable.h) backwards, in key order from the
// greatest: one entry per key, the newest layer's, deletions included. Internal to store/kv/.
#ifndef REFTAB_STORE_KV_KV_MEM_REVERSE_CURSOR_H_
#define REFTAB_STORE_KV_KV_MEM_REVERSE_CURSOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/kv/kv_memtable.h"

namespace reftab {

class KvMemReverseCursor {
 public:
  explicit KvMemReverseCursor(std::shared_ptr<const KvMemLayers> layers);
  // Positions at the last key.
  void SeekToLast();
  // Positions at the last key < `key` (inclusive: <= `key`).
  void SeekBefore(std::string_view key, bool inclusive);
  bool Valid() const { return current_ != kNone; }
  std::string_view key() const { return pos_[current_]->first; }
  const std::optional<std::string_view>& value() const { return pos_[current_]->second; }
  // Moves to the key before; only while Valid().
  void Prev();

 private:
  static constexpr size_t kNone = SIZE_MAX;
  void PickCurrent();
  // A layer's position: on an entry, or its end() when it has none left.
  void StepBack(size_t layer);
  std::shared_ptr<const KvMemLayers> layers_;
  std::vector<KvMemMap::const_iterator> pos_;  // one per layer
  size_t current_ = kNone;                     // the layer whose entry is current
};

}  // namespace reftab

#endif  // REFTAB_STORE_KV_KV_MEM_REVERSE_CURSOR_H_
