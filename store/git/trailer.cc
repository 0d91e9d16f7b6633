// git's trailer rules (trailer.c, and the option syntax of pretty.c), for reading: the trailer
// block is the last paragraph when all its lines are trailers, or when a git-generated one
// ("Signed-off-by: ") or a configured one is among them and trailers are at least a quarter of
// its lines. Offsets are kept as in git, over a NUL-free message.
#include "store/git/trailer.h"

#include <strings.h>

#include <cctype>
#include <cstring>

#include "format/record.h"

namespace reftab {
namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool CaseEqualPrefix(std::string_view a, std::string_view b, size_t n) {
  // strncasecmp: a shorter string compares by its end (NUL) as a lower byte.
  for (size_t i = 0; i < n; ++i) {
    char x = i < a.size() ? a[i] : '\0', y = i < b.size() ? b[i] : '\0';
    if (std::tolower(static_cast<unsigned char>(x)) != std::tolower(static_cast<unsigned char>(y)))
      return false;
    if (x == '\0') return true;
  }
  return true;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// The position after the end of the line at `pos` ('\n' included), or the message's end.
size_t NextLine(std::string_view s, size_t pos) {
  size_t nl = s.find('\n', pos);
  return nl == std::string_view::npos ? s.size() : nl + 1;
}

// The start of the line before `len` (a final '\n' belongs to its line); -1 when len is 0.
long LastLine(std::string_view s, size_t len) {
  if (len == 0) return -1;
  if (len == 1) return 0;
  for (long i = long(len) - 2; i >= 0; --i) {
    if (s[size_t(i)] == '\n') return i + 1;
  }
  return 0;
}

bool BlankLine(std::string_view s, size_t pos) {
  for (; pos < s.size() && s[pos] != '\n'; ++pos) {
    if (!IsSpace(s[pos])) return false;
  }
  return true;
}

// "<token><blanks><separator>" or "<separator>": the separator's offset, else -1.
long FindSeparator(std::string_view line, const std::string& separators) {
  bool blank_seen = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (separators.find(c) != std::string::npos) return long(i);
    if (!blank_seen && (IsAlnum(c) || c == '-')) continue;
    if (i != 0 && (c == ' ' || c == '\t')) {
      blank_seen = true;
      continue;
    }
    break;
  }
  return -1;
}

bool TokenMatchesItem(std::string_view token, const GitTrailerConfig::Item& item, size_t len) {
  if (CaseEqualPrefix(token, item.name, len)) return true;
  return item.key && CaseEqualPrefix(token, *item.key, len);
}

// The message without what git ignores at its end: a scissors line and what follows, and
// trailing comment and blank lines (and an old "Conflicts:" block).
size_t EndOfLogMessage(std::string_view s, const std::string& comment) {
  size_t len = s.size();
  const std::string cut =
      "\n" + comment + " ------------------------ >8 ------------------------\n";
  size_t cutoff = len;
  if (s.starts_with(std::string_view(cut).substr(1))) {
    cutoff = 0;
  } else if (size_t p = s.find(cut); p != std::string_view::npos && p + 1 < len) {
    cutoff = p + 1;
  }
  size_t boc = 0, bol = 0;
  bool in_conflicts = false;
  while (bol < cutoff) {
    size_t next = NextLine(s, bol);
    std::string_view line = s.substr(bol, cutoff - bol);
    if (line.starts_with(comment) || s[bol] == '\n') {
      if (!boc) boc = bol;
    } else if (s.substr(bol).starts_with("Conflicts:\n")) {
      in_conflicts = true;
      if (!boc) boc = bol;
    } else if (in_conflicts && s[bol] == '\t') {
    } else if (boc) {
      boc = 0;
      in_conflicts = false;
    }
    bol = next;
  }
  return len - (boc ? len - boc : len - cutoff);
}

size_t TrailerBlockStart(std::string_view s, size_t len, const GitTrailerConfig& config) {
  const std::string& comment = config.comment;
  size_t pos = 0;
  for (; pos < len; pos = NextLine(s, pos)) {  // the title paragraph cannot be trailers
    if (s.substr(pos, len - pos).starts_with(comment)) continue;
    if (BlankLine(s, pos)) break;
  }
  const long end_of_title = long(pos);
  bool only_spaces = true, recognized = false;
  int trailer_lines = 0, non_trailer_lines = 0, possible_continuations = 0;
  for (long l = LastLine(s, len); l >= end_of_title; l = LastLine(s, size_t(l))) {
    const size_t bol = size_t(l);
    std::string_view line = s.substr(bol);
    if (s.substr(bol, len - bol).starts_with(comment)) {
      non_trailer_lines += possible_continuations;
      possible_continuations = 0;
      continue;
    }
    if (BlankLine(s, bol)) {
      if (only_spaces) continue;
      non_trailer_lines += possible_continuations;
      if ((recognized && trailer_lines * 3 >= non_trailer_lines) ||
          (trailer_lines && !non_trailer_lines)) {
        return NextLine(s, bol);
      }
      return len;
    }
    only_spaces = false;
    if (line.starts_with("Signed-off-by: ") || line.starts_with("(cherry picked from commit ")) {
      ++trailer_lines;
      possible_continuations = 0;
      recognized = true;
      continue;
    }
    long sep = FindSeparator(line, config.separators);
    if (sep >= 1 && !IsSpace(line[0])) {
      ++trailer_lines;
      possible_continuations = 0;
      if (recognized) continue;
      for (const GitTrailerConfig::Item& item : config.items) {
        if (TokenMatchesItem(line, item, size_t(sep))) {
          recognized = true;
          break;
        }
      }
    } else if (IsSpace(line[0])) {
      ++possible_continuations;
    } else {
      non_trailer_lines += 1 + possible_continuations;
      possible_continuations = 0;
    }
  }
  return len;
}

// A continuation's line break and the blanks after it become one space.
std::string Unfold(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    char c = v[i++];
    if (c == '\n') {
      while (i < v.size() && IsSpace(v[i])) ++i;
      c = ' ';
    }
    out.push_back(c);
  }
  return Trim(out);
}

