#include "store/git/refs/ref_patterns.h"

#include <algorithm>

#include "store/git/wildmatch.h"

namespace reftab {

bool MatchesRefPattern(const std::vector<std::string>& patterns, std::string_view name,
                       bool ignore_case) {
  for (const std::string& p : patterns) {
    size_t n = p.size();
    if (n <= name.size() && name.compare(0, n, p) == 0 &&
        (n == name.size() || name[n] == '/' || (n > 0 && p[n - 1] == '/'))) {
      return true;
    }
    if (WildMatchPath(p, name, ignore_case)) return true;
  }
  return false;
}

std::vector<std::string> PatternPrefixes(const std::vector<std::string>& patterns) {
  std::vector<std::string> prefixes;
  for (const std::string& p : patterns) {
    prefixes.push_back(p.substr(0, p.find_first_of("*?[\\")));
  }
  std::sort(prefixes.begin(), prefixes.end());
  std::vector<std::string> out;
  for (const std::string& p : prefixes) {
    if (!out.empty() && p.compare(0, out.back().size(), out.back()) == 0) continue;
    out.push_back(p);
  }
  return out;
}

}  // namespace reftab
