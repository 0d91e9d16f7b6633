// git's glob matching ("wildmatch"), for paths (WM_PATHNAME) as the config layer needs it for
// includeIf conditions, and plain for the gc.<pattern> sections of reflog expiry. For paths '*'
// and '?' never match '/', "**" between slashes (or at either end) matches any number of
// directories; both have "[...]" classes with ranges, '!'/'^' negation and
// [:alpha:]-style names, '\' quoting the next character. Internal to the store layer.
#ifndef REFTAB_STORE_GIT_WILDMATCH_H_
#define REFTAB_STORE_GIT_WILDMATCH_H_

#include <string_view>

namespace reftab {

// True if `text` matches `pattern`; `ignore_case` folds ASCII letters on both sides.
bool WildMatchPath(std::string_view pattern, std::string_view text, bool ignore_case = false);

// git's wildmatch without flags, as gc.<pattern>.reflogExpire uses it: '/' is an ordinary
// character, so '*' and '?' match it too.
bool WildMatch(std::string_view pattern, std::string_view text);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_WILDMATCH_H_