struct Trailer {
  bool is_trailer = false;  // else a line of the block that is not a trailer
  std::string token, value;
};

bool KeyWanted(const GitTrailerOptions& o, const std::string& token) {
  for (const std::string& k : o.keys) {
    if (k.size() == token.size() && CaseEqualPrefix(k, token, k.size())) return true;
  }
  return false;
}

// %n, %xNN and %% of separator values; any other '%' stays.
std::string ExpandLiteral(std::string_view v) {
  auto hex = HexDigitValue;
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '%') {
      out.push_back(v[i]);
    } else if (i + 1 < v.size() && v[i + 1] == '%') {
      out.push_back('%');
      ++i;
    } else if (i + 1 < v.size() && v[i + 1] == 'n') {
      out.push_back('\n');
      ++i;
    } else if (i + 3 < v.size() && v[i + 1] == 'x' && hex(v[i + 2]) >= 0 && hex(v[i + 3]) >= 0) {
      out.push_back(char(hex(v[i + 2]) * 16 + hex(v[i + 3])));
      i += 3;
    } else {
      out.push_back('%');
    }
  }
  return out;
}

// One "name[=value]" of the list at *arg: git's match_placeholder_arg_value. On a match
// *arg moves past it (and its comma).
bool MatchOption(std::string_view* arg, std::string_view name, std::optional<std::string_view>* v) {
  if (!arg->starts_with(name)) return false;
  std::string_view rest = arg->substr(name.size());
  v->reset();
  if (!rest.empty() && rest[0] == '=') {
    size_t end = rest.find(',');
    *v = rest.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
    rest.remove_prefix(1 + (*v)->size());
  } else if (!rest.empty() && rest[0] != ',') {
    return false;
  }
  if (!rest.empty()) rest.remove_prefix(1);  // the comma
  *arg = rest;
  return true;
}

// A boolean option. As in git, an option whose value is not a boolean is consumed all the
// same before the match fails: the next option is then tried on what follows it.
bool MatchBool(std::string_view* arg, std::string_view name, bool* out) {
  std::optional<std::string_view> v;
  if (!MatchOption(arg, name, &v)) return false;
  if (v) {
    std::optional<bool> b = ParseGitBool(std::string(*v));
    if (!b) return false;
    *out = *b;
  } else {
    *out = true;
  }
  return true;
}

}  // namespace

GitTrailerConfig ReadTrailerConfig(const GitConfig& config) {
  GitTrailerConfig c;
  static constexpr std::string_view kItemVars[] = {"key",   "command",  "cmd",
                                                   "where", "ifexists", "ifmissing"};
  for (const ConfigEntry& e : config.entries()) {
    std::string_view key = e.key;
    if ((key == "core.commentstring" || key == "core.commentchar") && e.value &&
        !e.value->empty() && *e.value != "auto") {
      c.comment = *e.value;
    }
    if (!key.starts_with("trailer.")) continue;
    key.remove_prefix(8);
    size_t dot = key.rfind('.');
    if (dot == std::string_view::npos) {
      if (key == "separators" && e.value) c.separators = *e.value;
      continue;
    }
    std::string_view var = key.substr(dot + 1), name = key.substr(0, dot);
    bool known = false;
    for (std::string_view v : kItemVars) known |= v == var;
    if (!known) continue;
    GitTrailerConfig::Item* item = nullptr;
    for (GitTrailerConfig::Item& i : c.items) {
      if (i.name.size() == name.size() && strncasecmp(i.name.data(), name.data(), name.size()) == 0)
        item = &i;
    }
    if (!item) item = &c.items.emplace_back(GitTrailerConfig::Item{std::string(name), {}});
    if (var == "key" && e.value) item->key = *e.value;  // the last one wins
  }
  return c;
}

