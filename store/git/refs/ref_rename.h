// Public API: git's `refs rename` on a GitRefStore — a ref moved to a new name with its
// reflog, in one table, as git's reftable backend does it:
//  - the new name gets the old one's record (a peeled tag keeps its peeled id) and the old
//    name is deleted, reflog and all;
//  - the new name's reflog is the old one's entries, then an entry for the old name's
//    deletion (old id -> zero) and one for the new name's creation (zero -> old id), both
//    with the given message: the table spans two update indices, one for each;
//  - HEAD is not moved: when it is a symref to the old name it keeps pointing there (now at
//    nothing), and its reflog gets the deletion entry too;
//  - the new name may not clash with an existing ref as a directory or below one, the old
//    name excepted (refs/heads/a can become refs/heads/a/b).
// Errors are Status values whose message is git's, without "error: " or "fatal: ".
#ifndef REFTAB_STORE_GIT_REFS_REF_RENAME_H_
#define REFTAB_STORE_GIT_REFS_REF_RENAME_H_

#include <string_view>

#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class GitRefStore;

// git's checks before it renames (what `git refs rename` dies of): both names well formed
// (more than one level), `old_name` resolving to an existing ref, `new_name` not resolving
// to one. Errors: kInvalidArgument ("invalid ref format: '<name>'"), kNotFound ("reference
// does not exist: '<old>'"), kConflict ("reference already exists: '<new>'"), or the
// I/O error that stopped the reading.
Status CheckRenameRef(GitRefStore& store, std::string_view old_name, std::string_view new_name);

// Renames `old_name` to `new_name` as described above, with `message` cleaned as git cleans
// reflog messages; everything is read and decided under the stack's lock. Errors, writing
// nothing: kNotFound "refname <old> not found", kInvalidArgument "refname <old> is a
// symbolic ref, copying it is not supported", kConflict "'<existing>' exists; cannot create
// '<new>'", kLockHeld "cannot lock references", or I/O errors. Renaming a name to itself
// writes nothing.
Status RenameRef(GitRefStore& store, std::string_view old_name, std::string_view new_name,
                 std::string_view message);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REF_RENAME_H_
