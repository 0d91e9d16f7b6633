// git's colour specifications ("bold red", "#ff0000 ul", "reset", "no-italic 208") turned
// into ANSI escape sequences exactly as git writes them, and git's colour switch values.
#ifndef REFTAB_CLI_GIT_COLOR_H_
#define REFTAB_CLI_GIT_COLOR_H_

#include <optional>
#include <string>
#include <string_view>

namespace reftab::cli {

inline constexpr char kGitColorReset[] = "\033[m";

// Sets *escape ("" for a blank spec); false when git rejects the spec.
bool ParseGitColor(std::string_view spec, std::string* escape);

enum class ColorWhen : unsigned char { kUnknown, kNever, kAlways, kAuto };
// "never"/"always"/"auto" (any case); kUnknown for anything else.
ColorWhen ParseColorWhen(std::string_view value);
// Whether colours are on for standard output: kAuto means a terminal that is not "dumb".
bool WantColor(ColorWhen when);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_GIT_COLOR_H_