bool ParseTrailerOptions(std::string_view arg, GitTrailerOptions* o,
                         std::optional<std::string>* invalid) {
  invalid->reset();
  while (!arg.empty()) {
    std::optional<std::string_view> v;
    if (MatchOption(&arg, "key", &v)) {
      if (!v) return false;
      std::string_view key = *v;
      if (!key.empty() && key.back() == ':') key.remove_suffix(1);
      o->keys.emplace_back(key);
      o->filter = true;
      o->only = true;
    } else if (MatchOption(&arg, "separator", &v)) {
      o->separator = ExpandLiteral(v.value_or(""));
    } else if (MatchOption(&arg, "key_value_separator", &v)) {
      o->key_value_separator = ExpandLiteral(v.value_or(""));
    } else if (!MatchBool(&arg, "only", &o->only) && !MatchBool(&arg, "unfold", &o->unfold) &&
               !MatchBool(&arg, "keyonly", &o->key_only) &&
               !MatchBool(&arg, "valueonly", &o->value_only)) {
      *invalid = std::string(arg.substr(0, arg.find(',')));
      return false;
    }
  }
  return true;
}

std::string FormatTrailers(std::string_view message, const GitTrailerOptions& o,
                           const GitTrailerConfig& config) {
  message = message.substr(0, message.find('\0'));
  const size_t end = EndOfLogMessage(message, config.comment);
  const size_t start = TrailerBlockStart(message, end, config);
  const bool plain = !o.only && !o.unfold && !o.filter && !o.separator && !o.key_only &&
                     !o.value_only && !o.key_value_separator;
  if (plain) return std::string(message.substr(start, end - start));

  // The block's lines, continuation lines joined to the trailer before them.
  std::vector<std::string> lines;
  bool last_is_trailer = false;
  for (size_t pos = start; pos < end;) {
    size_t next = std::min(NextLine(message, pos), end);
    std::string_view line = message.substr(pos, next - pos);
    pos = next;
    if (last_is_trailer && IsSpace(line[0])) {
      lines.back().append(line);
      continue;
    }
    lines.emplace_back(line);
    last_is_trailer = FindSeparator(line, config.separators) >= 1;
  }
  std::vector<Trailer> trailers;
  for (const std::string& line : lines) {
    if (std::string_view(line).starts_with(config.comment)) continue;
    long sep = FindSeparator(line, config.separators);
    Trailer t;
    if (sep >= 1) {
      t.is_trailer = true;
      t.token = Trim(std::string_view(line).substr(0, size_t(sep)));
      t.value = Trim(std::string_view(line).substr(size_t(sep) + 1));
      size_t len = t.token.size();
      while (len > 0 && !IsAlnum(t.token[len - 1])) --len;
      for (const GitTrailerConfig::Item& item : config.items) {
        if (TokenMatchesItem(t.token, item, len)) {
          if (item.key) t.token = *item.key;
          break;
        }
      }
      if (o.unfold) t.value = Unfold(t.value);
    } else if (!o.only) {
      t.value = line;
      if (!t.value.empty() && t.value.back() == '\n') t.value.pop_back();
    } else {
      continue;
    }
    trailers.push_back(std::move(t));
  }

  std::string out;
  for (const Trailer& t : trailers) {
    if (t.is_trailer) {
      if (o.filter && !KeyWanted(o, t.token)) continue;
      if (o.separator && !out.empty()) out.append(*o.separator);
      if (!o.value_only) out.append(t.token);
      if (!o.key_only && !o.value_only) {
        if (o.key_value_separator) {
          out.append(*o.key_value_separator);
        } else {
          size_t i = t.token.size();
          while (i > 0 && IsSpace(t.token[i - 1])) --i;
          char c = i ? t.token[i - 1] : '\0';
          if (c && config.separators.find(c) == std::string::npos) {
            out.push_back(config.separators.empty() ? '\0' : config.separators[0]);
            out.push_back(' ');
          }
        }
      }
      if (!o.key_only) out.append(t.value);
      if (!o.separator) out.push_back('\n');
    } else if (!o.only) {
      if (o.separator && !out.empty()) out.append(*o.separator);
      out.append(t.value);
      if (o.separator) {
        while (!out.empty() && IsSpace(out.back())) out.pop_back();
      } else {
        out.push_back('\n');
      }
    }
  }
  return out;
}

}  // namespace reftab
