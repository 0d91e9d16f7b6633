// Public API: the numbers that define the reftable format (see FORMAT.md §2).
#ifndef REFTAB_FORMAT_CONSTANTS_H_
#define REFTAB_FORMAT_CONSTANTS_H_

#include <cstddef>
#include <cstdint>

namespace reftab {

// The hash function of a table. Version 1 tables are always SHA-1; version 2 tables name
// their hash in the header ("sha1" or "s256").
enum class HashId : uint32_t {
  kSha1 = 0x73686131,    // "sha1"
  kSha256 = 0x73323536,  // "s256"
};

inline constexpr size_t kSha1Size = 20;
inline constexpr size_t kSha256Size = 32;
inline constexpr size_t kMaxHashSize = 32;

inline constexpr size_t HashSize(HashId id) { return id == HashId::kSha256 ? kSha256Size : kSha1Size; }
// git writes version 1 for SHA-1 and version 2 for SHA-256.
inline constexpr uint8_t VersionForHash(HashId id) { return id == HashId::kSha256 ? 2 : 1; }
inline constexpr size_t HeaderSize(uint8_t version) { return version == 2 ? 28 : 24; }
inline constexpr size_t FooterSize(uint8_t version) { return version == 2 ? 72 : 68; }

enum class BlockType : uint8_t {
  kRef = 'r',
  kLog = 'g',
  kObj = 'o',
  kIndex = 'i',
};

inline constexpr bool IsBlockType(uint8_t b) {
  return b == 'r' || b == 'g' || b == 'o' || b == 'i';
}

inline constexpr uint8_t kMagic[4] = {'R', 'E', 'F', 'T'};
inline constexpr size_t kBlockHeaderSize = 4;  // type + uint24 block_len
inline constexpr uint32_t kMaxBlockSize = (1u << 24) - 1;
inline constexpr uint32_t kDefaultBlockSize = 4096;
inline constexpr uint32_t kDefaultRestartInterval = 16;
inline constexpr uint32_t kMaxRestarts = 65535;
inline constexpr int kLogCompressionLevel = 9;

}  // namespace reftab

#endif  // REFTAB_FORMAT_CONSTANTS_H_
