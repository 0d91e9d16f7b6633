#include "cli/git_options.h"

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace reftab::cli {
namespace {

constexpr size_t kOptionsWidth = 26;  // where git's option help column starts

// git names an option in messages as "switch `q'", "option `verify'" or "option `no-tags'".
std::string OptName(const GitOption& o, bool is_short, bool unset) {
  if (is_short) return std::string("switch `") + o.short_name + "'";
  return std::string("option `") + (unset ? "no-" : "") + std::string(o.long_name) + "'";
}

struct Parser {
  const GitUsage& usage;
  const Args& args;
  size_t i = 0;
  Args* operands;

  // Runs o's setter; a message ends parsing with git's status 129 (no usage, as git).
  std::optional<int> Set(const GitOption& o, bool unset, std::optional<std::string_view> v) {
    std::string err = o.set(unset, v);
    if (err.empty()) return std::nullopt;
    return GitError(err), kExitUsage;
  }

  std::optional<int> Value(const GitOption& o, bool is_short, bool unset,
                           std::optional<std::string_view> attached) {
    if (unset && attached)
      return GitError(OptName(o, is_short, unset) + " takes no value"), kExitUsage;
    if (o.arg == GitOption::Arg::kNone || unset) {
      if (attached && !is_short) {
        return GitError(OptName(o, is_short, unset) + " takes no value"), kExitUsage;
      }
      return Set(o, unset, std::nullopt);
    }
    if (attached || o.arg == GitOption::Arg::kOptional) return Set(o, false, attached);
    if (o.arg == GitOption::Arg::kLastArgDefault && i + 1 >= args.size()) {
      return Set(o, false, std::nullopt);
    }
    if (i + 1 >= args.size()) {
      return GitError(OptName(o, is_short, false) + " requires a value"), kExitUsage;
    }
    return Set(o, false, std::string_view(args[++i]));
  }

  std::optional<int> Short(const std::string& arg) {
    for (size_t k = 1; k < arg.size(); ++k) {
      const GitOption* o = nullptr;
      for (const GitOption& c : usage.options) {
        if (c.short_name && c.short_name == arg[k]) o = &c;
      }
      if (!o) {
        if (k == 1 && IsTypo(arg.substr(1))) return TypoError(arg.substr(1));
        if (arg[k] == 'h') return PrintGitUsage(usage, stdout), kExitOk;
        return GitError(std::string("unknown switch `") + arg[k] + "'"), GitUsageError(usage);
      }
      if (k == 1 && o->arg == GitOption::Arg::kNone && IsTypo(arg.substr(1))) {
        return TypoError(arg.substr(1));
      }
      if (o->arg != GitOption::Arg::kNone) {
        std::optional<std::string_view> attached;
        if (k + 1 < arg.size()) attached = std::string_view(arg).substr(k + 1);
        return Value(*o, true, false, attached);
      }
      if (auto r = Value(*o, true, false, std::nullopt)) return r;
    }
    return std::nullopt;
  }

  // git's hint for "-verify": a long name given with one dash.
  bool IsTypo(const std::string& arg) const {
    if (arg.size() < 3) return false;
    bool typo = arg.rfind("no-", 0) == 0;
    for (const GitOption& o : usage.options) {
      if (!o.long_name.empty() && o.long_name.substr(0, arg.size()) == arg) typo = true;
    }
    return typo;
  }
  static int TypoError(const std::string& arg) {
    GitError("did you mean `--" + arg + "` (with two dashes)?");
    return kExitUsage;
  }

  // A long option, matched as git's parse_long_opt does: exact names first, else a unique
  // abbreviation, "no-" negating.
  std::optional<int> Long(std::string_view arg) {
    size_t eq = arg.find('=');
    std::string_view name = arg.substr(0, eq);
    std::optional<std::string_view> attached;
    if (eq != std::string_view::npos) attached = arg.substr(eq + 1);
    std::string_view start = name;
    bool unset = false, no_no = false;
    if (start.substr(0, 3) == "no-") {
      start.remove_prefix(3);
      if (start.substr(0, 3) == "no-") {
        start.remove_prefix(3);
        no_no = true;
      } else {
        unset = true;
      }
    }
    Candidate abbrev, ambiguous;
    for (const GitOption& o : usage.options) {
      std::string_view long_name = o.long_name;
      if (long_name.empty()) continue;
      bool opt_unset = false;
      if (long_name.substr(0, 3) == "no-") {
        long_name.remove_prefix(3);
        opt_unset = true;
      } else if (no_no) {
        continue;
      }
      if ((unset != opt_unset) && !o.negatable) continue;
      if (start == long_name) return Value(o, false, unset != opt_unset, attached);
      if (o.exact) continue;
      if (long_name.substr(0, start.size()) == start) {
        Register(o, unset != opt_unset, &abbrev, &ambiguous);
      }
      // "--n", "--no" and "--no-" abbreviate every negation (not with "=": "--no=x" is unknown).
      if (o.negatable && std::string_view("no-").substr(0, arg.size()) == arg) {
        Register(o, !opt_unset, &abbrev, &ambiguous);
      }
    }
    if (ambiguous.option) {
      GitError("ambiguous option: " + std::string(arg) + " (could be --" +
               (ambiguous.unset ? "no-" : "") + std::string(ambiguous.option->long_name) +
               " or --" + (abbrev.unset ? "no-" : "") + std::string(abbrev.option->long_name) +
               ")");
      return GitUsageError(usage);
    }
    if (abbrev.option) return Value(*abbrev.option, false, abbrev.unset, attached);
    GitError("unknown option `" + std::string(arg) + "'");
    return GitUsageError(usage);
  }

  struct Candidate {
    const GitOption* option = nullptr;
    bool unset = false;
  };
  static void Register(const GitOption& o, bool unset, Candidate* abbrev, Candidate* ambiguous) {
    if (abbrev->option) *ambiguous = *abbrev;
    *abbrev = Candidate{&o, unset};
  }

  std::optional<int> Run() {
    for (; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.size() < 2 || a[0] != '-') {
        operands->push_back(a);
      } else if (a == "-h" && args.size() == 1) {
        return PrintGitUsage(usage, stdout), kExitOk;
      } else if (a[1] != '-') {
        if (auto r = Short(a)) return r;
      } else if (a == "--" || a == "--end-of-options") {
        operands->insert(operands->end(), args.begin() + long(i) + 1, args.end());
        return std::nullopt;
      } else if (a == "--help" || a == "--help-all") {
        return PrintGitUsage(usage, stdout), kExitOk;
      } else if (auto r = Long(std::string_view(a).substr(2))) {
        return r;
      }
    }
    return std::nullopt;
  }
};

// The help of an option after its names `s`: in git's column, or on the next line when the
// names reach it.
void PrintOptionHelp(std::string s, std::string_view help, FILE* out) {
  if (s.size() < kOptionsWidth) {
    s.append(kOptionsWidth - s.size(), ' ');
  } else {
    s.append(1, '\n').append(kOptionsWidth, ' ');
  }
  std::fprintf(out, "%s%.*s\n", s.c_str(), int(help.size()), help.data());
}

// A name that starts with "no-" is shown as it is; its negation follows on a line of its own.
bool IsNegativeName(std::string_view long_name) { return long_name.substr(0, 3) == "no-"; }

void PrintOptionLine(const GitOption& o, FILE* out) {
  std::string s = "    ";
  if (o.short_name) s.append(1, '-').append(1, o.short_name);
  if (o.short_name && !o.long_name.empty()) s.append(", ");
  if (!o.long_name.empty()) {
    s.append(o.negatable && !IsNegativeName(o.long_name) ? "--[no-]" : "--").append(o.long_name);
  }
  if (o.arg != GitOption::Arg::kNone) {
    bool literal = o.arg_help.find_first_of("()<>[]|") != std::string_view::npos;
    bool optional = o.arg == GitOption::Arg::kOptional;
    s.append(optional ? (o.long_name.empty() ? "[" : "[=") : " ");
    if (!literal) s.append(1, '<');
    s.append(o.arg_help);
    if (!literal) s.append(1, '>');
    if (optional) s.append(1, ']');
  }
  PrintOptionHelp(std::move(s), o.help, out);
}

// git lists "--deref  opposite of --no-deref" after a negatable "--no-deref", unless an
// option of that positive name exists.
void PrintPositiveLine(const GitOption& o, const std::vector<GitOption>& all, FILE* out) {
  if (!o.negatable || !IsNegativeName(o.long_name)) return;
  std::string_view positive = o.long_name.substr(3);
  for (const GitOption& other : all) {
    if (other.long_name == positive) return;
  }
  PrintOptionHelp("    --" + std::string(positive), "opposite of --" + std::string(o.long_name),
                  out);
}

// git_parse_signed for an int: any base prefix strtoimax knows, then an optional k, m or g.
// False when it is no number; *range when it is one but does not fit an int.
bool ParseGitInt(const std::string& s, int64_t* out, bool* range) {
  *range = false;
  errno = 0;
  char* end = nullptr;
  intmax_t v = std::strtoimax(s.c_str(), &end, 0);
  if (errno == ERANGE) return *range = true, false;
  if (end == s.c_str()) return false;
  intmax_t factor = 0;
  if (!*end) {
    factor = 1;
  } else if (!end[1]) {
    char c = char(std::tolower(static_cast<unsigned char>(*end)));
    factor = c == 'k' ? 1024 : c == 'm' ? 1024 * 1024 : c == 'g' ? 1024 * 1024 * 1024 : 0;
  }
  if (!factor) return false;
  constexpr intmax_t kMax = INT32_MAX;
  if ((v < 0 && (-kMax - 1) / factor > v) || (v > 0 && kMax / factor < v)) {
    return *range = true, false;
  }
  *out = int64_t(v * factor);
  return true;
}

// The message for a refused integer; empty when `value` is one.
std::string IntegerError(const std::string& name, const std::string& value, int64_t* out) {
  if (value.empty()) return name + " expects a numerical value";
  bool range = false;
  if (ParseGitInt(value, out, &range)) return std::string();
  if (range) return "value " + value + " for " + name + " not in range [-2147483648,2147483647]";
  return name + " expects an integer value with an optional k/m/g suffix";
}

}  // namespace

