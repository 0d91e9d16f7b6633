// for-each-ref's options, read as git's for-each-ref reads them (through cli/git_options).
#include <cstdio>

#include "cli/for_each_ref.h"
#include "cli/git_options.h"

namespace reftab::cli {
namespace {

// git's usage synopsis; continuation lines are indented under the first one's options.
constexpr const char kUsageTail[] =
    " [--count=<count>] [--shell|--perl|--python|--tcl]\n"
    "                         [(--sort=<key>)...] [--format=<format>]\n"
    "                         [--include-root-refs] [--points-at=<object>]\n"
    "                         [--merged[=<object>]] [--no-merged[=<object>]]\n"
    "                         [--contains[=<object>]] [--no-contains[=<object>]]\n"
    "                         [(--exclude=<pattern>)...] [--start-after=<marker>]\n"
    "                         [ --stdin | (<pattern>...)]";

void SetQuote(ForEachRefOptions* o, unsigned bit, bool on) {
  if (on) {
    o->quote_bits |= bit;
  } else {
    o->quote_bits &= ~bit;
  }
}

GitOption QuoteOption(char short_name, std::string_view name, std::string_view help,
                      ForEachRefOptions* o, unsigned bit) {
  GitOption opt = FlagOption(short_name, name, help, nullptr);
  opt.set = [o, bit](bool unset, std::optional<std::string_view>) {
    SetQuote(o, bit, !unset);
    return std::string();
  };
  return opt;
}

// A string option; --no-<name> runs `reset`.
template <typename Set, typename Reset>
GitOption StringOption(std::string_view name, std::string_view arg_help, std::string_view help,
                       Set set, Reset reset) {
  GitOption opt;
  opt.long_name = name;
  opt.arg = GitOption::Arg::kRequired;
  opt.arg_help = arg_help;
  opt.help = help;
  opt.set = [set, reset](bool unset, std::optional<std::string_view> v) {
    if (unset) {
      reset();
    } else {
      set(std::string(*v));
    }
    return std::string();
  };
  return opt;
}

// --merged and its kin: a commit, HEAD when none follows.
GitOption ReachOption(std::string_view name, std::string_view help, ForEachRefOptions* o) {
  GitOption opt;
  opt.long_name = name;
  opt.arg = GitOption::Arg::kLastArgDefault;
  opt.arg_help = "commit";
  opt.help = help;
  opt.negatable = false;
  opt.set = [o, name](bool, std::optional<std::string_view> v) {
    o->reach.emplace_back("--" + std::string(name), std::string(v.value_or("HEAD")));
    return std::string();
  };
  return opt;
}

GitOption ColorOption(ForEachRefOptions* o) {
  GitOption opt;
  opt.long_name = "color";
  opt.arg = GitOption::Arg::kOptional;
  opt.arg_help = "when";
  opt.help = "respect format colors";
  opt.set = [o](bool unset, std::optional<std::string_view> v) {
    if (unset) {
      o->color = ColorWhen::kNever;
    } else if (!v) {
      o->color = ColorWhen::kAlways;
    } else if ((o->color = ParseColorWhen(std::string(*v))) == ColorWhen::kUnknown) {
      return std::string("option `color' expects \"always\", \"auto\", or \"never\"");
    }
    return std::string();
  };
  return opt;
}

// git's option table, in git's order (abbreviations are resolved against it).
GitUsage Usage(const std::string& synopsis, ForEachRefOptions* o) {
  GitUsage u;
  u.lines = {synopsis};
  u.options = {
      QuoteOption('s', "shell", "quote placeholders suitably for shells", o, 1),
      QuoteOption('p', "perl", "quote placeholders suitably for perl", o, 2),
      QuoteOption(0, "python", "quote placeholders suitably for python", o, 4),
      QuoteOption(0, "tcl", "quote placeholders suitably for Tcl", o, 8),
      FlagOption(0, "omit-empty", "do not output a newline after empty formatted refs",
                 &o->omit_empty),
      GroupOption(),
      IntegerOption(0, "count", "n", "show only <n> matched refs", &o->count),
      StringOption(
          "format", "format", "format to use for the output", [o](std::string v) { o->format = v; },
          [] {}),
      StringOption(
          "start-after", "marker", "start iteration after the provided marker",
          [o](std::string v) { o->start_after = v; }, [o] { o->start_after.reset(); }),
      ColorOption(o),
      StringOption(
          "exclude", "pattern", "exclude refs which match pattern",
          [o](std::string v) { o->excludes.push_back(v); }, [o] { o->excludes.clear(); }),
      StringOption(
          "sort", "key", "field name to sort on", [o](std::string v) { o->sorts.push_back(v); },
          [o] { o->sorts.clear(); }),
      StringOption(
          "points-at", "object", "print only refs which points at the given object",
          [o](std::string v) { o->points_at.push_back(v); }, [o] { o->points_at.clear(); }),
      ReachOption("merged", "print only refs that are merged", o),
      ReachOption("no-merged", "print only refs that are not merged", o),
      ReachOption("contains", "print only refs which contain the commit", o),
      ReachOption("no-contains", "print only refs which don't contain the commit", o),
      FlagOption(0, "ignore-case", "sorting and filtering are case insensitive", &o->ignore_case),
      FlagOption(0, "stdin", "read reference patterns from stdin", &o->from_stdin),
      FlagOption(0, "include-root-refs", "also include HEAD ref and pseudorefs",
                 &o->include_root_refs),
  };
  return u;
}

QuoteStyle QuoteOf(unsigned bits) {
  return bits == 1   ? QuoteStyle::kShell
         : bits == 2 ? QuoteStyle::kPerl
         : bits == 4 ? QuoteStyle::kPython
         : bits == 8 ? QuoteStyle::kTcl
                     : QuoteStyle::kNone;
}

}  // namespace

std::string Synopsis(const char* command) { return std::string("reftab ") + command + kUsageTail; }

int ForEachRefUsageError(const char* command, const std::string& message) {
  ForEachRefOptions unused;
  std::string synopsis = Synopsis(command);
  GitError(message);
  return GitUsageError(Usage(synopsis, &unused));
}

int ParseForEachRefArgs(const char* command, const Args& args, ForEachRefOptions* o) {
  std::string synopsis = Synopsis(command);
  Args patterns;
  if (auto rc = ParseGitOptions(args, Usage(synopsis, o), &patterns)) return *rc;
  if (o->count < 0) {
    return ForEachRefUsageError(command,
                                "invalid --count argument: `" + std::to_string(o->count) + "'");
  }
  unsigned bits = o->quote_bits;
  if (bits & (bits - 1)) return ForEachRefUsageError(command, "more than one quoting style?");
  o->quote = QuoteOf(bits);
  o->json = o->format == "json" || o->format.starts_with("json ");
  if (o->json) o->json_fields = o->format.substr(4);
  o->patterns = std::move(patterns);
  return -1;
}

Status RefuseListedName(std::string_view name, ListedRefname verdict) {
  if (verdict == ListedRefname::kDangerous) {
    return Status::Corruption("refname is dangerous: " + std::string(name));
  }
  GitWarning("ignoring ref with broken name " + std::string(name));
  return Status::Ok();
}

}  // namespace reftab::cli
