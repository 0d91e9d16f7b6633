// Public API: finding the git directory the way git does when none is named.
#ifndef REFTAB_STORE_GIT_DIR_H_
#define REFTAB_STORE_GIT_DIR_H_

#include <string>

#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// $GIT_DIR when set; otherwise, from `start_dir` upwards: a `.git` directory, a `.git` file
// saying "gitdir: X", or a directory that is itself a bare repository (has `reftable/` and
// `HEAD`). kNotFound (git's "not a git repository" wording) when there is none.
Result<std::string> DiscoverGitDir(const std::string& start_dir);
// The same from the process's current directory.
Result<std::string> DiscoverGitDir();

// The git directory whose ref stack `stack_dir` is, or "" when it is none: its parent has
// HEAD and either objects/ (a repository) or commondir (a linked worktree's directory).
// For `--stack` pointed at .git/reftable, where git's rules (objects, config) apply.
std::string GitDirAroundStack(const std::string& stack_dir);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_DIR_H_