GitOption IntegerOption(char short_name, std::string_view long_name, std::string_view arg_help,
                        std::string_view help, int64_t* target) {
  GitOption o;
  o.short_name = short_name;
  o.long_name = long_name;
  o.arg = GitOption::Arg::kRequired;
  o.arg_help = arg_help;
  o.help = help;
  // The setter is not told which spelling was used: messages name the long one when there is
  // one (all of reftab's integer options are long-only, as git's are where it matters).
  std::string name = long_name.empty() ? std::string("switch `") + short_name + "'"
                                       : "option `" + std::string(long_name) + "'";
  o.set = [target, name](bool unset, std::optional<std::string_view> value) {
    if (unset) return *target = 0, std::string();
    return IntegerError(name, std::string(value.value_or("")), target);
  };
  return o;
}

GitOption GroupOption() {
  GitOption o;
  o.group = true;
  o.negatable = false;
  return o;
}

GitOption FlagOption(char short_name, std::string_view long_name, std::string_view help,
                     bool* target) {
  GitOption o;
  o.short_name = short_name;
  o.long_name = long_name;
  o.help = help;
  o.set = [target](bool unset, std::optional<std::string_view>) {
    *target = !unset;
    return std::string();
  };
  return o;
}

GitOption StringOption(char short_name, std::string_view long_name, std::string_view arg_help,
                       std::string_view help, std::optional<std::string>* target) {
  GitOption o;
  o.short_name = short_name;
  o.long_name = long_name;
  o.arg = GitOption::Arg::kRequired;
  o.arg_help = arg_help;
  o.help = help;
  o.set = [target](bool unset, std::optional<std::string_view> v) {
    if (unset) {
      target->reset();
    } else {
      *target = std::string(*v);
    }
    return std::string();
  };
  return o;
}

