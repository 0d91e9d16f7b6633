// Internal: a per-table filter that answers "is this refname certainly absent?" for exact
// lookups across a stack (Snapshot::ReadRef), where a name usually lives in one table and
// every other table would otherwise be searched down to a ref block for nothing.
//
// A split-block Bloom filter: the name's 64-bit xxHash (XXH3) picks one 32-byte block, and
// eight bits in it, one per 32-bit word. One cache line per query, no false negatives.
// With ~10 bits per name about 1% of absent names get through to the real lookup.
//
// Tables are immutable, so a filter never goes stale. It costs a pass over the table's
// refs (keys only) and about 10 bits per ref, so TableReader builds it only once lookups
// have shown that it pays (see TableReader::RefMayExist).
#ifndef REFTAB_STORE_REF_FILTER_H_
#define REFTAB_STORE_REF_FILTER_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace reftab {

class RefFilter {
 public:
  // A filter sized for about `expected_names` names.
  explicit RefFilter(uint64_t expected_names);

  // The hash Add and MayContain use: a caller probing several filters computes it once.
  static uint64_t Hash(std::string_view name);

  void Add(std::string_view name);
  bool MayContain(std::string_view name) const { return MayContainHash(Hash(name)); }
  bool MayContainHash(uint64_t hash) const;
  size_t memory_bytes() const { return words_.size() * sizeof(uint32_t); }

 private:
  const uint32_t* BlockFor(uint64_t h) const {
    return words_.data() + 8 * (((h >> 32) * blocks_) >> 32);
  }

  uint64_t blocks_;
  std::vector<uint32_t> words_;
};

}  // namespace reftab

#endif  // REFTAB_STORE_REF_FILTER_H_
