// Public API: the object names for-each-ref's --points-at, --merged and --contains take, read
// as git reads them: a name ResolveObjectName understands (a full hex id, "@", or a ref name
// by git's rev-parse rules: "main", "v1.0", "origin/main"), optionally followed by git's
// "~N", "^N", "^{}", "^{object}" and "^{<type>}" suffixes (commit, tree, blob, tag: peeled as
// git peels, with git's error line when the chain ends in another type), applied left to
// right. Abbreviated ids and the rest of git's revision syntax are not understood.
#ifndef REFTAB_STORE_GIT_REFS_OBJECT_NAME_H_
#define REFTAB_STORE_GIT_REFS_OBJECT_NAME_H_

#include <string_view>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/refs/ref_dwim.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// Resolves `name` in `store`. out->found is false when the name names no object: no ref or
// id matches, a suffix is malformed, an object on the way is missing or not a commit where
// one is needed, or a parent number is past the last parent (git: "malformed object name").
// out->id is then unspecified; out->warnings holds git's warnings either way. Errors are
// I/O and corruption errors (a commit that does not parse), and suffixes over a store
// without a readable object database (InvalidArgument, saying why).
Status ResolveRevision(GitRefStore& store, std::string_view name, ObjectNameResult* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_OBJECT_NAME_H_
