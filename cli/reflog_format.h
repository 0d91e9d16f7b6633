// How `reftab reflog show` prints an entry: git's date modes (--date=...), the oneline
// default ("<abbrev> <selector>: <message>") and --format's placeholders, and the JSON object
// of --format=json. Only printing lives here; which entries and selectors come from
// store/git/refs/reflog.h.
#ifndef REFTAB_CLI_REFLOG_FORMAT_H_
#define REFTAB_CLI_REFLOG_FORMAT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "format/record.h"
#include "format/status.h"
#include "store/git/date_format.h"

namespace reftab::cli {

// --date's mode (git's date formats, store/git/date_format.h) and whether it was given.
struct DateFormat {
  DateMode mode;
  bool explicit_ = false;  // --date was given: selectors show dates, as git's
};

// One entry as the formatter sees it.
struct ReflogLine {
  const LogRecord* entry = nullptr;
  std::string selector;        // %gD: "<ref>@{N}" or "<ref>@{<date>}"
  std::string short_selector;  // %gd: the same with the ref name shortened
  size_t hash_size = 20;
  // With colours on, the default line's id in this colour (an escape, maybe empty; git
  // writes the reset after it all the same).
  std::optional<std::string> id_color;
  // The default line's decoration after the id (" (HEAD -> main)"), escapes included.
  std::string decoration;
};

// The parts of a commit that --format's commit placeholders print.
struct CommitFields {
  std::string subject;
  std::string author_name, author_email, committer_name, committer_email;
  uint64_t author_time = 0, committer_time = 0;
  int author_tz = 0, committer_tz = 0;
  std::string tree;     // full hex
  std::string parents;  // full hex ids, space separated
};

// What the formatter asks for lazily: the abbreviated new id (%h) and, for placeholders that
// need the commit (%s, %an, ...), its content. Either may fail (no object database).
struct ReflogObjects {
  std::function<Result<std::string>(const ObjectId&)> abbrev;
  std::function<Result<CommitFields>(const ObjectId&)> commit;
};

// git's oneline default: "<abbrev>[<decoration>] <selector>: <message as stored>" (the stored
// message brings its own newline).
Status AppendDefaultLine(const ReflogLine& line, ReflogObjects& objects, std::string* out);
// --format=<fmt> (tformat: a newline after every entry). Unknown placeholders are copied as
// git copies them.
Status AppendFormattedLine(std::string_view fmt, const ReflogLine& line, const DateFormat& date,
                           ReflogObjects& objects, std::string* out);
// --format=json: one object per entry, byte strings as in `reftab dump` (cli/jsonl.h).
void AppendJsonLine(const ReflogLine& line, std::string* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REFLOG_FORMAT_H_
