#include "store/git/refs/refname.h"

#include <array>
#include <cstddef>
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
