#include "store/git/refs/refname.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace reftab {
namespace {

// Bytes no component may contain: ASCII control bytes, DEL, and the characters that mean
// something to revision syntax, refspecs or globs (space ~ ^ : ? [ \).
constexpr bool IsForbiddenByte(unsigned char c) {
  if (c < 0x20 || c == 0x7f) return true;
  switch (c) {
    case ' ':
    case '~':
    case '^':
    case ':':
    case '?':
    case '[':
    case '\\': return true;
    default: return false;
  }
}

// The bytes CheckRefnameFormat must look at: '/' (a component ends), the forbidden ones,
// '*', and the second bytes of ".." and "@{". Every other byte passes with one table load.
constexpr std::array<bool, 256> kNeedsALook = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[size_t(c)] = IsForbiddenByte(static_cast<unsigned char>(c)) || c == '/' || c == '*' ||
                   c == '.' || c == '{';
  }
  return t;
}();

// The checks of a whole component, p[begin, end), once its bytes have passed.
RefnameProblem CheckComponentEnds(const unsigned char* p, size_t begin, size_t end) {
  if (end == begin) return RefnameProblem::kEmptyComponent;
  if (p[begin] == '.') return RefnameProblem::kComponentStartsWithDot;
  if (end - begin >= 5 && std::memcmp(p + end - 5, ".lock", 5) == 0) {
    return RefnameProblem::kComponentEndsWithLock;
  }
  return RefnameProblem::kNone;
}

// True when `rest` (what follows "refs/") is already in the canonical form of a relative
// path: no empty, "." or ".." component, no leading or trailing '/'.
bool IsCanonicalRelativePath(std::string_view rest) {
  if (rest.empty()) return false;
  size_t pos = 0;
  for (;;) {
    size_t slash = rest.find('/', pos);
    std::string_view comp =
        rest.substr(pos, slash == std::string_view::npos ? rest.npos : slash - pos);
    if (comp.empty() || comp == "." || comp == "..") return false;
    if (slash == std::string_view::npos) return true;
    pos = slash + 1;
  }
}

}  // namespace

RefnameProblem CheckRefnameFormat(std::string_view name, unsigned flags) {
  // Most names are plain, and that is decided a block of bytes at a time (a tenth of the
  // byte loop's cost); a plain name of one level is still one level.
  if (PlainlyValidRefname(name) &&
      ((flags & kRefnameAllowOneLevel) || name.find('/') != std::string_view::npos)) {
    return RefnameProblem::kNone;
  }
  if (name == "@") return RefnameProblem::kIsAt;
  // One pass over the bytes, components ending at each '/' (not a search for the next '/'
  // and then a second pass over the component): each component's problems are found in
  // git's order, its bytes first, then its ends, before the next one is looked at.
  bool pattern_allowed = (flags & kRefnameRefspecPattern) != 0;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(name.data());
  const size_t n = name.size();
  size_t components = 0;
  size_t begin = 0;  // of the current component
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = p[i];
    if (!kNeedsALook[c]) [[likely]]
      continue;
    if (c == '/') {
      RefnameProblem end = CheckComponentEnds(p, begin, i);
      if (end != RefnameProblem::kNone) return end;
      ++components;
      begin = i + 1;
      continue;
    }
    if (IsForbiddenByte(c)) return RefnameProblem::kBadCharacter;
    if (c == '*') {
      // git accepts a single '*' in the whole name: the first one uses the permission up.
      if (!pattern_allowed) return RefnameProblem::kAsterisk;
      pattern_allowed = false;
    }
    if (c == '.' && i > begin && p[i - 1] == '.') return RefnameProblem::kDoubleDot;
    if (c == '{' && i > begin && p[i - 1] == '@') return RefnameProblem::kAtBrace;
  }
  RefnameProblem end = CheckComponentEnds(p, begin, n);
  if (end != RefnameProblem::kNone) return end;
  ++components;
  if (name.back() == '.') return RefnameProblem::kEndsWithDot;
  if (!(flags & kRefnameAllowOneLevel) && components < 2) return RefnameProblem::kOneLevel;
  return RefnameProblem::kNone;
}

std::string_view RefnameProblemText(RefnameProblem problem) {
  switch (problem) {
    case RefnameProblem::kNone: return "valid";
    case RefnameProblem::kIsAt: return "is the single character '@'";
    case RefnameProblem::kEmptyComponent: return "has an empty component";
    case RefnameProblem::kBadCharacter: return "contains a forbidden character";
    case RefnameProblem::kAsterisk: return "contains '*'";
    case RefnameProblem::kDoubleDot: return "contains \"..\"";
    case RefnameProblem::kAtBrace: return "contains \"@{\"";
    case RefnameProblem::kComponentStartsWithDot: return "has a component starting with '.'";
    case RefnameProblem::kComponentEndsWithLock: return "has a component ending with \".lock\"";
    case RefnameProblem::kEndsWithDot: return "ends with '.'";
    case RefnameProblem::kOneLevel: return "has only one component";
  }
  return "invalid";
}

