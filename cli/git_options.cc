#include "cli/git_options.h"

#include <cstdio>
#include <cstring>

namespace reftab::cli {
namespace {

constexpr int kGitUsageExit = 129;
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
    return GitError(err), kGitUsageExit;
  }

  std::optional<int> Value(const GitOption& o, bool is_short, bool unset,
                           std::optional<std::string_view> attached) {
    if (unset && attached) return GitError(OptName(o, is_short, unset) + " takes no value"), 129;
    if (o.arg == GitOption::Arg::kNone || unset) {
      if (attached && !is_short) {
        return GitError(OptName(o, is_short, unset) + " takes no value"), kGitUsageExit;
      }
      return Set(o, unset, std::nullopt);
    }
    if (attached || o.arg == GitOption::Arg::kOptional) return Set(o, false, attached);
    if (i + 1 >= args.size()) {
      return GitError(OptName(o, is_short, false) + " requires a value"), kGitUsageExit;
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
    return kGitUsageExit;
  }

  std::optional<int> Long(std::string_view arg) {
    size_t eq = arg.find('=');
    std::string_view name = arg.substr(0, eq);
    std::optional<std::string_view> attached;
    if (eq != std::string_view::npos) attached = arg.substr(eq + 1);
    bool unset = name.substr(0, 3) == "no-";
    std::string_view positive = unset ? name.substr(3) : name;
    const GitOption* abbrev = nullptr;
    bool abbrev_unset = false;
    const GitOption* ambiguous = nullptr;
    bool ambiguous_unset = false;
    auto note = [&](const GitOption& o, bool u) {
      if (abbrev) ambiguous = abbrev, ambiguous_unset = abbrev_unset;
      abbrev = &o, abbrev_unset = u;
    };
    for (const GitOption& o : usage.options) {
      if (o.long_name.empty()) continue;
      if (unset && !o.negatable) {
        if (o.long_name == name) return Value(o, false, false, attached);
        if (o.long_name.substr(0, name.size()) == name) note(o, false);
        continue;
      }
      if (o.long_name == positive) return Value(o, false, unset, attached);
      if (o.long_name.substr(0, positive.size()) == positive) note(o, unset);
      // "--no" or "--no-" alone abbreviate the negation of every option.
      if (o.negatable && std::string_view("no-").substr(0, name.size()) == name && !unset) {
        note(o, true);
      }
    }
    if (ambiguous) {
      GitError("ambiguous option: " + std::string(arg) + " (could be --" +
               (ambiguous_unset ? "no-" : "") + std::string(ambiguous->long_name) + " or --" +
               (abbrev_unset ? "no-" : "") + std::string(abbrev->long_name) + ")");
      return GitUsageError(usage);
    }
    if (abbrev) return Value(*abbrev, false, abbrev_unset, attached);
    GitError("unknown option `" + std::string(arg) + "'");
    return GitUsageError(usage);
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

void PrintOptionLine(const GitOption& o, FILE* out) {
  std::string s = "    ";
  if (o.short_name) s.append(1, '-').append(1, o.short_name);
  if (o.short_name && !o.long_name.empty()) s.append(", ");
  if (!o.long_name.empty()) s.append(o.negatable ? "--[no-]" : "--").append(o.long_name);
  if (o.arg != GitOption::Arg::kNone) {
    bool literal = o.arg_help.find_first_of("()<>[]|") != std::string_view::npos;
    bool optional = o.arg == GitOption::Arg::kOptional;
    s.append(optional ? (o.long_name.empty() ? "[" : "[=") : " ");
    if (!literal) s.append(1, '<');
    s.append(o.arg_help);
    if (!literal) s.append(1, '>');
    if (optional) s.append(1, ']');
  }
  if (s.size() < kOptionsWidth) {
    s.append(kOptionsWidth - s.size(), ' ');
  } else {
    s.append(1, '\n').append(kOptionsWidth, ' ');
  }
  std::fprintf(out, "%s%.*s\n", s.c_str(), int(o.help.size()), o.help.data());
}

}  // namespace

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
    if (!o.hidden) PrintOptionLine(o, out);
  }
  std::fputc('\n', out);
}

int GitUsageError(const GitUsage& usage) {
  PrintGitUsage(usage, stderr);
  return kGitUsageExit;
}

int GitUsageMessage(std::string_view message) {
  std::fprintf(stderr, "usage: %.*s\n", int(message.size()), message.data());
  return kGitUsageExit;
}

int GitDie(std::string_view message) {
  std::fprintf(stderr, "fatal: %.*s\n", int(message.size()), message.data());
  return 128;
}

int GitError(std::string_view message) {
  std::fprintf(stderr, "error: %.*s\n", int(message.size()), message.data());
  return 1;
}

}  // namespace reftab::cli
