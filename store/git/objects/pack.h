// Internal (not installed): one pack of git's object database — a version-2 pack index
// (.idx: fan-out, sorted ids, CRCs, offsets) and its pack (.pack: entries of zlib data,
// whole objects or deltas against a base named by offset or by id), for both hash formats,
// read through a read-only mapping (gitformat-pack.txt).
//
// Hostile or damaged files give Corruption naming the pack and the entry's offset, never a
// crash or a hang: every read is bounded by the mapping, a delta chain is at most
// kMaxDeltaChain long (which also stops reference loops; offset deltas only go backwards),
// and no object grows past kMaxGitObjectSize.
#ifndef REFTAB_STORE_GIT_OBJECTS_PACK_H_
#define REFTAB_STORE_GIT_OBJECTS_PACK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/git/objects/delta_base_cache.h"
#include "store/git/objects/objects.h"

namespace reftab {

// How many leading hex digits two ids of `hash_size` bytes share.
size_t CommonHexDigits(const uint8_t* a, const uint8_t* b, size_t hash_size);

// git's own limit on a delta chain is 4095 deep (pack.depth); this leaves room.
inline constexpr int kMaxDeltaChain = 10000;

class GitPack {
 public:
  GitPack() = default;
  ~GitPack();
  GitPack(const GitPack&) = delete;
  GitPack& operator=(const GitPack&) = delete;

  // Maps `idx_path` and the .pack beside it and checks their headers, sizes and fan-out.
  // IoError when a file cannot be opened or mapped, Corruption when malformed.
  Status Open(const std::string& idx_path, size_t hash_size);

  const std::string& pack_path() const { return pack_path_; }
  uint32_t count() const { return count_; }

  // Where `id` starts in the pack, or false when the index does not list it.
  bool Find(const ObjectId& id, uint64_t* offset) const;
  // How many leading hex digits `id` shares with the nearest other id the index lists (0
  // when none): an abbreviation one digit longer names no other object of this pack.
  size_t CommonHexPrefix(const ObjectId& id) const;
  // Appends to *out every id of the index whose first `digits` hex digits are those of
  // `prefix` (its digits past them zero).
  void IdsWithPrefix(const ObjectId& prefix, size_t digits, std::vector<ObjectId>* out) const;

  // The type of the object at `offset` (a delta's is its base's), nothing inflated.
  Status Type(uint64_t offset, GitObjectType* type) const;
  // Its type and content size; of a delta only the start is inflated.
  Status Size(uint64_t offset, GitObjectType* type, uint64_t* size) const;
  // Its type and content, deltas applied. Bases met on the way are looked up in and added
  // to `cache`.
  Status Read(uint64_t offset, DeltaBaseCache* cache, GitObjectType* type, std::string* content);
  // How the entry at `offset` is stored, as git's %(objectsize:disk) and %(deltabase) see
  // it: the bytes it takes in the pack (header and base reference included) and, for a
  // delta, its base's id (zero otherwise). The first call sorts the index by offset (git's
  // reverse index).
  Status Storage(uint64_t offset, uint64_t* disk_size, ObjectId* delta_base);

 private:
  struct Mapped {
    const uint8_t* data = nullptr;
    size_t size = 0;
  };
  // An entry's header: type (1-4 objects, 6 offset delta, 7 reference delta), inflated
  // size, where its zlib data starts, and for a delta the base's offset.
  struct Entry {
    int type = 0;
    uint64_t size = 0;
    uint64_t data = 0;
    uint64_t base = 0;
  };
  Status Map(const std::string& path, Mapped* m);
  bool Position(const ObjectId& id, uint32_t* pos) const;
  Status ParseEntry(uint64_t offset, Entry* e) const;
  // Follows deltas from `offset` to the whole object they rest on: *chain gets the delta
  // entries' offsets, newest first; *base the base's offset and entry.
  Status Chain(uint64_t offset, std::vector<uint64_t>* chain, uint64_t* base, Entry* e) const;
  Status Error(uint64_t offset, const std::string& what) const;
  // The offset the index gives the entry at position `pos` of its sorted names, or false
  // when it lies outside the pack's entries.
  bool OffsetAt(uint32_t pos, uint64_t* offset) const;
  // The id at position `pos` of the index's sorted names.
  ObjectId NameAt(uint32_t pos) const;

  std::string pack_path_;
  Mapped idx_, pack_;
  size_t hs_ = 20;
  uint32_t count_ = 0;
  uint64_t end_ = 0;        // where entries end: the pack's trailing checksum
  size_t big_offsets_ = 0;  // entries of the index's 8-byte offset table
  // Every entry's offset with its position among the names, by offset; built by Storage().
  std::vector<std::pair<uint64_t, uint32_t>> by_offset_;
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_PACK_H_
