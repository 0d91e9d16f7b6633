// A revision given as a value on the command line or in --stdin (update-ref, refs create,
// update, delete): resolved as git's get_oid reads it, with git's warnings and error lines.
#ifndef REFTAB_CLI_REVISION_ARG_H_
#define REFTAB_CLI_REVISION_ARG_H_

#include <string>

#include "cli/stack_access.h"

namespace reftab::cli {

// `s`: a full hex id, or a ref found by git's rev-parse rules (X, refs/X, refs/tags/X,
// refs/heads/X, refs/remotes/X, refs/remotes/X/HEAD; "@" is HEAD), with git's ~N, ^N, ^{}
// and ^{type} suffixes (store/git/refs/object_name.h). Prints git's "warning: ..." and
// "error: ..." lines for it on stderr. The empty string is not a value here. Errors: reading
// the refs or objects failed (a value that names nothing is *found false).
Status ResolveRevisionArg(Store& store, const std::string& s, ObjectId* id, bool* found);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REVISION_ARG_H_
