#include "store/git/wildmatch.h"

#include <cctype>
#include <cstdint>

namespace reftab {
namespace {

// A plain backtracking matcher over positions in the pattern and the text: patterns come from
// config files and texts are paths, both short, so clarity wins over early aborts.
class Matcher {
 public:
  Matcher(std::string_view pattern, std::string_view text, bool ignore_case, bool pathname)
      : p_(pattern), t_(text), fold_(ignore_case), pathname_(pathname) {}

  bool Match(size_t pi, size_t ti) const {
    if (pi == p_.size()) return ti == t_.size();
    const bool have = ti < t_.size();
    switch (p_[pi]) {
      case '\\':
        // A trailing backslash quotes nothing and so matches nothing.
        return pi + 1 < p_.size() && have && Same(p_[pi + 1], t_[ti]) && Match(pi + 2, ti + 1);
      case '?': return have && !Slash(ti) && Match(pi + 1, ti + 1);
      case '*': return MatchStars(pi, ti);
      case '[': return MatchClass(pi, ti);
      default: return have && Same(p_[pi], t_[ti]) && Match(pi + 1, ti + 1);
    }
  }

 private:
  char Fold(char c) const { return fold_ ? char(std::tolower(uint8_t(c))) : c; }
  // A '/' that wildcards do not cross (with WM_PATHNAME only).
  bool Slash(size_t ti) const { return pathname_ && t_[ti] == '/'; }
  bool Same(char a, char b) const { return Fold(a) == Fold(b); }

  // p_[pi] starts a run of '*'. "**" crosses directories only as a whole path segment: after
  // the pattern's start or a '/', and before its end or a '/'.
  bool MatchStars(size_t pi, size_t ti) const {
    size_t rest = pi;
    while (rest < p_.size() && p_[rest] == '*') ++rest;
    if (!pathname_) {  // without WM_PATHNAME any run of stars matches anything
      for (size_t i = ti; i <= t_.size(); ++i) {
        if (Match(rest, i)) return true;
      }
      return false;
    }
    const bool segment_start = pi == 0 || p_[pi - 1] == '/';
    const bool segment_end = rest == p_.size() || p_[rest] == '/' ||
                             (p_[rest] == '\\' && rest + 1 < p_.size() && p_[rest + 1] == '/');
    if (rest - pi >= 2 && segment_start && segment_end) {
      if (rest == p_.size()) return true;
      size_t after_slash = rest + (p_[rest] == '/' ? 1 : 2);
      if (Match(after_slash, ti)) return true;  // "**/" standing for no directory at all
      for (size_t i = ti; i < t_.size(); ++i) {
        if (t_[i] == '/' && Match(after_slash, i + 1)) return true;
      }
      return false;
    }
    // One star (or "**" inside a segment): any run of characters other than '/'.
    for (size_t i = ti;; ++i) {
      if (Match(rest, i)) return true;
      if (i == t_.size() || t_[i] == '/') return false;
    }
  }

  bool MatchClass(size_t pi, size_t ti) const {
    if (ti == t_.size() || Slash(ti)) return false;
    size_t end = 0;
    bool matched = false;
    if (!ParseClass(pi, uint8_t(t_[ti]), &end, &matched)) return false;
    return matched && Match(end, ti + 1);
  }

  bool NamedClass(std::string_view name, uint8_t c, bool* known) const {
    *known = true;
    if (name == "alnum") return std::isalnum(c);
    if (name == "alpha") return std::isalpha(c);
    if (name == "blank") return c == ' ' || c == '\t';
    if (name == "cntrl") return std::iscntrl(c);
    if (name == "digit") return std::isdigit(c);
    if (name == "graph") return std::isgraph(c);
    if (name == "lower") return std::islower(c) || (fold_ && std::isupper(c));
    if (name == "print") return std::isprint(c);
    if (name == "punct") return std::ispunct(c);
    if (name == "space") return std::isspace(c);
    if (name == "upper") return std::isupper(c) || (fold_ && std::islower(c));
    if (name == "xdigit") return std::isxdigit(c);
    *known = false;
    return false;
  }

  bool InRange(uint8_t lo, uint8_t hi, uint8_t c) const {
    if (c >= lo && c <= hi) return true;
    if (!fold_ || !std::isalpha(c)) return false;
    uint8_t other = std::islower(c) ? uint8_t(std::toupper(c)) : uint8_t(std::tolower(c));
    return other >= lo && other <= hi;
  }

  // Reads a class member quoted by '\'; false at the end of the pattern.
  bool Quoted(size_t* i, char* m) const {
    if (p_[*i] != '\\') return true;
    if (++*i >= p_.size()) return false;
    *m = p_[*i];
    return true;
  }

  // The class starting at p_[pi] == '['. Sets *end past its ']' and *matched for `c`; false
  // for a malformed class (no ']', unknown [:name:]), which matches nothing. A ']' right
  // after '[' (or after the negation) is a member, as in git.
  bool ParseClass(size_t pi, uint8_t c, size_t* end, bool* matched) const {
    size_t i = pi + 1;
    const bool negated = i < p_.size() && (p_[i] == '!' || p_[i] == '^');
    if (negated) ++i;
    bool hit = false;
    int prev = -1;  // the previous single member, the low end of a range
    for (bool first = true; i < p_.size() && (first || p_[i] != ']'); first = false) {
      char m = p_[i];
      if (m == '-' && prev >= 0 && i + 1 < p_.size() && p_[i + 1] != ']') {
        char hi = p_[++i];
        if (!Quoted(&i, &hi)) return false;
        hit = hit || InRange(uint8_t(prev), uint8_t(hi), c);
        prev = -1;
        ++i;
        continue;
      }
      if (m == '[' && i + 1 < p_.size() && p_[i + 1] == ':') {
        size_t close = p_.find(":]", i + 2);
        if (close == std::string_view::npos) return false;
        bool known = false;
        hit = NamedClass(p_.substr(i + 2, close - (i + 2)), c, &known) || hit;
        if (!known) return false;
        prev = -1;
        i = close + 2;
        continue;
      }
      if (!Quoted(&i, &m)) return false;
      hit = hit || Same(m, char(c));
      prev = uint8_t(m);
      ++i;
    }
    if (i >= p_.size()) return false;
    *end = i + 1;
    *matched = hit != negated;
    return true;
  }

  std::string_view p_;
  std::string_view t_;
  bool fold_;
  bool pathname_;
};

}  // namespace

bool WildMatchPath(std::string_view pattern, std::string_view text, bool ignore_case) {
  return Matcher(pattern, text, ignore_case, /*pathname=*/true).Match(0, 0);
}

bool WildMatch(std::string_view pattern, std::string_view text) {
  return Matcher(pattern, text, /*ignore_case=*/false, /*pathname=*/false).Match(0, 0);
}

}  // namespace reftab
