// for-each-ref's options, read as git's for-each-ref reads them.
#include <cstdio>

#include "cli/for_each_ref.h"
#include "cli/parse_opt.h"

namespace reftab::cli {
namespace {

enum Id {
  kShell,
  kPerl,
  kPython,
  kTcl,
  kOmitEmpty,
  kCount,
  kFormat,
  kStartAfter,
  kColor,
  kExclude,
  kSort,
  kPointsAt,
  kMerged,
  kNoMerged,
  kContains,
  kNoContains,
  kIgnoreCase,
  kStdin,
  kIncludeRootRefs,
};

// git's option table, in git's order (abbreviations are resolved against it).
const std::vector<ParseOptSpec>& Options() {
  static const std::vector<ParseOptSpec> kOptions = {
      {kShell, 's', "shell", ParseOptSpec::kFlag},
      {kPerl, 'p', "perl", ParseOptSpec::kFlag},
      {kPython, 0, "python", ParseOptSpec::kFlag},
      {kTcl, 0, "tcl", ParseOptSpec::kFlag},
      {kOmitEmpty, 0, "omit-empty", ParseOptSpec::kFlag},
      {kCount, 0, "count", ParseOptSpec::kInt},
      {kFormat, 0, "format", ParseOptSpec::kValue},
      {kStartAfter, 0, "start-after", ParseOptSpec::kValue},
      {kColor, 0, "color", ParseOptSpec::kOptionalValue},
      {kExclude, 0, "exclude", ParseOptSpec::kValue},
      {kSort, 0, "sort", ParseOptSpec::kValue},
      {kPointsAt, 0, "points-at", ParseOptSpec::kValue},
      {kMerged, 0, "merged", ParseOptSpec::kLastArgDefault, true},
      {kNoMerged, 0, "no-merged", ParseOptSpec::kLastArgDefault, true},
      {kContains, 0, "contains", ParseOptSpec::kLastArgDefault, true},
      {kNoContains, 0, "no-contains", ParseOptSpec::kLastArgDefault, true},
      {kIgnoreCase, 0, "ignore-case", ParseOptSpec::kFlag},
      {kStdin, 0, "stdin", ParseOptSpec::kFlag},
      {kIncludeRootRefs, 0, "include-root-refs", ParseOptSpec::kFlag},
  };
  return kOptions;
}

constexpr const char kUsageFirst[] = "[--count=<count>] [--shell|--perl|--python|--tcl]\n";
constexpr const char kUsageRest[] =
    "                                [(--sort=<key>)...] [--format=<format>]\n"
    "                                [--include-root-refs] [--points-at=<object>]\n"
    "                                [--merged[=<object>]] [--no-merged[=<object>]]\n"
    "                                [--contains[=<object>]] [--no-contains[=<object>]]\n"
    "                                [(--exclude=<pattern>)...] [--start-after=<marker>]\n"
    "                                [ --stdin | (<pattern>...)]\n"
    "\n"
    "    -s, --[no-]shell      quote placeholders suitably for shells\n"
    "    -p, --[no-]perl       quote placeholders suitably for perl\n"
    "    --[no-]python         quote placeholders suitably for python\n"
    "    --[no-]tcl            quote placeholders suitably for Tcl\n"
    "    --[no-]omit-empty     do not output a newline after empty formatted refs\n"
    "\n"
    "    --[no-]count <n>      show only <n> matched refs\n"
    "    --[no-]format <format>\n"
    "                          format to use for the output\n"
    "    --[no-]start-after <marker>\n"
    "                          start iteration after the provided marker\n"
    "    --[no-]color[=<when>] respect format colors\n"
    "    --[no-]exclude <pattern>\n"
    "                          exclude refs which match pattern\n"
    "    --[no-]sort <key>     field name to sort on\n"
    "    --[no-]points-at <object>\n"
    "                          print only refs which points at the given object\n"
    "    --merged <commit>     print only refs that are merged\n"
    "    --no-merged <commit>  print only refs that are not merged\n"
    "    --contains <commit>   print only refs which contain the commit\n"
    "    --no-contains <commit>\n"
    "                          print only refs which don't contain the commit\n"
    "    --[no-]ignore-case    sorting and filtering are case insensitive\n"
    "    --[no-]stdin          read reference patterns from stdin\n"
    "    --[no-]include-root-refs\n"
    "                          also include HEAD ref and pseudorefs\n"
    "\n";

int UsageError(const char* command, const std::string& message) {
  std::fprintf(stderr, "error: %s\n%s", message.c_str(), ForEachRefUsage(command).c_str());
  return 129;
}

void SetQuote(ForEachRefOptions* o, unsigned bit, bool on) {
  if (on) {
    o->quote_bits |= bit;
  } else {
    o->quote_bits &= ~bit;
  }
}

// Applies one option; false (after printing git's message) when its value is refused.
bool Apply(const ParseOptUse& u, ForEachRefOptions* o) {
  const std::string v = u.value.value_or("");
  switch (u.id) {
    case kShell: SetQuote(o, 1, !u.negated); break;
    case kPerl: SetQuote(o, 2, !u.negated); break;
    case kPython: SetQuote(o, 4, !u.negated); break;
    case kTcl: SetQuote(o, 8, !u.negated); break;
    case kOmitEmpty: o->omit_empty = !u.negated; break;
    case kCount: o->count = u.negated ? 0 : u.number; break;
    case kFormat:
      if (!u.negated) o->format = v;
      break;
    case kStartAfter: o->start_after = u.negated ? std::nullopt : u.value; break;
    case kColor:
      if (u.negated) {
        o->color = ColorWhen::kNever;
      } else if (!u.value) {
        o->color = ColorWhen::kAlways;
      } else if ((o->color = ParseColorWhen(v)) == ColorWhen::kUnknown) {
        std::fputs("error: option `color' expects \"always\", \"auto\", or \"never\"\n", stderr);
        return false;
      }
      break;
    case kExclude: u.negated ? o->excludes.clear() : o->excludes.push_back(v); break;
    case kSort: u.negated ? o->sorts.clear() : o->sorts.push_back(v); break;
    case kPointsAt: u.negated ? o->points_at.clear() : o->points_at.push_back(v); break;
    case kMerged: o->reach.emplace_back("--merged", u.value.value_or("HEAD")); break;
    case kNoMerged: o->reach.emplace_back("--no-merged", u.value.value_or("HEAD")); break;
    case kContains: o->reach.emplace_back("--contains", u.value.value_or("HEAD")); break;
    case kNoContains: o->reach.emplace_back("--no-contains", u.value.value_or("HEAD")); break;
    case kIgnoreCase: o->ignore_case = !u.negated; break;
    case kStdin: o->from_stdin = !u.negated; break;
    case kIncludeRootRefs: o->include_root_refs = !u.negated; break;
  }
  return true;
}

}  // namespace

std::string ForEachRefUsage(const char* command) {
  return std::string("usage: reftab ") + command + " " + kUsageFirst + kUsageRest;
}

int ParseForEachRefArgs(const char* command, const Args& args, ForEachRefOptions* o) {
  ParseOptResult r = ParseOptionsAsGit(args, Options());
  if (r.kind == ParseOptResult::kHelp) {
    std::fputs(ForEachRefUsage(command).c_str(), stdout);
    return 0;
  }
  for (const ParseOptUse& u : r.uses) {
    if (!Apply(u, o)) return 129;
  }
  if (r.kind == ParseOptResult::kError) {
    std::fprintf(stderr, "error: %s\n", r.message.c_str());
    return 129;
  }
  if (r.kind == ParseOptResult::kErrorUsage) return UsageError(command, r.message);
  if (o->count < 0) {
    return UsageError(command, "invalid --count argument: `" + std::to_string(o->count) + "'");
  }
  unsigned bits = o->quote_bits;
  if (bits & (bits - 1)) return UsageError(command, "more than one quoting style?");
  o->quote = bits == 1   ? QuoteStyle::kShell
             : bits == 2 ? QuoteStyle::kPerl
             : bits == 4 ? QuoteStyle::kPython
             : bits == 8 ? QuoteStyle::kTcl
                         : QuoteStyle::kNone;
  o->json = o->format == "json";
  o->patterns = std::move(r.args);
  return -1;
}

}  // namespace reftab::cli
