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

namespace reftab {

// Sixteen bytes at a time: a name passes when none of its bytes is one CheckRefnameFormat
// would look at twice (control bytes, DEL, bytes from 0x80 up, space ~ ^ : ? [ \ * . {,
// and a few valid ones near them),
// no '/' starts or ends it or follows another, and it is not "@". Such a name has no
// problem CheckRefnameFormat finds (one level allowed). Anything else is left to it.
namespace {

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
#endif

}  // namespace

bool PlainlyValidRefname(std::string_view name) {
#if defined(__SSE2__)
  const size_t n = name.size();
  if (n == 0 || name[0] == '/' || name[n - 1] == '/' || (n == 1 && name[0] == '@')) return false;
  const char* p = name.data();
  unsigned slashes = 0;
  if (n < 16) {
    const unsigned inside = (1u << n) - 1;
    if (LookMask(LoadShort(p, n), &slashes) & inside) return false;
    slashes &= inside;
    return (slashes & (slashes << 1)) == 0;
  }
  // Blocks 15 bytes apart, the last one ending with the name: every pair of neighbours lies
  // within one block.
  for (size_t i = 0;; i += 15) {
    const size_t at = i + 16 <= n ? i : n - 16;
    if (LookMask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at)), &slashes)) {
      return false;
    }
    if ((slashes & (slashes << 1)) != 0) return false;
    if (at + 16 == n) return true;
  }
#else
  (void)name;
  return false;
#endif
}

}  // namespace reftab
