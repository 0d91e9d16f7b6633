// git's colour specifications ("bold red", "#ff0000 ul", "reset", "no-italic 208") turned
// into ANSI escape sequences exactly as git writes them, and git's colour switch values.
#ifndef REFTAB_CLI_GIT_COLOR_H_
#define REFTAB_CLI_GIT_COLOR_H_

#include <optional>
#include <string>
#include <string_view>

#include "format/status.h"
#include "store/git/config/config.h"

namespace reftab::cli {

inline constexpr char kGitColorReset[] = "\033[m";

// Sets *escape ("" for a blank spec); false when git rejects the spec.
bool ParseGitColor(std::string_view spec, std::string* escape);

enum class ColorWhen : unsigned char { kUnknown, kNever, kAlways, kAuto };
// "never"/"always"/"auto" (any case); kUnknown for anything else.
ColorWhen ParseColorWhen(std::string_view value);
// Whether colours are on for standard output: kAuto means a terminal that is not "dumb"
// (directly, or through the pager, cli/pager.h, when `pager_color`: git's color.pager).
bool WantColor(ColorWhen when, bool pager_color = true);

// git log's colour settings (what `reflog show` colours), read as git reads them: whether
// (color.diff, else color.ui: never/always/auto or a boolean, true meaning auto; default
// auto) and the abbreviated id's colour (color.diff.commit, default yellow). A value git
// rejects fails with git's fatal message; `error` then gets the error line git prints before
// it, if any (without "error: ").
// Also color.decorate.<slot>: the colours of log's decorations (cli/ref_decorations.h), by
// DecorationType, the first (reset) not configurable.
// color.pager (or pager.color): whether kAuto colours what goes through the pager.
struct LogColorConfig {
  ColorWhen when = ColorWhen::kAuto;
  bool pager = true;
  std::string commit = "\033[33m";
  std::string decorate[7] = {kGitColorReset, "\033[1;32m", "\033[1;31m", "\033[1;33m",
                             "\033[1;35m",   "\033[1;36m", "\033[1;34m"};
};
Result<LogColorConfig> ReadLogColorConfig(const GitConfig& config, std::string* error);

// Whether `key` is color.pager or its old name pager.color.
bool IsPagerColorKey(std::string_view key);
// color.pager (or pager.color), which git's default configuration reads in every command
// that reads it: the last value, true when unset; a value that is no boolean fails with
// git's message.
Result<bool> ReadPagerColor(const GitConfig& config);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_GIT_COLOR_H_
