// git's config syntax and typed values (store/git/config/config.h). The levels and includes are in
// git_config_load.cc, the settings git's reftable backend derives in git_config_settings.cc.
#include "store/git/config/config.h"

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "store/git/config/config_internal.h"

namespace reftab {
namespace {

bool IsKeyChar(int c) { return std::isalnum(c) || c == '-'; }

// Characters as git's config reader delivers them: "\r\n" becomes '\n', the end of input is
// reported as a '\n' with eof() set (again on every later call), and line() counts the
// newlines consumed, starting at 1.
class CharReader {
 public:
  explicit CharReader(std::string_view text) : text_(text) {}
  int Next() {
    int c = Raw();
    if (c == '\r') {
      int d = Raw();
      if (d == '\n') {
        c = '\n';
      } else if (d != kEnd) {
        --pos_;
      }
    }
    if (c == kEnd) {
      eof_ = true;
      ++line_;
      return '\n';
    }
    if (c == '\n') ++line_;
    return c;
  }
  bool eof() const { return eof_; }
  int line() const { return line_; }
  void set_line(int line) { line_ = line; }
  // Skips a UTF-8 byte order mark; false for a partial one (git refuses those).
  bool SkipBom() {
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    size_t n = 0;
    while (n < kBom.size() && n < text_.size() && text_[n] == kBom[n]) ++n;
    if (n == kBom.size()) pos_ = n;
    return n == 0 || n == kBom.size();
  }

 private:
  static constexpr int kEnd = -1;
  int Raw() { return pos_ < text_.size() ? uint8_t(text_[pos_++]) : kEnd; }
  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  bool eof_ = false;
};

// One source's parse: the grammar of git's config files, handing each entry to `on_entry`.
class SourceParser {
 public:
  SourceParser(std::string_view text, const std::string& file, ConfigScope scope,
               const ConfigEntryHandler& on_entry)
      : in_(text), file_(file), scope_(scope), on_entry_(on_entry) {}

  Status Run() {
    if (!in_.SkipBom()) return BadLine();
    bool comment = false;
    for (;;) {
      int c = in_.Next();
      if (c == '\n') {
        if (in_.eof()) return Status::Ok();
        comment = false;
        continue;
      }
      if (comment || std::isspace(c)) continue;
      if (c == '#' || c == ';') {
        comment = true;
        continue;
      }
      if (c == '[') {
        name_.clear();
        if (!SectionHeader() || name_.empty()) break;
        name_ += '.';
        base_len_ = name_.size();
        continue;
      }
      if (!std::isalpha(c)) break;
      name_.resize(base_len_);
      name_ += char(std::tolower(c));
      bool rejected = false;
      REFTAB_RETURN_IF_ERROR(Entry(&rejected));
      if (rejected) break;
    }
    return BadLine();
  }

 private:
  Status BadLine() const {
    std::string msg = "bad config line " + std::to_string(in_.line());
    return Status::InvalidArgument(file_.empty() ? msg : msg + " in file " + file_);
  }

  // After "[": "name]", "name.sub]" (old style, all lower case) or `name "sub"]`.
  bool SectionHeader() {
    for (;;) {
      int c = in_.Next();
      if (in_.eof()) return false;
      if (c == ']') return true;
      if (std::isspace(c)) return QuotedSubsection(c);
      if (!IsKeyChar(c) && c != '.') return false;
      name_ += char(std::tolower(c));
    }
  }

  bool QuotedSubsection(int c) {
    while (std::isspace(c)) {
      if (c == '\n') return IncompleteLine();
      c = in_.Next();
    }
    if (c != '"') return false;
    name_ += '.';
    for (;;) {
      c = in_.Next();
      if (c == '\n') return IncompleteLine();
      if (c == '"') break;
      if (c == '\\') {
        c = in_.Next();
        if (c == '\n') return IncompleteLine();
      }
      name_ += char(c);
    }
    return in_.Next() == ']';
  }

  // The error is reported on the line that is incomplete, not the next one.
  bool IncompleteLine() {
    in_.set_line(in_.line() - 1);
    return false;
  }

  // The rest of "name [= value]" after its first letter; `rejected` when the line is not
  // valid or the handler refuses the entry (both reported as a bad line by the caller).
  Status Entry(bool* rejected) {
    int c;
    for (;;) {
      c = in_.Next();
      if (in_.eof() || !IsKeyChar(c)) break;
      name_ += char(std::tolower(c));
    }
    while (c == ' ' || c == '\t') c = in_.Next();
    ConfigEntry e;
    if (c != '\n') {
      if (c != '=' || !Value(&e.value)) {
        *rejected = true;
        return Status::Ok();
      }
    }
    // The newline ending the entry is consumed; the entry belongs to the line before it.
    in_.set_line(in_.line() - 1);
    e.key = name_;
    e.file = file_;
    e.line = in_.line();
    e.scope = scope_;
    REFTAB_RETURN_IF_ERROR(on_entry_(std::move(e), rejected));
    if (!*rejected) in_.set_line(in_.line() + 1);
    return Status::Ok();
  }

