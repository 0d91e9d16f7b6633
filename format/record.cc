#include "format/record.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace reftab {
namespace {

#if defined(__SSE2__)
// 16 bytes from `src` as 32 hex digits at `dst`: each byte's nibbles split out, made digits
// ('0' + n, and 'a' - 10 + n from 10 up), and interleaved high first.
inline void HexBlock16(const uint8_t* src, char* dst) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  const __m128i nibble = _mm_set1_epi8(0x0f);
  auto digits = [](__m128i n) {
    const __m128i letter = _mm_cmpgt_epi8(n, _mm_set1_epi8(9));
    return _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8('0')),
                        _mm_and_si128(letter, _mm_set1_epi8('a' - '0' - 10)));
  };
  const __m128i hi = digits(_mm_and_si128(_mm_srli_epi16(v, 4), nibble));
  const __m128i lo = digits(_mm_and_si128(v, nibble));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_unpacklo_epi8(hi, lo));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 16), _mm_unpackhi_epi8(hi, lo));
}
#endif

// Listings print an id per ref: 16 bytes at a time where SSE2 is there (a SHA-1 id as two
// overlapping blocks, within the 32 bytes an ObjectId always has), a byte at a time
// otherwise.
void WriteHex(const ObjectId& id, size_t hash_size, char* p) {
#if defined(__SSE2__)
  static_assert(sizeof(ObjectId) >= 32);
  if (hash_size == 20 || hash_size == 32) {
    HexBlock16(id.data(), p);
    HexBlock16(id.data() + hash_size - 16, p + 2 * hash_size - 32);
    return;
  }
#endif
  static constexpr char kDigits[] = "0123456789abcdef";
  for (size_t i = 0; i < hash_size; ++i) {
    *p++ = kDigits[id[i] >> 4];
    *p++ = kDigits[id[i] & 15];
  }
}

}  // namespace

std::string HexId(const ObjectId& id, size_t hash_size) {
  std::string out(hash_size * 2, '0');
  WriteHex(id, hash_size, out.data());
  return out;
}

void AppendHexId(const ObjectId& id, size_t hash_size, std::string* out) {
  const size_t at = out->size();
  out->resize(at + 2 * hash_size);
  WriteHex(id, hash_size, out->data() + at);
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