std::optional<int> ParseGitOptions(const Args& args, const GitUsage& usage, Args* operands) {
  Parser p{usage, args, 0, operands};
  return p.Run();
}

void PrintGitUsage(const GitUsage& usage, FILE* out) {
  const char* prefix = "usage: ";
  for (std::string_view entry : usage.lines) {
    // An entry may wrap onto more lines, indented to follow "usage: ".
    for (size_t start = 0, end; start <= entry.size(); start = end + 1) {
      end = entry.find('\n', start);
      if (end == std::string_view::npos) end = entry.size();
      std::string_view line = entry.substr(start, end - start);
      std::fprintf(out, "%s%.*s\n", start == 0 ? prefix : "       ", int(line.size()), line.data());
    }
    prefix = "   or: ";
  }
  if (!usage.options.empty()) std::fputc('\n', out);
  for (const GitOption& o : usage.options) {
    if (o.group) {
      std::fputc('\n', out);
    } else if (!o.hidden) {
      PrintOptionLine(o, out);
      PrintPositiveLine(o, usage.options, out);
    }
  }
  std::fputc('\n', out);
}

int GitUsageError(const GitUsage& usage) {
  PrintGitUsage(usage, stderr);
  return kExitUsage;
}

int GitUsageMessage(std::string_view message) {
  std::fprintf(stderr, "usage: %.*s\n", int(message.size()), message.data());
  return kExitUsage;
}

int GitConfigDie(const Status& status, std::string_view error) {
  if (!error.empty()) (void)GitError(error);
  return GitDie(status.message());
}

}  // namespace reftab::cli
