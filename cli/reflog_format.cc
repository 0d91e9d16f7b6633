#include "cli/reflog_format.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>

#include "cli/git_color.h"
#include "cli/jsonl.h"
#include "store/git/date_format.h"

namespace reftab::cli {

Status AppendDefaultLine(const ReflogLine& line, ReflogObjects& objects, std::string* out) {
  REFTAB_ASSIGN_OR_RETURN(std::string abbrev, objects.abbrev(line.entry->new_id));
  if (line.id_color) {
    out->append(*line.id_color).append(abbrev).append(kGitColorReset);
  } else {
    out->append(abbrev);
  }
  out->append(line.decoration);
  out->append(" ").append(line.selector).append(": ");
  out->append(line.entry->message);
  return Status::Ok();
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The reflog message without the newline it is stored with (git's %gs).
std::string_view Subject(const LogRecord& e) {
  std::string_view m = e.message;
  if (!m.empty()) m.remove_suffix(1);
  return m;
}

// A placeholder that needs only the entry; returns how many bytes of `p` (after '%') it
// used, 0 when it is not one of these.
size_t EntryPlaceholder(std::string_view p, const ReflogLine& line, std::string* out) {
  const LogRecord& e = *line.entry;
  if (p.size() >= 2 && p[0] == 'g') {
    switch (p[1]) {
      case 'd': out->append(line.short_selector); return 2;
      case 'D': out->append(line.selector); return 2;
      case 's': out->append(Subject(e)); return 2;
      case 'n':
      case 'N': out->append(e.name); return 2;
      case 'e':
      case 'E': out->append(e.email); return 2;
      default: return 0;
    }
  }
  if (p[0] == 'H') {
    out->append(HexId(e.new_id, line.hash_size));
    return 1;
  }
  if (p[0] == 'n') {
    out->push_back('\n');
    return 1;
  }
  if (p[0] == '%') {
    out->push_back('%');
    return 1;
  }
  if (p[0] == 'x' && p.size() >= 3 && HexValue(p[1]) >= 0 && HexValue(p[2]) >= 0) {
    out->push_back(char(HexValue(p[1]) * 16 + HexValue(p[2])));
    return 3;
  }
  return 0;
}

// %an %ae %ad %at, %cn %ce %cd %ct for one person of the commit.
size_t PersonPlaceholder(char what, const std::string& name, const std::string& email,
                         uint64_t time, int tz, const DateFormat& date, std::string* out) {
  switch (what) {
    case 'n': out->append(name); return 2;
    case 'e': out->append(email); return 2;
    case 'd': out->append(ShowDate(int64_t(time), tz, date.mode)); return 2;
    case 't': out->append(std::to_string(time)); return 2;
    default: return 0;
  }
}

// Whether `p` starts with a placeholder that needs the commit object.
bool NeedsCommit(std::string_view p) {
  if (p.empty()) return false;
  if (p[0] == 's' || p[0] == 'T' || p[0] == 'P') return true;
  return p.size() >= 2 && (p[0] == 'a' || p[0] == 'c') &&
         std::string_view("nedt").find(p[1]) != std::string_view::npos;
}

size_t CommitPlaceholder(std::string_view p, const CommitFields& c, const DateFormat& date,
                         std::string* out) {
  switch (p[0]) {
    case 's': out->append(c.subject); return 1;
    case 'T': out->append(c.tree); return 1;
    case 'P': out->append(c.parents); return 1;
    case 'a':
      return PersonPlaceholder(p[1], c.author_name, c.author_email, c.author_time, c.author_tz,
                               date, out);
    default:
      return PersonPlaceholder(p[1], c.committer_name, c.committer_email, c.committer_time,
                               c.committer_tz, date, out);
  }
}

}  // namespace

Status AppendFormattedLine(std::string_view fmt, const ReflogLine& line, const DateFormat& date,
                           ReflogObjects& objects, std::string* out) {
  std::optional<CommitFields> commit;
  size_t i = 0;
  while (i < fmt.size()) {
    size_t pct = fmt.find('%', i);
    if (pct == std::string_view::npos) pct = fmt.size();
    out->append(fmt.substr(i, pct - i));
    if (pct + 1 >= fmt.size()) {
      out->append(fmt.substr(pct));
      break;
    }
    std::string_view p = fmt.substr(pct + 1);
    size_t used = EntryPlaceholder(p, line, out);
    if (!used && p[0] == 'h') {
      REFTAB_ASSIGN_OR_RETURN(std::string abbrev, objects.abbrev(line.entry->new_id));
      out->append(abbrev);
      used = 1;
    }
    if (!used && NeedsCommit(p)) {
      if (!commit) {
        REFTAB_ASSIGN_OR_RETURN(CommitFields c, objects.commit(line.entry->new_id));
        commit = std::move(c);
      }
      used = CommitPlaceholder(p, *commit, date, out);
    }
    if (!used) {
      out->push_back('%');  // not a placeholder: git copies it as written
      used = 0;
    }
    i = pct + 1 + used;
  }
  out->push_back('\n');
  return Status::Ok();
}

void AppendJsonLine(const ReflogLine& line, std::string* out) {
  const LogRecord& e = *line.entry;
  out->append("{\"type\":\"reflog\"");
  AppendJsonBytesField("selector", line.selector, out);
  out->append(",\"old_id\":\"").append(HexId(e.old_id, line.hash_size)).append("\"");
  out->append(",\"new_id\":\"").append(HexId(e.new_id, line.hash_size)).append("\"");
  AppendJsonBytesField("committer", e.name, out);
  AppendJsonBytesField("email", e.email, out);
  out->append(",\"time\":").append(std::to_string(e.time));
  out->append(",\"tz_offset\":").append(std::to_string(e.tz_offset));
  out->append(",\"tz\":\"").append(ZoneText(e.tz_offset)).push_back('"');
  AppendJsonBytesField("message", Subject(e), out);
  out->append(",\"update_index\":").append(std::to_string(e.update_index));
  out->append("}\n");
}

}  // namespace reftab::cli
