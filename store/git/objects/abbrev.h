// Public API: abbreviated object ids as git prints them, one rule for every command:
// core.abbrev read and checked as git's config reader checks it, --abbrev=<n> kept as git's
// option parser keeps it, and the length git settles on for one id (at least the asked
// length, and as much longer as it takes to name no other object).
#ifndef REFTAB_STORE_GIT_OBJECTS_ABBREV_H_
#define REFTAB_STORE_GIT_OBJECTS_ABBREV_H_

#include <cstddef>
#include <string>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/config/config.h"
#include "store/git/objects/objects.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// A requested length. kAbbrevDefault is git's DEFAULT_ABBREV: core.abbrev's length, or the
// automatic one (from the number of objects) when core.abbrev is unset or "auto".
// kAbbrevFull is the whole id. Any other value is a minimum; a minimum of the whole id's
// length or more is the whole id.
inline constexpr int kAbbrevDefault = -1;
inline constexpr int kAbbrevFull = 0;
// git's MINIMUM_ABBREV: the shortest core.abbrev git accepts, and what --abbrev=1..3 become.
inline constexpr int kMinimumAbbrev = 4;
// git's FALLBACK_DEFAULT_ABBREV: the automatic length of a small database.
inline constexpr int kFallbackAbbrev = 7;

// core.abbrev as git reads it (every entry in order, as git's config callback sees them: a
// bad entry fails even when a later one is good):
//   unset, "auto" (any case)                   kAbbrevDefault (the automatic length)
//   "false", "no", "off" (any case), ""        kAbbrevFull
//   a number (git_config_int: k, m, g units)   that length; below kMinimumAbbrev refused
// Failures carry git's fatal message (without "fatal: "): "bad numeric config value 'x' for
// 'core.abbrev' in file .git/config: invalid unit" for "x" (also "true", "yes", "on"); for a
// length below the minimum or a key without '=', "bad config variable 'core.abbrev' in file
// '<file>' at line <n>" (or "unable to parse 'core.abbrev' from command-line config") with
// *error holding the line git prints first, without "error: " ("abbrev length out of range:
// 3", "missing value for 'core.abbrev'"). *error is left empty when git prints no such line.
Result<int> ReadCoreAbbrev(const GitConfig& config, std::string* error);

// The value of --abbrev=<n> / --hash=<n> as git's parse_opt_abbrev_cb keeps it: 0 is
// kAbbrevFull, any other value below kMinimumAbbrev (negative ones too) is kMinimumAbbrev.
int ClampAbbrevOption(long n);

// Abbreviates ids as git's repo_find_unique_abbrev does. The automatic length counts the
// database's objects (pack indexes, as git counts them) once, on first use.
class GitAbbreviator {
 public:
  // `objects`: the database that keeps prefixes unique; must outlive this object. Null when
  // there is none to ask (a stack without a repository): ids are then taken on trust and cut
  // to the length, the automatic length being kFallbackAbbrev. `core_abbrev` is
  // ReadCoreAbbrev's value; `hash_size` 20 or 32.
  GitAbbreviator(GitObjects* objects, size_t hash_size, int core_abbrev);

  // The id in hex, abbreviated to `length` (kAbbrevDefault, kAbbrevFull, or a minimum).
  // Errors are the database's: unavailable (IoError with its reason()) or unreadable.
  Status Abbreviate(const ObjectId& id, int length, std::string* hex);
  // As Abbreviate, but when the database cannot be read (no objects directory) the id is cut to the
  // length on trust, as for a store without a database: what git prints as long as that prefix is
  // unique, which a small repository's is.
  Status AbbreviateOrTrust(const ObjectId& id, int length, std::string* hex);

 private:
  // The shortest length asked for, or 0 for the whole id.
  Status MinimumLength(int length, size_t* len);

  GitObjects* objects_;
  size_t hash_size_;
  int core_abbrev_;
  size_t automatic_ = 0;  // the automatic length, 0 until counted
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_ABBREV_H_
