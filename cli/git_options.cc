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
      // "--n", "--no" and "--no-" abbreviate every negation.
      if (o.negatable && std::string_view("no-").substr(0, name.size()) == name) {
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
