// The key/value store's memtable: the writes the log holds that no table holds yet, in key
// order, deletions included (they hide older values in the tables). Internal to store/kv/.
// Keys and values are copied into an arena (KvArena); a map node per key indexes them.
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
#include <memory_resource>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reftab {

inline constexpr size_t kKvArenaBlock = 64 << 10;

// Blocks of kKvArenaBlock bytes for memtables, carved from chunks of 2 MiB offered to the
// kernel as transparent huge pages, and given back for the next memtables. Fresh 4 KiB
// pages cost a fault each when first written: 12-15 us on the 2-core VM of
// perf/RESULTS.md (the kernel zeroes the page, the hypervisor maps it), and a batched fill
// of 1M keys took about 10,000 of them for its memtables (the arena's bytes and map nodes),
// about a fifth of its time. A chunk is a fault or a few. Chunks are made up to a limit
// and kept while the pool lives; past the limit, blocks come from the allocator and go
// back to it. Thread-safe: an arena gives its blocks back on whichever thread drops it.
class KvMemPool {
 public:
  // Chunks for up to `limit_bytes` of blocks.
  explicit KvMemPool(size_t limit_bytes) : limit_bytes_(limit_bytes) {}
  ~KvMemPool();
  KvMemPool(const KvMemPool&) = delete;
  KvMemPool& operator=(const KvMemPool&) = delete;
  struct Block {
    char* data = nullptr;  // kKvArenaBlock bytes
    bool pooled = false;   // from a chunk (else from new[])
  };
  Block Take();
  void Give(Block block);
  // A whole chunk (kHugePageBytes), for an arena's large entries; null when every chunk the
  // limit allows is in use. Give it back with GiveChunk.
  char* TakeChunk();
  void GiveChunk(char* chunk);
  // Bytes of the chunks made so far.
  size_t chunk_bytes() const;

 private:
  // A chunk given back whole, else a new one if the limit allows it, else null; mu_ held.
  char* ChunkLocked();
  mutable std::mutex mu_;
  std::vector<char*> free_;         // blocks of the chunks, not in use
  std::vector<char*> free_chunks_;  // chunks given back whole, not in use
  std::vector<void*> chunks_;       // kHugePageBytes each
  const size_t limit_bytes_;
};

// Where a memtable's keys, values and map nodes live: blocks that are only appended to and
// go all at once with the arena (back to its pool), so that a write costs one copy of its
// bytes and no allocation of its own (a block of kBlock bytes holds hundreds of small
// entries and their nodes). Entries over a quarter block and up to a quarter chunk go into
// whole chunks of the pool instead (twenty values of 100 KiB to a chunk): from the
// allocator, each was fresh memory, a fault per 4 KiB, 40% of the page faults of a fill of
// 100 KiB values. The views it gives stay valid while it lives: frozen layers share it
// (KvMemLayer::arenas). One thread at a time allocates.
class KvArena final : public std::pmr::memory_resource {
 public:
  static constexpr size_t kBlock = kKvArenaBlock;
  // Its blocks come from `pool` and go back to it (not null).
  explicit KvArena(std::shared_ptr<KvMemPool> pool) : pool_(std::move(pool)) {}
  ~KvArena() override;
  KvArena(const KvArena&) = delete;
  KvArena& operator=(const KvArena&) = delete;
  // A copy of `bytes` in the arena (an entry over a quarter block gets a block of its own,
  // so that the current one is not cut short).
  std::string_view Copy(std::string_view bytes);
  // Keeps `owner` alive as long as the arena: the owner of bytes the arena's entries view.
  void Keep(std::shared_ptr<const void> owner) { owners_.push_back(std::move(owner)); }

 private:
  // Map nodes and Copy's bytes: a bump of the current block (an allocation over a quarter
  // block gets one of its own); freed only with the arena.
  void* do_allocate(size_t bytes, size_t alignment) override;
  void do_deallocate(void*, size_t, size_t) override {}
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  // `bytes` at an `alignment` boundary, in the current block or a new one.
  char* Reserve(size_t bytes, size_t alignment);
  // `bytes` (at most a quarter chunk) in the current chunk or a new one: the pool's, else
  // one of the arena's own; null if no memory could be mapped.
  char* ReserveInChunk(size_t bytes);
  std::shared_ptr<KvMemPool> pool_;
  std::vector<KvMemPool::Block> blocks_;        // kBlock bytes each
  std::vector<char*> chunks_;                   // the pool's, for large entries
  std::vector<char*> own_chunks_;               // mapped when the pool had none, unmapped here
  std::vector<std::unique_ptr<char[]>> large_;  // one entry each, over a quarter chunk
  char* at_ = nullptr;                          // the free part of the current block
  size_t left_ = 0;
  char* chunk_at_ = nullptr;  // the free part of the current chunk
  size_t chunk_left_ = 0;
  std::vector<std::shared_ptr<const void>> owners_;  // Keep's
};

