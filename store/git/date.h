// Public API: the dates git reads in reflog commands (`--expire=<time>`, `REF@{<date>}`),
// a subset of git's approximate date parser: the ones scripts use. Anything else is refused
// with a message saying so rather than guessed.
#ifndef REFTAB_STORE_GIT_DATE_H_
#define REFTAB_STORE_GIT_DATE_H_

#include <cstdint>
#include <string_view>

#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// git's "now" for relative dates: $GIT_TEST_DATE_NOW when set (as git), else the clock.
uint64_t GitDateNow();

// A point in time, as git's approxidate reads it, in seconds since the epoch:
//   @SECONDS, or a plain number of at least nine digits   seconds since the epoch
//   YYYY-MM-DD[( |T)HH:MM[:SS]][ ]([+-]HHMM|Z)?           local time without a zone
//   N (second|minute|hour|day|week|month|year)s? ago      also with '.' for ' '
//   now, yesterday                                         relative to `now`
// kInvalidArgument for anything else.
Status ParseApproxDate(std::string_view text, uint64_t now, uint64_t* out);

// git's expiry times: "never"/"false" are 0 (nothing is older), "all"/"now" every entry
// (UINT64_MAX), otherwise ParseApproxDate.
Status ParseExpiryDate(std::string_view text, uint64_t now, uint64_t* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_DATE_H_
