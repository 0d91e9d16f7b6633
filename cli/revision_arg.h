// A revision given as a value on the command line or in --stdin (update-ref, refs create,
// update, delete): resolved as git's get_oid reads it, with git's warnings and error lines.
#ifndef REFTAB_CLI_REVISION_ARG_H_
#define REFTAB_CLI_REVISION_ARG_H_

#include <string>

#include "cli/stack_access.h"

namespace reftab::cli {

// `s`: any name of one object git's revision syntax gives (store/git/refs/object_name.h),
// read as update-ref and the refs commands read it (no warning for a ref spelled like a full
// id). Prints git's "warning: ..." and "error: ..." lines for it on stderr. The empty string
// is not a value here. Errors: reading the refs or objects failed, or git dies reading the
// name (the message is its fatal line); a value that names nothing is *found false.
Status ResolveRevisionArg(Store& store, const std::string& s, ObjectId* id, bool* found);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REVISION_ARG_H_
