// The key/value store's memtable: the writes the log holds that no table holds yet, in key
// order, deletions included (they hide older values in the tables). Internal to store/kv/.
//
// Snapshots need a fixed copy of it that other threads may read while the store's thread
// goes on writing. So the memtable is one map the store's thread writes, plus frozen
// layers that never change again: Freeze() turns the map into a new layer, and snapshots
// share the layers. Layers are merged geometrically as they pile up (a layer is merged into
// the one below when that one is not more than twice its size), as reftab merges tables,
// so that a snapshot after every write costs amortized O(log n) copies per entry, and a read
// looks at O(log n) layers.
#ifndef REFTAB_STORE_KV_KV_MEMTABLE_H_
#define REFTAB_STORE_KV_KV_MEMTABLE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reftab {

// Key -> value, or nullopt for a deletion.
using KvMemMap = std::map<std::string, std::optional<std::string>, std::less<>>;
// Frozen layers, oldest first.
using KvMemLayers = std::vector<std::shared_ptr<const KvMemMap>>;

enum class KvMemLookup { kAbsent, kValue, kDeleted };

// Looks `key` up in `layers`, newest first; sets *value for kValue.
KvMemLookup LookupKvMemLayers(const KvMemLayers& layers, std::string_view key, std::string* value);

class KvMemtable {
 public:
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);

  KvMemLookup Get(std::string_view key, std::string* value) const;
  // The whole memtable, fixed: later writes do not change what it holds.
  std::shared_ptr<const KvMemLayers> Freeze();

  // Bytes of keys and values written since the last Clear(), with a per-entry overhead:
  // what the memtable size option is compared with.
  size_t bytes() const { return bytes_; }
  bool empty() const { return bytes_ == 0; }
  void Clear();

 private:
  void Set(std::string_view key, std::optional<std::string_view> value);
  KvMemMap writable_;
  std::shared_ptr<const KvMemLayers> frozen_ = std::make_shared<const KvMemLayers>();
  size_t bytes_ = 0;
};

// Forward iteration over frozen layers in key order: one entry per key, the newest layer's,
// deletions included.
class KvMemCursor {
 public:
  explicit KvMemCursor(std::shared_ptr<const KvMemLayers> layers);
  // Positions at the first key >= `key`.
  void Seek(std::string_view key);
  bool Valid() const { return current_ != kNone; }
  const std::string& key() const { return pos_[current_]->first; }
  const std::optional<std::string>& value() const { return pos_[current_]->second; }
  void Next();

 private:
  static constexpr size_t kNone = SIZE_MAX;
  void PickCurrent();
  std::shared_ptr<const KvMemLayers> layers_;
  std::vector<KvMemMap::const_iterator> pos_;  // one per layer
  size_t current_ = kNone;                     // the layer whose entry is current
};

}  // namespace reftab

#endif  // REFTAB_STORE_KV_KV_MEMTABLE_H_
