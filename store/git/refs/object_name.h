// Public API: git's names for single objects (object-name.c's get_oid), read once for every
// command that takes one — rev-parse, update-ref's values, for-each-ref's --points-at,
// --merged and --contains, the reflog walk's selectors and the C API:
//   <full hex id>, <4+ hex digits> (an abbreviated id; ambiguity as git decides and reports
//     it), <ref name> (git's rev-parse rules, store/git/refs/ref_dwim.h; a ref beats an
//     abbreviated id of the same spelling, with git's warning), "<describe>-g<hex>", "@"
//   <ref>@{N}, @{N}, <ref>@{<date>}, @{<date>}   the reflog (store/git/refs/reflog_at.h)
//   @{-N}, [<branch>]@{upstream|u|push}           store/git/refs/branch_name.h
//   <rev>~N, <rev>^N, <rev>^{}, <rev>^{object|commit|tree|blob|tag}, <rev>^{/<regex>}
//   :/<regex>   the youngest commit reachable from any ref whose message matches
// with git's warnings, errors and hints (ObjectNameResult). Paths (<rev>:<path>, :<path>,
// index stages) are refused with an error saying so; ranges are not single objects.
#ifndef REFTAB_STORE_GIT_REFS_OBJECT_NAME_H_
#define REFTAB_STORE_GIT_REFS_OBJECT_NAME_H_

#include <string_view>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/refs/ref_dwim.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

struct RevisionOptions {
  // git's GET_OID_QUIETLY (rev-parse -q): the top-level name's ambiguity warning and reflog
  // messages are not printed, an @{upstream} that has none is just not found, and the
  // reflog's fatal errors die silently (ObjectNameResult::dies with an empty fatal).
  bool quiet = false;
  // git's GET_OID_ONLY_TO_DIE, the second look git takes at a name that failed before it
  // gives up: no :/<regex> search, and "<rev>:<path>" whose <rev> names nothing dies with
  // "invalid object name '<rev>'.".
  bool only_to_die = false;
  // git's GET_OID_SKIP_AMBIGUITY_CHECK (update-ref): a full hex id is taken without looking
  // for a ref of the same spelling to warn about.
  bool skip_full_id_check = false;
};

// Resolves `name` in `store`. out->found is false when the name names no object (git's
// "unknown revision"): no ref or id matches, a suffix is malformed, an object on the way is
// missing or not of the kind needed, a parent number is past the last parent, a reflog
// selector has no such entry. Check out->dies first: git stops there. out->id is
// unspecified unless found. Errors are I/O and corruption errors, names that need the
// object database where there is none readable (InvalidArgument saying why) and path
// lookups (InvalidArgument: not supported).
Status ResolveRevision(GitRefStore& store, std::string_view name, ObjectNameResult* out,
                       const RevisionOptions& options = {});

// Whether `name` is a full hex object id of the store's hash (into *id): what
// ResolveRevision with skip_full_id_check answers first, without a result to fill (a
// large `update-ref --stdin` asks it twice a line).
bool ParseFullObjectId(const GitRefStore& store, std::string_view name, ObjectId* id);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_OBJECT_NAME_H_
