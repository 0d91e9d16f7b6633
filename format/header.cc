#include "format/header.h"

#include <zlib.h>

#include <cstring>

#include "format/bytes.h"

namespace reftab {

uint32_t Crc32(const uint8_t* data, size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (n > 0) {  // zlib takes uInt lengths
    uInt chunk = n > (1u << 30) ? (1u << 30) : uInt(n);
    crc = crc32(crc, data, chunk);
    data += chunk;
    n -= chunk;
  }
  return uint32_t(crc);
}

void TableHeader::EncodeTo(std::string* out) const {
  uint8_t buf[28];
  Appender a(buf);
  a.PutBytes(kMagic, 4);
  a.PutByte(version);
  a.PutBE24(block_size);
  a.PutBE64(min_update_index);
  a.PutBE64(max_update_index);
  if (version == 2) a.PutBE32(uint32_t(hash_id));
  out->append(reinterpret_cast<const char*>(buf), size_t(a.pos() - buf));
}

Result<TableHeader> TableHeader::DecodeFrom(const uint8_t* data, size_t size) {
  if (size < 5) return Status::Corruption("file too small for a header");
  if (std::memcmp(data, kMagic, 4) != 0) return Status::Corruption("bad magic (not a reftable)");
  TableHeader h;
  h.version = data[4];
  if (h.version != 1 && h.version != 2) {
    return Status::Corruption("unsupported version " + std::to_string(h.version));
  }
  if (size < h.header_size()) return Status::Corruption("file too small for a header");
  h.block_size = be::Load24(data + 5);
  h.min_update_index = be::Load64(data + 8);
  h.max_update_index = be::Load64(data + 16);
  if (h.version == 2) {
    uint32_t id = be::Load32(data + 24);
    if (id != uint32_t(HashId::kSha1) && id != uint32_t(HashId::kSha256)) {
      return Status::Corruption("unknown hash id at offset 24");
    }
    h.hash_id = HashId(id);
  }
  return h;
}

void TableFooter::EncodeTo(std::string* out) const {
  size_t start = out->size();
  header.EncodeTo(out);
  uint8_t buf[44];
  Appender a(buf);
  a.PutBE64(ref_index_position);
  a.PutBE64((obj_position << 5) | obj_id_len);
  a.PutBE64(obj_index_position);
  a.PutBE64(log_position);
  a.PutBE64(log_index_position);
  out->append(reinterpret_cast<const char*>(buf), 40);
  uint32_t crc = Crc32(reinterpret_cast<const uint8_t*>(out->data()) + start, out->size() - start);
  be::Store32(buf, crc);
  out->append(reinterpret_cast<const char*>(buf), 4);
}

Result<TableFooter> TableFooter::DecodeFrom(const uint8_t* footer, size_t size,
                                            const uint8_t* header_bytes) {
  REFTAB_ASSIGN_OR_RETURN(TableHeader h, TableHeader::DecodeFrom(footer, size));
  size_t hs = h.header_size();
  if (size != h.footer_size()) return Status::Corruption("footer has the wrong size");
  if (std::memcmp(footer, header_bytes, hs) != 0) {
    return Status::Corruption("footer's header copy differs from the header");
  }
  uint32_t want = be::Load32(footer + hs + 40);
  if (Crc32(footer, hs + 40) != want) return Status::Corruption("footer CRC-32 mismatch");
  TableFooter f;
  f.header = h;
  const uint8_t* p = footer + hs;
  f.ref_index_position = be::Load64(p);
  uint64_t obj = be::Load64(p + 8);
  f.obj_position = obj >> 5;
  f.obj_id_len = uint8_t(obj & 0x1f);
  f.obj_index_position = be::Load64(p + 16);
  f.log_position = be::Load64(p + 24);
  f.log_index_position = be::Load64(p + 32);
  if (f.obj_position != 0 && f.obj_id_len == 0) {
    return Status::Corruption("obj section present but obj_id_len is 0");
  }
  return f;
}

}  // namespace reftab
