#include "cli/ref_sort.h"

#include <strings.h>

#include <cctype>
#include <cstdint>

namespace reftab::cli {
namespace {

int CaseCompare(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    int d = std::tolower(static_cast<unsigned char>(a[i])) -
            std::tolower(static_cast<unsigned char>(b[i]));
    if (d) return d;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

int ByteCompare(std::string_view a, std::string_view b) {
  int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

}  // namespace

bool ParseSortKeys(const std::vector<std::string>& specs, bool ignore_case, RefFormat* format,
                   std::vector<SortKey>* keys, FormatError* error) {
  keys->clear();
  for (const std::string& spec : specs) {
    std::string_view s = spec;
    SortKey k;
    k.ignore_case = ignore_case;
    if (!s.empty() && s[0] == '-') {
      k.reverse = true;
      s.remove_prefix(1);
    }
    if (s.substr(0, 8) == "version:") {
      k.version = true;
      s.remove_prefix(8);
    } else if (s.substr(0, 2) == "v:") {
      k.version = true;
      s.remove_prefix(2);
    }
    k.atom = AddAtom(s, format, error);
    if (k.atom < 0) return false;
    keys->insert(keys->begin(), k);
  }
  return true;
}

bool IsNameOrder(const RefFormat& format, const std::vector<SortKey>& keys) {
  // %(ahead-behind:...) is computed over the whole list first in git (its messages too).
  for (const UsedAtom& a : format.atoms) {
    if (a.kind == AtomKind::kAheadBehind) return false;
  }
  if (keys.empty()) return true;
  const SortKey& k = keys[0];
  return keys.size() == 1 && !k.reverse && !k.version && !k.ignore_case &&
         format.atoms[size_t(k.atom)].kind == AtomKind::kRefname;
}

int VersionCompare(std::string_view a, std::string_view b) {
  // States (multiples of 3): normal, in an integer, in a fraction, in leading zeros.
  enum { kN = 0, kI = 3, kF = 6, kZ = 9 };
  enum { kCmp = 2, kLen = 3 };
  static constexpr uint8_t kNext[] = {kN, kI, kZ, kN, kI, kI, kN, kF, kF, kN, kF, kZ};
  static constexpr int8_t kResult[] = {
      kCmp, kCmp, kCmp, kCmp, kLen, kCmp, kCmp, kCmp, kCmp,  // normal
      kCmp, -1,   -1,   +1,   kLen, kLen, +1,   kLen, kLen,  // integer
      kCmp, kCmp, kCmp, kCmp, kCmp, kCmp, kCmp, kCmp, kCmp,  // fraction
      kCmp, +1,   +1,   -1,   kCmp, kCmp, -1,   kCmp, kCmp,  // leading zeros
  };
  auto at = [](std::string_view s, size_t i) -> unsigned char {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
  };
  auto cls = [](unsigned char c) { return (c == '0') + (std::isdigit(c) != 0); };
  size_t i = 0;
  unsigned char c1 = at(a, i), c2 = at(b, i);
  ++i;
  int state = kN + cls(c1);
  int diff;
  while ((diff = c1 - c2) == 0) {
    if (c1 == 0) return 0;
    state = kNext[state];
    c1 = at(a, i);
    c2 = at(b, i);
    ++i;
    state += cls(c1);
  }
  int r = kResult[state * 3 + cls(c2)];
  if (r == kCmp) return diff;
  if (r != kLen) return r;
  for (size_t j = i;; ++j) {
    if (!std::isdigit(at(a, j))) return std::isdigit(at(b, j)) ? -1 : diff;
    if (!std::isdigit(at(b, j))) return 1;
  }
}

int CompareRefs(const std::vector<SortKey>& keys, const RefFormat& format,
                const std::vector<AtomValue>& a, std::string_view a_name,
                const std::vector<AtomValue>& b, std::string_view b_name) {
  for (const SortKey& k : keys) {
    const AtomValue& va = a[size_t(k.atom)];
    const AtomValue& vb = b[size_t(k.atom)];
    int c;
    if (k.version) {
      c = VersionCompare(va.s, vb.s);
    } else if (!format.atoms[size_t(k.atom)].numeric) {
      c = k.ignore_case ? CaseCompare(va.s, vb.s) : ByteCompare(va.s, vb.s);
    } else {
      c = va.value < vb.value ? -1 : va.value > vb.value ? 1 : 0;
    }
    if (c) return k.reverse ? -c : c;
  }
  bool icase = !keys.empty() && keys[0].ignore_case;
  return icase ? CaseCompare(a_name, b_name) : ByteCompare(a_name, b_name);
}

}  // namespace reftab::cli
