// Public API: abbreviated object ids as input, read as git's get_short_oid reads them: every
// object whose id starts with the digits is a candidate; more than one is ambiguous unless
// exactly one has the kind the context wants (a commit for "X~1", core.disambiguate
// otherwise), and git's hint lists the candidates.
#ifndef REFTAB_STORE_GIT_OBJECTS_SHORT_ID_H_
#define REFTAB_STORE_GIT_OBJECTS_SHORT_ID_H_

#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/config/config.h"
#include "store/git/objects/objects.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// Which candidates an ambiguous prefix prefers (git's disambiguation hints).
enum class ObjectKindHint { kAny, kCommit, kCommittish, kTree, kTreeish, kBlob };

// core.disambiguate as git reads it ("none", "commit", "committish", "tree", "treeish",
// "blob", any case); kAny when unset or unknown.
ObjectKindHint ReadCoreDisambiguate(const GitConfig& config);

struct ShortIdResult {
  enum class Kind { kMissing, kFound, kAmbiguous };
  Kind kind = Kind::kMissing;
  ObjectId id{};  // kFound
  // kAmbiguous when `describe` was asked: git's hint lines without "hint: " — "The
  // candidates are:", then one per candidate ("  1234abc commit 2023-11-14 - subject",
  // "  1234abd tree"), tags first, then commits, trees and blobs, each kind by id.
  std::vector<std::string> hints;
};

// Looks `hex` up (4 to 64 hex digits, as git: digits past the id's length must be zeros to
// match; anything else is kMissing) with `hint`.
// `core_abbrev` (ReadCoreAbbrev's value) abbreviates the candidates the hint lists.
// Errors: the database's (unavailable, unreadable).
Status ResolveShortId(GitObjects& objects, size_t hash_size, int core_abbrev, std::string_view hex,
                      ObjectKindHint hint, bool describe, ShortIdResult* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_SHORT_ID_H_
