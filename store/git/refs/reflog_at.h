// Public API: the value a ref had at a point of its reflog, as git's read_ref_at finds it for
// `REF@{N}` (the Nth prior value) and `REF@{<date>}` (the value at that time), with git's
// warnings about gaps and logs that do not reach back far enough.
#ifndef REFTAB_STORE_GIT_REFS_REFLOG_AT_H_
#define REFTAB_STORE_GIT_REFS_REFLOG_AT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/refs/ref_store.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

struct RefAtResult {
  // Whether the entry asked for exists (git's read_ref_at returning 0). When false, `id` is
  // the oldest entry's old value (its new one for a date when the old one is zero), or the
  // id the caller passed in for @{0} of an empty log.
  bool found = false;
  // The reflog has no entry at all and an entry other than @{0} was asked for: git dies
  // with "log for <refname> is empty".
  bool empty = false;
  ObjectId id{};
  // The last entry looked at: its time and zone, and how many entries came before it
  // (for a miss, all of them).
  uint64_t cutoff_time = 0;
  int cutoff_tz = 0;
  int cutoff_count = 0;
  // git's warnings, without "warning: " ("log for ref refs/heads/main has gap after ...").
  std::vector<std::string> warnings;
};

// Reads `refname`'s reflog (its full name, as DwimReflog gives it) for the entry at `at_time`
// (seconds since the epoch; 0 to count instead) or, counting, the `count`th prior value.
// `current` is the ref's value now, the answer for @{0} of a log without entries.
Status ReadRefAt(GitRefStore& store, std::string_view refname, uint64_t at_time, int count,
                 const ObjectId& current, RefAtResult* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REFLOG_AT_H_