std::optional<std::string> NormalizeRefname(std::string_view name, unsigned flags) {
  std::string out;
  char prev = '/';  // so that leading slashes are dropped too
  for (char c : name) {
    if (c == '/' && prev == '/') continue;
    out.push_back(c);
    prev = c;
  }
  if (!IsValidRefname(out, flags)) return std::nullopt;
  return out;
}

bool IsSafeRefname(std::string_view name) {
  if (name.find('\0') != std::string_view::npos) return false;
  if (name.starts_with("refs/")) return IsCanonicalRelativePath(name.substr(5));
  if (name.empty()) return false;
  for (char c : name) {
    if (!((c >= 'A' && c <= 'Z') || c == '_')) return false;
  }
  return true;
}

bool IsRootRefSyntax(std::string_view name) {
  for (char c : name) {
    if (!((c >= 'A' && c <= 'Z') || c == '-' || c == '_')) return false;
  }
  return true;
}

bool IsPseudoRef(std::string_view name) { return name == "FETCH_HEAD" || name == "MERGE_HEAD"; }

bool IsRootRef(std::string_view name) {
  if (!IsRootRefSyntax(name) || IsPseudoRef(name)) return false;
  if (name.ends_with("_HEAD")) return true;
  for (std::string_view irregular : {"HEAD", "AUTO_MERGE", "BISECT_EXPECTED_REV",
                                     "NOTES_MERGE_PARTIAL", "NOTES_MERGE_REF", "MERGE_AUTOSTASH"}) {
    if (name == irregular) return true;
  }
  return false;
}

std::optional<std::string> RefnameRefusal(std::string_view name, bool gives_value) {
  if (IsPseudoRef(name)) return "refusing to update pseudoref '" + std::string(name) + "'";
  bool ok = gives_value ? IsValidRefname(name, kRefnameAllowOneLevel) : IsSafeRefname(name);
  if (!ok) return "refusing to update ref with bad name '" + std::string(name) + "'";
  return std::nullopt;
}

}  // namespace reftab

namespace reftab {

std::string EscapedRefname(std::string_view name) {
  bool plain = IsUtf8(name);
  for (char ch : name) plain = plain && static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f;
  if (plain) return std::string(name);
  std::string out;
  out.reserve(name.size());
  for (char ch : name) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\0': out += "\\0"; continue;
      case '\t': out += "\\t"; continue;
      case '\n': out += "\\n"; continue;
      case '\\': out += "\\\\"; continue;
      case '"': out += "\\\""; continue;
      default: break;
    }
    if (c < 0x20 || c >= 0x7f) {
      const char octal[] = {'\\', char('0' + (c >> 6)), char('0' + ((c >> 3) & 7)),
                            char('0' + (c & 7))};
      out.append(octal, sizeof octal);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

bool IsUtf8(std::string_view name) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(name.data());
  const size_t n = name.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2, cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3, cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace reftab

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace reftab {

// Sixteen bytes at a time (thirty-two with AVX2): a name passes when none of its bytes is
// one CheckRefnameFormat would look at twice (control bytes, DEL, bytes from 0x80 up,
// space ~ ^ : ? [ \ * . {, and a few valid ones near them: | } ; < = > ]),
// no '/' starts or ends it or follows another, and it is not "@". Such a name has no
// problem CheckRefnameFormat finds (one level allowed). Anything else is left to it.
namespace {

// The ends and "@", which the blocks below do not see.
inline bool PlainEnds(const char* p, size_t n) {
  return n != 0 && p[0] != '/' && p[n - 1] != '/' && !(n == 1 && p[0] == '@');
}

// Whether a block's slashes (one bit per byte) hold two neighbours.
inline bool DoubleSlash(uint64_t slashes) { return (slashes & (slashes << 1)) != 0; }

#if defined(__SSE2__)
// The bytes of `v` that need a look, and its slashes, as bit masks. Ranges in signed
// compares keep it short; they take a few valid bytes along (| } ; < = > ]), which then
// only go the slow way.
inline unsigned LookMask(__m128i v, unsigned* slashes) {
  auto in = [&v](char lo, char hi) {  // lo <= v <= hi, signed
    return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(char(lo - 1))),
                         _mm_cmplt_epi8(v, _mm_set1_epi8(char(hi + 1))));
  };
  // Bytes from 0x80 up are negative: one compare takes them with 0x00-0x20.
  __m128i look = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x21)),
                              _mm_cmpgt_epi8(v, _mm_set1_epi8(0x7a)));  // { | } ~ DEL
  look = _mm_or_si128(look, in(0x5b, 0x5e));                            // [ \ ] ^
  look = _mm_or_si128(look, in(0x3a, 0x3f));                            // : ; < = > ?
  look = _mm_or_si128(look, _mm_cmpeq_epi8(v, _mm_set1_epi8('*')));
  look = _mm_or_si128(look, _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
  *slashes = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('/'))));
  return unsigned(_mm_movemask_epi8(look));
}

