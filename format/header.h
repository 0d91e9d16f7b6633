// Public API: the table header and footer (FORMAT.md §4 and §11).
//
// Header (24 bytes v1, 28 bytes v2):
//   "REFT" | version u8 | block_size u24 | min_update_index u64 | max_update_index u64
//   | hash_id u32 (v2 only)
// Footer (68 bytes v1, 72 bytes v2):
//   header copy | ref_index_position u64 | (obj_position << 5 | obj_id_len) u64
//   | obj_index_position u64 | log_position u64 | log_index_position u64 | CRC-32 u32
#ifndef REFTAB_FORMAT_HEADER_H_
#define REFTAB_FORMAT_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "format/constants.h"
#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

struct TableHeader {
  uint8_t version = 1;
  uint32_t block_size = kDefaultBlockSize;  // 0: unaligned (JGit)
  uint64_t min_update_index = 0;
  uint64_t max_update_index = 0;
  HashId hash_id = HashId::kSha1;

  size_t header_size() const { return HeaderSize(version); }
  size_t footer_size() const { return FooterSize(version); }
  size_t hash_size() const { return HashSize(hash_id); }

  // Appends header_size() bytes to `out`.
  void EncodeTo(std::string* out) const;
  // Decodes the header at the start of `data` (at least `size` bytes available).
  static Result<TableHeader> DecodeFrom(const uint8_t* data, size_t size);
};

struct TableFooter {
  TableHeader header;
  uint64_t ref_index_position = 0;
  uint64_t obj_position = 0;
  uint8_t obj_id_len = 0;
  uint64_t obj_index_position = 0;
  uint64_t log_position = 0;
  uint64_t log_index_position = 0;

  // Appends footer_size() bytes, including the CRC-32.
  void EncodeTo(std::string* out) const;
  // Decodes and validates a footer of `size` bytes against the file's header bytes
  // (`header_bytes`, header.header_size() long): magic, identical header copy, CRC, hash id,
  // obj_id_len. Errors name the field; the caller adds the file name and offset.
  static Result<TableFooter> DecodeFrom(const uint8_t* footer, size_t size,
                                        const uint8_t* header_bytes);
};

// zlib's CRC-32 over `n` bytes.
uint32_t Crc32(const uint8_t* data, size_t n);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_FORMAT_HEADER_H_
