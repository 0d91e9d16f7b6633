// Public API: git's shortest unambiguous name of a ref (refs_shorten_unambiguous_ref with
// core.warnAmbiguousRefs on, git's default): "refs/heads/main" -> "main" unless another of
// git's rev-parse rules would take "main" to an existing ref, "refs/remotes/origin/HEAD" ->
// "origin".
#ifndef REFTAB_STORE_GIT_SHORT_NAME_H_
#define REFTAB_STORE_GIT_SHORT_NAME_H_

#include <string>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git_ref_store.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// Appends the short name of `refname` to *out. Errors are I/O errors of the lookups.
Status ShortenRefname(GitRefStore& store, const std::string& refname, std::string* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_SHORT_NAME_H_