// A name shorter than a block, read as a whole block when that stays within its memory page
// (so the read cannot fault; the bytes past the name are masked off), else copied out.
__attribute__((no_sanitize_address)) inline __m128i LoadShort(const char* p, size_t n) {
  if ((reinterpret_cast<uintptr_t>(p) & 4095) <= 4096 - 16) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
  alignas(16) char block[16] = {};
  std::memcpy(block, p, n);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(block));
}

bool PlainlyValidSse2(const char* p, size_t n) {
  if (!PlainEnds(p, n)) return false;
  unsigned slashes = 0;
  if (n < 16) {
    const unsigned inside = (1u << n) - 1;
    if (LookMask(LoadShort(p, n), &slashes) & inside) return false;
    return !DoubleSlash(slashes & inside);
  }
  // Blocks 15 bytes apart, the last one ending with the name: every pair of neighbours lies
  // within one block.
  for (size_t i = 0;; i += 15) {
    const size_t at = i + 16 <= n ? i : n - 16;
    if (LookMask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at)), &slashes)) {
      return false;
    }
    if (DoubleSlash(slashes)) return false;
    if (at + 16 == n) return true;
  }
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define REFTAB_REFNAME_AVX2 1
// The same test on 32 bytes with two table lookups (vpshufb): a byte needs a look when the
// classes of its high and of its low nibble share a bit. Classes: 1 every byte of the rows
// 0x0_, 0x1_ and 0x8_ to 0xf_; 2 space * . (row 0x2_); 4 : ; < = > ? (0x3a-0x3f);
// 8 [ \ ] ^ (0x5b-0x5e); 16 { | } ~ DEL (0x7b-0x7f). The set is LookMask's.
__attribute__((target("avx2"))) inline uint32_t LookMask32(__m256i v, uint32_t* slashes) {
  const __m256i by_low = _mm256_setr_epi8(                  //
      3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 7, 29, 29, 29, 31, 21,  //
      3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 7, 29, 29, 29, 31, 21);
  const __m256i by_high = _mm256_setr_epi8(             //
      1, 1, 2, 4, 0, 8, 0, 16, 1, 1, 1, 1, 1, 1, 1, 1,  //
      1, 1, 2, 4, 0, 8, 0, 16, 1, 1, 1, 1, 1, 1, 1, 1);
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_and_si256(v, nibble);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
  const __m256i classes =
      _mm256_and_si256(_mm256_shuffle_epi8(by_low, lo), _mm256_shuffle_epi8(by_high, hi));
  const __m256i plain = _mm256_cmpeq_epi8(classes, _mm256_setzero_si256());
  *slashes = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('/'))));
  return ~uint32_t(_mm256_movemask_epi8(plain));
}

// As LoadShort, for 32 bytes; the copy out of line (its aligned stack slot would cost every
// call a frame).
__attribute__((target("avx2"), noinline)) __m256i CopyShort32(const char* p, size_t n) {
  alignas(32) char block[32] = {};
  std::memcpy(block, p, n);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(block));
}
__attribute__((target("avx2"), no_sanitize_address)) inline __m256i LoadShort32(const char* p,
                                                                                size_t n) {
  if ((reinterpret_cast<uintptr_t>(p) & 4095) <= 4096 - 32) [[likely]] {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  return CopyShort32(p, n);
}

__attribute__((target("avx2"))) bool PlainlyValidAvx2(const char* p, size_t n) {
  if (!PlainEnds(p, n)) return false;
  uint32_t slashes = 0;
  if (n < 32) {
    const uint32_t inside = (uint32_t(1) << n) - 1;
    if (LookMask32(LoadShort32(p, n), &slashes) & inside) return false;
    return !DoubleSlash(slashes & inside);
  }
  for (size_t i = 0;; i += 31) {  // as PlainlyValidSse2's blocks
    const size_t at = i + 32 <= n ? i : n - 32;
    if (LookMask32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + at)), &slashes)) {
      return false;
    }
    if (DoubleSlash(slashes)) return false;
    if (at + 32 == n) return true;
  }
}

#endif

}  // namespace

bool PlainlyValidRefname(std::string_view name) {
#if defined(REFTAB_REFNAME_AVX2)
  // The CPU's features as the runtime read them at startup: one load and a test.
  if (__builtin_cpu_supports("avx2")) [[likely]]
    return PlainlyValidAvx2(name.data(), name.size());
#endif
#if defined(__SSE2__)
  return PlainlyValidSse2(name.data(), name.size());
#else
  return false;
#endif
}

}  // namespace reftab
