#include "format/record.h"

namespace reftab {

std::string HexId(const ObjectId& id, size_t hash_size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(hash_size * 2, '0');
  for (size_t i = 0; i < hash_size; ++i) {
    out[2 * i] = kDigits[id[i] >> 4];
    out[2 * i + 1] = kDigits[id[i] & 15];
  }
  return out;
}

static int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ParseHexId(std::string_view hex, size_t hash_size, ObjectId* out) {
  if (hex.size() != hash_size * 2 || hash_size > kMaxHashSize) return false;
  out->fill(0);
  for (size_t i = 0; i < hash_size; ++i) {
    int hi = HexValue(hex[2 * i]), lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = uint8_t(hi << 4 | lo);
  }
  return true;
}

}  // namespace reftab
