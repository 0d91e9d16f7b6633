// Object ids as git's --abbrev shows them: 0 for the full id, a length (at least 4) that
// grows until the prefix names one object, or kAbbrevDefault for core.abbrev ("auto", the
// default: a length from the object count; "no": full ids; or a number).
#ifndef REFTAB_CLI_ABBREV_H_
#define REFTAB_CLI_ABBREV_H_

#include <string>

#include "cli/stack_access.h"

namespace reftab::cli {

inline constexpr int kAbbrevDefault = -1;
inline constexpr int kMinimumAbbrev = 4;

// git's option value for --abbrev[=<n>] / --hash[=<n>]: no value is kAbbrevDefault, a number
// below 4 (but not 0) becomes 4. Returns git's message for a value that is not a number.
std::string ParseAbbrevOption(std::string_view option, bool unset,
                              std::optional<std::string_view> value, int* abbrev);

Status AbbreviateId(Store& store, const ObjectId& id, int abbrev, std::string* hex);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_ABBREV_H_
