// Public API: the trailers of a commit or tag message ("Signed-off-by: ..." lines in the last
// paragraph) as git finds and prints them for %(trailers) of for-each-ref and
// %(contents:trailers): which paragraph is the trailer block, how lines fold, how keys are
// matched and what the options (key=, only, unfold, keyonly, valueonly, separator=,
// key_value_separator=) print. Pure functions over text and config; no I/O.
#ifndef REFTAB_STORE_GIT_TRAILER_H_
#define REFTAB_STORE_GIT_TRAILER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/visibility.h"
#include "store/git/config/config.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// What the config says about trailers, read once per command.
struct GitTrailerConfig {
  std::string separators = ":";  // trailer.separators
  std::string comment = "#";     // core.commentString / core.commentChar
  // Each trailer.<name>.<var> names a known trailer; .key replaces how its token is printed.
  struct Item {
    std::string name;
    std::optional<std::string> key;
  };
  std::vector<Item> items;
};
GitTrailerConfig ReadTrailerConfig(const GitConfig& config);

// The options of %(trailers:...), as git's format_set_trailers_options keeps them.
struct GitTrailerOptions {
  bool only = false;    // only trailers, no other lines of the block (key= sets it)
  bool unfold = false;  // continuation lines joined into one
  bool key_only = false;
  bool value_only = false;
  bool filter = false;                   // key= given: only trailers whose key is one of `keys`
  std::vector<std::string> keys;         // compared case-insensitively, one trailing ':' dropped
  std::optional<std::string> separator;  // between trailers, instead of a newline
  std::optional<std::string> key_value_separator;  // instead of ": "
};

// Parses the comma-separated options after "trailers:" (`arg` without a closing ')').
// Returns false on an option git refuses; *invalid then holds it as git names it ("bogus";
// after a boolean with a bad value such as "only=maybe", git names what follows it, maybe
// ""), or is nullopt for a "key" without a value (git says "expected
// %(trailers:key=<value>)"). %n and %xNN in separator values are expanded as git does.
bool ParseTrailerOptions(std::string_view arg, GitTrailerOptions* options,
                         std::optional<std::string>* invalid);

// The trailer block of `message` (from the subject on, without a signature) printed as the
// options ask; the block unchanged when no option changes it. As ref-filter, a "---" line does
// not end the message.
std::string FormatTrailers(std::string_view message, const GitTrailerOptions& options,
                           const GitTrailerConfig& config);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_TRAILER_H_