  // A value after '=': leading blanks dropped, trailing unquoted blanks trimmed, '"' toggles
  // quoting, '#' and ';' start a comment outside quotes, escapes \\ \" \n \t \b and a
  // backslash-newline continuation. False for an unknown escape or an unclosed quote.
  bool Value(std::optional<std::string>* out) {
    std::string v;
    bool quote = false, comment = false;
    size_t trim_len = 0;
    for (;;) {
      int c = in_.Next();
      if (c == '\n') {
        if (quote) return IncompleteLine();
        if (trim_len) v.resize(trim_len);
        *out = std::move(v);
        return true;
      }
      if (comment) continue;
      if (std::isspace(c) && !quote) {
        if (!trim_len) trim_len = v.size();
        if (!v.empty()) v += char(c);
        continue;
      }
      if (!quote && (c == ';' || c == '#')) {
        comment = true;
        continue;
      }
      trim_len = 0;
      if (c == '\\') {
        c = in_.Next();
        if (c == '\n') continue;
        if (c == 't') {
          c = '\t';
        } else if (c == 'b') {
          c = '\b';
        } else if (c == 'n') {
          c = '\n';
        } else if (c != '\\' && c != '"') {
          return false;
        }
        v += char(c);
        continue;
      }
      if (c == '"') {
        quote = !quote;
        continue;
      }
      v += char(c);
    }
  }

  CharReader in_;
  const std::string& file_;
  ConfigScope scope_;
  const ConfigEntryHandler& on_entry_;
  std::string name_;
  size_t base_len_ = 0;
};

enum class NumberProblem { kNone, kInvalidUnit, kOutOfRange };

uint64_t UnitFactor(const char* end) {
  if (!*end) return 1;
  if (!strcasecmp(end, "k")) return 1024;
  if (!strcasecmp(end, "m")) return 1024 * 1024;
  if (!strcasecmp(end, "g")) return 1024 * 1024 * 1024;
  return 0;
}

// git's signed parse: strtoimax in base 0, an optional k/m/g, the product within +-max.
NumberProblem ParseSigned(const char* s, int64_t max, int64_t* out) {
  if (!s || !*s) return NumberProblem::kInvalidUnit;
  char* end = nullptr;
  errno = 0;
  intmax_t v = std::strtoimax(s, &end, 0);
  if (errno == ERANGE) return NumberProblem::kOutOfRange;
  if (end == s) return NumberProblem::kInvalidUnit;
  auto factor = int64_t(UnitFactor(end));
  if (!factor) return NumberProblem::kInvalidUnit;
  if ((v < 0 && (-max - 1) / factor > v) || (v > 0 && max / factor < v)) {
    return NumberProblem::kOutOfRange;
  }
  *out = int64_t(v * factor);
  return NumberProblem::kNone;
}

// git's unsigned parse: any '-' is refused, then as above within [0, max].
NumberProblem ParseUnsigned(const char* s, uint64_t max, uint64_t* out) {
  if (!s || !*s || std::strchr(s, '-')) return NumberProblem::kInvalidUnit;
  char* end = nullptr;
  errno = 0;
  uintmax_t v = std::strtoumax(s, &end, 0);
  if (errno == ERANGE) return NumberProblem::kOutOfRange;
  if (end == s) return NumberProblem::kInvalidUnit;
  uint64_t factor = UnitFactor(end);
  if (!factor) return NumberProblem::kInvalidUnit;
  if (v > max / factor) return NumberProblem::kOutOfRange;
  *out = uint64_t(v) * factor;
  return NumberProblem::kNone;
}

Status BadNumber(const ConfigEntry& e, NumberProblem p) {
  std::string msg = "bad numeric config value '" + std::string(e.value.value_or("").c_str()) +
                    "' for '" + e.key + "'";
  if (!e.file.empty()) msg += " in file " + e.file;
  msg += p == NumberProblem::kOutOfRange ? ": out of range" : ": invalid unit";
  return Status::InvalidArgument(msg);
}

const char* CStr(const ConfigEntry& e) { return e.value ? e.value->c_str() : nullptr; }

}  // namespace

Status ParseConfigSource(std::string_view text, const std::string& file, ConfigScope scope,
                         const ConfigEntryHandler& on_entry) {
  return SourceParser(text, file, scope, on_entry).Run();
}

std::string CanonicalConfigKey(std::string_view key) {
  std::string out(key);
  size_t first = out.find('.');
  size_t last = out.rfind('.');
  for (size_t i = 0; i < out.size(); ++i) {
    if (first == std::string::npos || i < first || i > last) {
      out[i] = char(std::tolower(uint8_t(out[i])));
    }
  }
  return out;
}

Result<GitConfig> GitConfig::ParseText(std::string_view text, const std::string& file,
                                       ConfigScope scope) {
  GitConfig cfg;
  ConfigEntryHandler add = [&](ConfigEntry e, bool*) {
    cfg.Add(std::move(e));
    return Status::Ok();
  };
  REFTAB_RETURN_IF_ERROR(ParseConfigSource(text, file, scope, add));
  return cfg;
}

GitConfig GitConfig::Parse(std::string_view text) {
  GitConfig cfg;
  ConfigEntryHandler add = [&](ConfigEntry e, bool*) {
    cfg.Add(std::move(e));
    return Status::Ok();
  };
  (void)ParseConfigSource(text, "", ConfigScope::kLocal, add);  // best effort by contract
  return cfg;
}

const ConfigEntry* GitConfig::Last(std::string_view key) const {
  const std::string k = CanonicalConfigKey(key);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->key == k) return &*it;
  }
  return nullptr;
}

