// `reftab reflog [show] [options] [REF...]`: git's `git log -g --oneline` view of reflogs
// (what `git reflog show` runs), with git's selectors, ordering and errors.
#ifndef REFTAB_CLI_REFLOG_SHOW_H_
#define REFTAB_CLI_REFLOG_SHOW_H_

#include "cli/commands.h"
#include "cli/pager.h"
#include "cli/stack_access.h"

namespace reftab::cli {

// Like git's log, starts the pager (`pager`, unless it runs already; cli/pager.h) once the
// options are read and the names checked. Returns the exit status: 0, 128 after "fatal: ...".
int ReflogShow(Store& store, const Args& args, Pager& pager);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REFLOG_SHOW_H_