// Key -> value, or nullopt for a deletion; views into an arena. Its nodes come from an
// arena too (KvMemLayer::nodes): a memtable only grows until it is frozen and dropped
// whole, so a node costs a pointer bump instead of a malloc (and a free), about 300
// instructions a write with glibc's allocator (callgrind, batches of 1,000 puts).
using KvMemMap = std::pmr::map<std::string_view, std::optional<std::string_view>, std::less<>>;
// A frozen layer's keys by hash, for exact lookups: in the map a lookup is a descent of
// about log2(n) nodes, each a cache miss and a key comparison (688 instructions a lookup
// in a snapshot's layer of 40,000 keys, callgrind); here it is one probe of an array of
// 2n to 4n slots. A slot holds 32 bits of the key's hash and the entry's number, so that
// a key the layer lacks (most lookups: the tables hold most keys) is told apart without
// reading any entry. Built once, over a map that no longer changes, by the layer's first
// lookup (KvMemLayer::Find): a memtable made immutable to be flushed is often never looked
// up, and its writer would otherwise pay the build (about 2 ms for 8 MiB of small entries).
class KvMemHash {
 public:
  void Build(const KvMemMap& map);
  // The entry for `key`, or null.
  const KvMemMap::value_type* Find(std::string_view key) const;

 private:
  std::vector<uint64_t> slots_;  // hash's high 32 bits << 32 | entry number + 1; 0: empty
  std::vector<const KvMemMap::value_type*> entries_;
  size_t mask_ = 0;
};

// A frozen layer: its map, the hash of its keys, and the arenas its views point into (one
// for a layer made by Freeze(), and those of the layers merged into it).
struct KvMemLayer {
  explicit KvMemLayer(std::shared_ptr<KvArena> node_arena)
      : nodes(std::move(node_arena)), map(nodes.get()) {}
  // The entry for `key`, or null: through the hash, built at the first call (any thread).
  // Only once `map` is final (frozen).
  const KvMemMap::value_type* Find(std::string_view key) const {
    std::call_once(hash_built, [this] { hash.Build(map); });
    return hash.Find(key);
  }

  std::shared_ptr<KvArena> nodes;  // `map`'s nodes; outlives it
  KvMemMap map;
  std::vector<std::shared_ptr<const KvArena>> arenas;

 private:
  mutable std::once_flag hash_built;
  mutable KvMemHash hash;  // over `map`
};
// Frozen layers, oldest first.
using KvMemLayers = std::vector<std::shared_ptr<const KvMemLayer>>;

enum class KvMemLookup { kAbsent, kValue, kDeleted };

// Looks `key` up in `layers`, newest first; sets *value for kValue.
KvMemLookup LookupKvMemLayers(const KvMemLayers& layers, std::string_view key, std::string* value);

class KvMemtable {
 public:
  // Its arenas' blocks come from `pool` and go back to it (none: a pool of no chunks, so
  // from the allocator).
  explicit KvMemtable(std::shared_ptr<KvMemPool> pool = nullptr);
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  // As Put and Delete, but keeping views of the bytes given instead of copies: they must
  // stay unchanged while the memtable, or any layer it froze, lives. For a log replayed in
  // place (KvStore::Open), whose values a copy would take through fresh memory on their
  // way to a table.
  void PutBorrowed(std::string_view key, std::string_view value);
  void DeleteBorrowed(std::string_view key);
  // Keeps `owner` alive while the memtable, or any layer it froze, lives: the owner of
  // bytes given to PutBorrowed and DeleteBorrowed (a replayed log's mapping).
  void Keep(std::shared_ptr<const void> owner) { arena_->Keep(std::move(owner)); }

  KvMemLookup Get(std::string_view key, std::string* value) const;
  // The whole memtable, fixed: later writes do not change what it holds.
  std::shared_ptr<const KvMemLayers> Freeze();

  // Bytes of keys and values written since the last Clear(), with a per-entry overhead:
  // what the memtable size option is compared with.
  size_t bytes() const { return bytes_; }
  bool empty() const { return bytes_ == 0; }
  // Puts and deletes since the last Clear() (of the same key too): what the memtable entries
  // option is compared with.
  size_t writes() const { return writes_; }
  // The largest key + value size written since the last Clear().
  size_t largest() const { return largest_; }
  void Clear();

 private:
  void Set(std::string_view key, std::optional<std::string_view> value, bool borrowed);
  std::shared_ptr<KvMemPool> pool_;
  std::shared_ptr<KvArena> arena_;  // of writable_'s views and nodes
  // The map writes go to, in the layer that Freeze() makes of it (its hash and arenas are
  // set then).
  std::unique_ptr<KvMemLayer> writable_;
  std::shared_ptr<const KvMemLayers> frozen_ = std::make_shared<const KvMemLayers>();
  size_t bytes_ = 0;
  size_t writes_ = 0;
  size_t largest_ = 0;
};

// Forward iteration over frozen layers in key order: one entry per key, the newest layer's,
// deletions included.
class KvMemCursor {
 public:
  explicit KvMemCursor(std::shared_ptr<const KvMemLayers> layers);
  // Positions at the first key >= `key`.
  void Seek(std::string_view key);
  bool Valid() const { return current_ != kNone; }
  std::string_view key() const { return pos_[current_]->first; }
  const std::optional<std::string_view>& value() const { return pos_[current_]->second; }
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