std::vector<const ConfigEntry*> GitConfig::All(std::string_view key) const {
  const std::string k = CanonicalConfigKey(key);
  std::vector<const ConfigEntry*> out;
  for (const ConfigEntry& e : entries_) {
    if (e.key == k) out.push_back(&e);
  }
  return out;
}

std::optional<std::string> GitConfig::Get(std::string_view key) const {
  const ConfigEntry* e = Last(key);
  if (!e) return std::nullopt;
  return e->value.value_or("");
}

bool GitConfig::GetBool(std::string_view key, bool fallback) const {
  const ConfigEntry* e = Last(key);
  if (!e) return fallback;
  return ParseGitBool(e->value).value_or(fallback);
}

int64_t GitConfig::GetInt(std::string_view key, int64_t fallback) const {
  const ConfigEntry* e = Last(key);
  if (!e) return fallback;
  auto v = ConfigInt64(*e);
  return v.ok() ? *v : fallback;
}

std::optional<bool> ParseGitBoolText(const std::string& value) {
  const char* s = value.c_str();
  if (!*s) return false;
  for (const char* t : {"true", "yes", "on"}) {
    if (!strcasecmp(s, t)) return true;
  }
  for (const char* f : {"false", "no", "off"}) {
    if (!strcasecmp(s, f)) return false;
  }
  return std::nullopt;
}

std::optional<bool> ParseGitBool(const std::optional<std::string>& value) {
  if (!value) return true;
  if (std::optional<bool> word = ParseGitBoolText(*value)) return word;
  const char* s = value->c_str();
  int64_t n = 0;
  if (ParseSigned(s, INT_MAX, &n) != NumberProblem::kNone) return std::nullopt;
  return n != 0;
}

Result<bool> ConfigBool(const ConfigEntry& e) {
  std::optional<bool> v = ParseGitBool(e.value);
  if (!v) {
    return Status::InvalidArgument("bad boolean config value '" + std::string(CStr(e)) + "' for '" +
                                   e.key + "'");
  }
  return *v;
}

Result<uint64_t> ConfigUlong(const ConfigEntry& e) {
  uint64_t v = 0;
  NumberProblem p = ParseUnsigned(CStr(e), ULONG_MAX, &v);
  if (p != NumberProblem::kNone) return BadNumber(e, p);
  return v;
}

Result<int64_t> ConfigInt64(const ConfigEntry& e) {
  int64_t v = 0;
  NumberProblem p = ParseSigned(CStr(e), INT64_MAX, &v);
  if (p != NumberProblem::kNone) return BadNumber(e, p);
  return v;
}

Result<int32_t> ConfigInt(const ConfigEntry& e) {
  int64_t v = 0;
  NumberProblem p = ParseSigned(CStr(e), INT_MAX, &v);
  if (p != NumberProblem::kNone) return BadNumber(e, p);
  return int32_t(v);
}

std::string BadConfigVariable(const ConfigEntry& e) {
  if (e.file.empty()) return "unable to parse '" + e.key + "' from command-line config";
  return "bad config variable '" + e.key + "' in file '" + e.file + "' at line " +
         std::to_string(e.line);
}

}  // namespace reftab
