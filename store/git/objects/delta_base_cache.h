// Internal (not installed): recently used delta bases of a database's packs, bounded in bytes
// for the whole database however many packs it has. A pack's deltas of one object's versions
// share their bases, so the next read is often a delta of a base just rebuilt.
#ifndef REFTAB_STORE_GIT_OBJECTS_DELTA_BASE_CACHE_H_
#define REFTAB_STORE_GIT_OBJECTS_DELTA_BASE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <utility>

#include "store/git/objects/objects.h"

namespace reftab {

class DeltaBaseCache {
 public:
  struct Item {
    GitObjectType type;
    std::string data;
  };
  // `max_bytes`: the most the kept contents may add up to; one larger than a quarter of it
  // is not kept.
  explicit DeltaBaseCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The object at `offset` of the pack `pack` (any stable key), or null; marks it recent.
  const Item* Get(const void* pack, uint64_t offset);
  // Keeps a copy, dropping the least recently used to stay within the bound.
  void Put(const void* pack, uint64_t offset, GitObjectType type, const std::string& data);

 private:
  using Key = std::pair<const void*, uint64_t>;
  struct Entry {
    Item item;
    std::list<Key>::iterator lru;
  };
  size_t max_bytes_;
  size_t bytes_ = 0;
  std::map<Key, Entry> entries_;
  std::list<Key> lru_;  // most recent first
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_DELTA_BASE_CACHE_H_
