// Public API: a repository's worktrees and the branch each has checked out, as git's
// get_worktrees lists them (the main worktree first, then $GIT_COMMON_DIR/worktrees/<id>),
// for for-each-ref's %(worktreepath).
#ifndef REFTAB_STORE_GIT_WORKTREES_H_
#define REFTAB_STORE_GIT_WORKTREES_H_

#include <string>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

struct GitWorktreeHead {
  std::string path;      // absolute path of the work tree (a bare main repository: its dir)
  std::string head_ref;  // the ref HEAD finally names when HEAD is a symref, else ""
};

// Worktrees whose HEAD cannot be read are listed without a head_ref, as git does.
Status ListWorktreeHeads(const std::string& common_dir, std::vector<GitWorktreeHead>* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_WORKTREES_H_
