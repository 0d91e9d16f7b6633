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

namespace {

// Hex digit values as the high and the low half of a byte, 0x100 for anything else: a bulk
// update-ref or a packed-refs file of a million refs is millions of ids to parse, and one
// table lookup per digit, with no branch, is what keeps that cheap.
struct HexTable {
  uint16_t hi[256];
  uint16_t lo[256];
  constexpr HexTable() : hi(), lo() {
    for (int i = 0; i < 256; ++i) hi[i] = lo[i] = 0x100;
    for (int i = 0; i < 16; ++i) {
      const int digit = i < 10 ? '0' + i : 'a' + i - 10;
      hi[digit] = uint16_t(i << 4);
      lo[digit] = uint16_t(i);
      if (i >= 10) {
        hi[digit - 'a' + 'A'] = uint16_t(i << 4);
        lo[digit - 'a' + 'A'] = uint16_t(i);
      }
    }
  }
};
constexpr HexTable kHex;

}  // namespace

int HexDigitValue(char c) {
  const uint16_t v = kHex.lo[uint8_t(c)];
  return v & 0x100 ? -1 : int(v);
}

bool ParseHexId(std::string_view hex, size_t hash_size, ObjectId* out) {
  if (hex.size() != hash_size * 2 || hash_size > kMaxHashSize) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(hex.data());
  uint16_t bad = 0;
  *out = ObjectId{};
  for (size_t i = 0; i < hash_size; ++i) {
    const uint16_t v = kHex.hi[p[2 * i]] | kHex.lo[p[2 * i + 1]];
    bad |= v;
    (*out)[i] = uint8_t(v);
  }
  return (bad & 0x100) == 0;
}

}  // namespace reftab
