// The object names for-each-ref's --points-at, --merged and --contains take: a full hex id, or
// a ref name as git's rev-parse rules find it ("main", "v1.0", "origin/main"), optionally
// followed by git's "~N", "^N", "^{}", "^{commit}" and "^{tree}" suffixes. (Abbreviated ids
// and the rest of git's revision syntax are not understood.)
#ifndef REFTAB_CLI_OBJECT_NAME_H_
#define REFTAB_CLI_OBJECT_NAME_H_

#include <string>

#include "format/record.h"
#include "store/git/refs/ref_store.h"

namespace reftab::cli {

// False when the name does not name an object (git: "malformed object name").
bool ResolveObjectName(GitRefStore& store, const std::string& name, ObjectId* id);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_OBJECT_NAME_H_
