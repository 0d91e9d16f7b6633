// Public API: how git prints a date. Every date mode git has (its --date=<mode>, and the
// ":<mode>" of for-each-ref's date atoms): default, relative, human, iso (iso8601),
// iso-strict (iso8601-strict), rfc (rfc2822), short, raw, unix, format:<strftime>, their
// -local forms ("local" alone is default-local), and auto:<mode>. Printed as git prints them;
// "relative" and "human" count from git's now (GitDateNow(): GIT_TEST_DATE_NOW when set, else
// the clock), and -local and "human" use the process's time zone (TZ). The one formatter:
// every command that prints a date goes through it.
#ifndef REFTAB_STORE_GIT_DATE_FORMAT_H_
#define REFTAB_STORE_GIT_DATE_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

enum class DateStyle : unsigned char {
  kNormal,
  kRelative,
  kIso,
  kIsoStrict,
  kRfc,
  kShort,
  kRaw,
  kUnix,
  kStrftime,
  kHuman,
};

// A parsed mode; the default-constructed one is git's default.
struct DateMode {
  DateStyle style = DateStyle::kNormal;
  bool local = false;           // the -local forms: shown in the local zone, zone left out
  std::string strftime_format;  // kStrftime: what follows "format:"
};

// Parses a mode as git's parse_date_format does. "auto:<mode>" is <mode> when
// `to_terminal` (git: standard output is a terminal or its pager runs), else "default".
// False with git's fatal message (without "fatal: ") in *error: "unknown date format X",
// "date format missing colon separator: X".
bool ParseDateMode(std::string_view spec, bool to_terminal, DateMode* mode, std::string* error);

// git's show_date: `time` seconds since the epoch, recorded in the zone `tz` (git's +HHMM
// as a decimal, e.g. -130 for -01:30). A time the system cannot break down is shown as the
// epoch in UTC, as git does.
std::string ShowDate(int64_t time, int tz, const DateMode& mode);

// A zone as git prints it: the stored +HHMM decimal with its sign and four digits
// (-830 -> "-0830", 100 -> "+0100").
std::string ZoneText(int tz);

// The local zone's offset at `time`, as git's +HHMM decimal (what the -local modes show).
int LocalZoneOffset(int64_t time);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_DATE_FORMAT_H_
