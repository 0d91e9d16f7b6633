// git's glob matching for paths ("wildmatch" with WM_PATHNAME), as the config layer needs
// it for includeIf conditions: '*' and '?' never match '/', "**" between slashes (or at either
// end) matches any number of directories, "[...]" classes with ranges, '!'/'^' negation and
// [:alpha:]-style names, '\' quoting the next character. Internal to the store layer.
#ifndef REFTAB_STORE_WILDMATCH_H_
#define REFTAB_STORE_WILDMATCH_H_

#include <string_view>

namespace reftab {

// True if `text` matches `pattern`; `ignore_case` folds ASCII letters on both sides.
bool WildMatchPath(std::string_view pattern, std::string_view text, bool ignore_case = false);

}  // namespace reftab

#endif  // REFTAB_STORE_WILDMATCH_H_
