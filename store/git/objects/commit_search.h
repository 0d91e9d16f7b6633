// Public API: git's search of commit messages for "<rev>^{/<regex>}" and ":/<regex>": the
// commits reachable from the starting ones, youngest (committer date) first, ties in the order
// they were met, the first whose message matches the POSIX extended regex. As in git, a
// pattern starting with "!-" matches messages that do not match the rest, "!!" stands for a
// literal '!', and any other leading '!' matches nothing.
#ifndef REFTAB_STORE_GIT_OBJECTS_COMMIT_SEARCH_H_
#define REFTAB_STORE_GIT_OBJECTS_COMMIT_SEARCH_H_

#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/objects/objects.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// Walks from `start` (commits; anything else is skipped) in `objects`. *found false when no
// commit matches or the pattern is not a valid regex (git: no such object). Errors: the
// database's.
Status FindCommitByMessage(GitObjects& objects, size_t hash_size, std::string_view pattern,
                           const std::vector<ObjectId>& start, ObjectId* id, bool* found);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_COMMIT_SEARCH_H_
