#include "store/git/objects/delta_base_cache.h"

namespace reftab {

const DeltaBaseCache::Item* DeltaBaseCache::Get(const void* pack, uint64_t offset) {
  auto it = entries_.find({pack, offset});
  if (it == entries_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return &it->second.item;
}

void DeltaBaseCache::Put(const void* pack, uint64_t offset, GitObjectType type,
                         const std::string& data) {
  const Key key{pack, offset};
  if (data.size() > max_bytes_ / 4 || entries_.count(key)) return;
  lru_.push_front(key);
  entries_.emplace(key, Entry{Item{type, data}, lru_.begin()});
  bytes_ += data.size();
  while (bytes_ > max_bytes_ && !lru_.empty()) {
    auto it = entries_.find(lru_.back());
    bytes_ -= it->second.item.data.size();
    entries_.erase(it);
    lru_.pop_back();
  }
}

}  // namespace reftab
