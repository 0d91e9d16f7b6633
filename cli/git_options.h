// Option parsing the way git's parse-options does it, so that reftab's git commands accept
// the same spellings and fail with the same words: "-qs" bundles, "--opt=value" and
// "--opt value", "--no-opt", unique abbreviations of long names ("--verif"), "--" and
// "--end-of-options", options after operands; "-h" (alone) or "--help" prints git's usage
// layout on stdout (exit 0); errors print "error: ..." and the usage on stderr (exit 129).
#ifndef REFTAB_CLI_GIT_OPTIONS_H_
#define REFTAB_CLI_GIT_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"

namespace reftab::cli {

struct GitOption {
  // kOptional: a value only after '=' ("--color=always"); kLastArgDefault: after '=', else
  // the next argument if there is one, else none (git's PARSE_OPT_LASTARG_DEFAULT).
  enum class Arg { kNone, kRequired, kOptional, kLastArgDefault };
  char short_name = 0;
  std::string_view long_name;  // empty: short only
  Arg arg = Arg::kNone;
  std::string_view arg_help;  // "reason" (shown as <reason>), or literal "[=<n>]"-free text
  std::string_view help;
  bool negatable = true;
  bool hidden = false;  // accepted but not listed in the usage
  // Only the full name is accepted (reftab's additions, so that git's abbreviations and
  // messages stay what they are in git).
  bool exact = false;
  // Not an option: a blank line in the usage before the next options (git's OPT_GROUP("")).
  bool group = false;
  // Called for each occurrence: `unset` for --no-<name>, `value` when one was given. Returns
  // an error message (printed as "error: <message>"), empty when the value is fine.
  std::function<std::string(bool unset, std::optional<std::string_view> value)> set;
};

// A flag option: sets *target to true (false with --no-).
GitOption FlagOption(char short_name, std::string_view long_name, std::string_view help,
                     bool* target);

// A string option as git's OPT_STRING: takes a value into *target; --no-<name> clears it.
GitOption StringOption(char short_name, std::string_view long_name, std::string_view arg_help,
                       std::string_view help, std::optional<std::string>* target);

// An integer option as git's OPT_INTEGER reads it: "0x10", "-3", k/m/g suffixes, within int;
// --no-<name> sets 0.
GitOption IntegerOption(char short_name, std::string_view long_name, std::string_view arg_help,
                        std::string_view help, int64_t* target);

// A blank line between groups of options in the usage.
GitOption GroupOption();

struct GitUsage {
  std::vector<std::string_view> lines;  // "git show-ref [--head] ..." (no "usage: ")
  std::vector<GitOption> options;
};

// Parses `args`; fills `operands` with what is not an option. Returns nullopt to go on, or
// the exit status after printing usage or an error.
std::optional<int> ParseGitOptions(const Args& args, const GitUsage& usage, Args* operands);

// git's usage block (to stdout or stderr), and usage_with_options' exit status 129.
void PrintGitUsage(const GitUsage& usage, FILE* out);
int GitUsageError(const GitUsage& usage);
// git's usage(msg): "usage: <msg>" on stderr, exit 129.
int GitUsageMessage(std::string_view message);
// git's death on a config value it refuses: "error: <error>" when there is one, then
// "fatal: <status' message>"; exit 128.
int GitConfigDie(const Status& status, std::string_view error);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_GIT_OPTIONS_H_
