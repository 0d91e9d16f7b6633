// git's date formats (--date=..., and the ":<format>" of for-each-ref's date atoms): default,
// relative, iso, iso-strict, rfc, short, raw, unix, format:<strftime>, human, auto:<format>,
// and their -local forms, printed as git prints them ("relative" and "human" against git's
// now: GIT_TEST_DATE_NOW when set, else the clock). The one formatter of the CLI: for-each-ref
// and reflog show both print through it.
#ifndef REFTAB_CLI_GIT_DATE_H_
#define REFTAB_CLI_GIT_DATE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace reftab::cli {

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

struct DateMode {
  DateStyle style = DateStyle::kNormal;
  bool local = false;
  std::string strftime_format;
};

// Parses a date format name; false with git's message ("unknown date format X", "date format
// missing colon separator: X") in *error.
bool ParseDateMode(std::string_view spec, DateMode* mode, std::string* error);

// `time` seconds since the epoch in the zone `tz` (git's +HHMM as a decimal, e.g. -130).
std::string ShowDate(int64_t time, int tz, const DateMode& mode);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_GIT_DATE_H_
