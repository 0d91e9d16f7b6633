// Public API: how git's ref listings (for-each-ref, refs list) match ref names against the
// patterns on their command line, and which parts of the namespace they need to read.
#ifndef REFTAB_STORE_GIT_REFS_REF_PATTERNS_H_
#define REFTAB_STORE_GIT_REFS_REF_PATTERNS_H_

#include <string>
#include <string_view>
#include <vector>

#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// git's match_name_as_path: a pattern matches a name it equals, or that continues it with
// '/' (or any name it prefixes when the pattern ends in '/'), or that it matches as a
// wildmatch glob with '/' special ('*' stays within a component, "**" crosses them).
// `ignore_case` folds case in the glob match only, as git does.
bool MatchesRefPattern(const std::vector<std::string>& patterns, std::string_view name,
                       bool ignore_case);

// The literal prefixes a listing must read so that every name a pattern can match is seen:
// each pattern up to its first glob character, sorted, without those another one covers.
// Reading them in order yields names in sorted order.
std::vector<std::string> PatternPrefixes(const std::vector<std::string>& patterns);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REF_PATTERNS_H_
