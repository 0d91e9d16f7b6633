// reftab rev-parse [--verify] [-q|--quiet] [--short[=N]] [--symbolic | --symbolic-full-name |
//                  --abbrev-ref[=strict|loose]] [repository questions] REVISION...
// The part of git's rev-parse that refs and objects answer: each REVISION names one object in
// git's syntax (store/git/refs/object_name.h: ids, refs, reflog selectors, @{-N}, @{upstream},
// @{push}, suffixes, message searches), with git's warnings, errors and hints; the
// repository questions (--git-dir, --show-toplevel, ...: store/git/dir.h) are answered where
// they appear. --short is --verify printing the id abbreviated as git does (at least N
// digits, unique). Ranges and paths are refused, saying so. Output, messages and exit
// statuses as git's: --verify needs exactly one name ("fatal: Needed a single revision",
// 128; 1 with -q).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/object_name_report.h"
#include "cli/stack_access.h"
#include "store/git/dir.h"
#include "store/git/objects/abbrev.h"
#include "store/git/refs/branch_name.h"
#include "store/git/refs/object_name.h"
#include "store/git/refs/ref_dwim.h"

namespace reftab::cli {
namespace {

enum class Show { kId, kSymbolic, kFullName, kAbbrevRef };

struct RevParseOptions {
  bool verify = false;
  bool quiet = false;
  Show show = Show::kId;
  bool abbrev_strict = false;
  bool abbrev_default = false;      // strictness from core.warnAmbiguousRefs
  std::optional<int> short_length;  // --short[=N]: kAbbrevDefault or at least N digits
};

// --short=N as git's rev-parse reads N: strtoul (blanks and a sign first, then leading
// digits; none is 0; saturating at ULONG_MAX) stored into an int, so values past INT_MAX wrap as
// they do in git; below the minimum it is the minimum (unlike --abbrev elsewhere, 0 is not the
// whole id), and the abbreviator makes anything beyond the id's length the whole id.
int ShortLength(const std::string& n) {
  const unsigned long v = std::strtoul(n.c_str(), nullptr, 10);
  const int length = static_cast<int>(static_cast<uint32_t>(v));
  return length < kMinimumAbbrev ? kMinimumAbbrev : length;
}

void Warn(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) GitWarning(w);
}

// git's show_rev for a name that resolved.
int ShowName(Store& store, const RevParseOptions& o, const std::string& name,
             const ObjectNameResult& r) {
  if (o.show == Show::kId && o.short_length) {
    std::string error;
    Result<int> core_abbrev = ReadCoreAbbrev(store.config(), &error);
    if (!core_abbrev.ok()) return GitConfigDie(core_abbrev.status(), error);
    GitAbbreviator abbrev(store.objects(), store.hash_size(), *core_abbrev);
    std::string hex;
    Status s = abbrev.AbbreviateOrTrust(r.id, *o.short_length, &hex);
    if (!s.ok()) return GitDie(s.message());
    return std::printf("%s\n", hex.c_str()), 0;
  }
  if (o.show == Show::kId) return std::printf("%s\n", HexId(r.id, store.hash_size()).c_str()), 0;
  if (o.show == Show::kSymbolic) return std::printf("%s\n", name.c_str()), 0;
  // The full name is looked up again, as git does, so its warnings come twice.
  DwimResult d;
  std::string fatal;
  Status s = DwimRefShorthand(store, name, /*nonfatal=*/false, &d, &fatal);
  if (!s.ok()) return GitDie(s.message());
  if (!fatal.empty()) return GitDie(fatal);
  Warn(d.warnings);
  if (d.matches == 0) return 0;  // not a ref (a hex id): nothing shown
  if (d.matches > 1) return GitError("refname '" + name + "' is ambiguous"), 0;
  std::string shown = d.refname;
  if (o.show == Show::kAbbrevRef) {
    s = ShortenRefname(store, d.refname, o.abbrev_strict, &shown);
    if (!s.ok()) return GitDie(s.message());
  }
  std::printf("%s\n", shown.c_str());
  return 0;
}

int NoSingleRevision(bool quiet) {
  if (quiet) return 1;
  return GitDie("Needed a single revision");
}

// Without --verify, a name that is not a revision would be a path; reftab knows no paths.
int NotARevision(Store& store, const std::string& arg) {
  std::printf("%s\n", arg.c_str());
  std::fflush(stdout);
  // git looks the name up once more before giving up, quietly (a suffix's base is looked
  // up without the flag, as always) and only to find a better message.
  ObjectNameResult r;
  RevisionOptions again;
  again.quiet = true;
  again.only_to_die = true;
  Status s = ResolveRevision(store, arg, &r, again);
  if (!s.ok()) return GitDie(s.message());
  ReportObjectName(r);
  if (r.dies) return ObjectNameDied(r);
  return GitDie("ambiguous argument '" + arg +
                "': unknown revision or path not in the working tree.\n"
                "Use '--' to separate paths from revisions, like this:\n"
                "'git <command> [<revision>...] -- [<file>...]'");
}

// Takes one of rev-parse's own flags; false for anything else.
bool TakeFlag(const std::string& a, RevParseOptions* o) {
  if (a == "--verify") {
    o->verify = true;
  } else if (a == "-q" || a == "--quiet") {
    o->quiet = true;
  } else if (a == "--symbolic") {
    o->show = Show::kSymbolic;
  } else if (a == "--symbolic-full-name") {
    o->show = Show::kFullName;
  } else if (a == "--short" || a.starts_with("--short=")) {
    // git: "--short" is "--verify" with the id abbreviated.
    o->verify = true;
    o->short_length = a == "--short" ? kAbbrevDefault : ShortLength(a.substr(8));
  } else if (a == "--abbrev-ref" || a == "--abbrev-ref=loose" || a == "--abbrev-ref=strict") {
    // Plain --abbrev-ref is strict when core.warnAmbiguousRefs is on (git's default).
    o->show = Show::kAbbrevRef;
    o->abbrev_default = a == "--abbrev-ref";
    o->abbrev_strict = a == "--abbrev-ref=strict";
  } else {
    return false;
  }
  return true;
}

// rev-parse's questions about the repository itself, answered where they appear.
constexpr std::string_view kRepoQuestions[] = {
    "--git-dir",           "--absolute-git-dir",   "--show-toplevel",   "--is-inside-work-tree",
    "--is-inside-git-dir", "--is-bare-repository", "--show-ref-format",
};

bool IsRepoQuestion(const std::string& a) {
  for (std::string_view q : kRepoQuestions) {
    if (a == q) return true;
  }
  return false;
}

// Prints git's answer to one question; the exit status when git dies, else -1.
int AnswerRepoQuestion(const std::string& q, const GitRepoLocation& at) {
  const char* flag = nullptr;
  if (q == "--git-dir") {
    std::printf("%s\n", at.git_dir.c_str());
  } else if (q == "--absolute-git-dir") {
    std::printf("%s\n", at.absolute_git_dir.c_str());
  } else if (q == "--show-toplevel") {
    if (at.work_tree.empty()) return GitDie("this operation must be run in a work tree");
    std::printf("%s\n", at.work_tree.c_str());
  } else if (q == "--show-ref-format") {
    std::printf("reftable\n");  // reftab opens reftable repositories only
  } else if (q == "--is-inside-work-tree") {
    flag = at.inside_work_tree ? "true" : "false";
  } else if (q == "--is-inside-git-dir") {
    flag = at.inside_git_dir ? "true" : "false";
  } else {
    flag = at.bare ? "true" : "false";
  }
  if (flag) std::printf("%s\n", flag);
  return -1;
}

// git reads "A..B", "A...B" and "^A" as ranges when their parts name objects; reftab's
// rev-parse prints single objects only, and says so rather than print something else.
int RefuseRange(Store& store, const std::string& name) {
  auto names_object = [&store](std::string_view part) {
    ObjectNameResult r;
    RevisionOptions quiet;
    quiet.quiet = true;
    std::string n(part.empty() ? "HEAD" : part);
    return ResolveRevision(store, n, &r, quiet).ok() && r.found && !r.dies;
  };
  const size_t dots = name.find("..");
  if (dots != std::string::npos) {
    const size_t after = name.compare(dots, 3, "...") == 0 ? dots + 3 : dots + 2;
    if (names_object(std::string_view(name).substr(0, dots)) &&
        names_object(std::string_view(name).substr(after))) {
      return GitDie("rev-parse: '" + name + "' is a range; reftab's rev-parse prints single " +
                    "objects only");
    }
  }
  if (name.size() > 1 && name[0] == '^' && names_object(std::string_view(name).substr(1))) {
    return GitDie("rev-parse: '" + name + "' is a negated revision; reftab's rev-parse prints " +
                  "single objects only");
  }
  return -1;
}

}  // namespace

int CmdRevParse(const GlobalOptions& g, const Args& args) {
  // Unknown options are refused before the store is opened; the flags themselves take effect
  // where they appear, as git's do ("HEAD~1 --short HEAD" shows the first id in full).
  for (const std::string& a : args) {
    RevParseOptions ignored;
    if (TakeFlag(a, &ignored) || IsRepoQuestion(a)) continue;
    if (a.size() > 1 && a[0] == '-') {
      return GitDie("rev-parse: unsupported option '" + a +
                    "' (reftab's rev-parse reads single revisions and questions about the " +
                    "repository)");
    }
  }
  auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  RevParseOptions o;
  std::optional<GitRepoLocation> location;
  std::vector<ObjectNameResult> found;
  std::vector<std::string> found_names;
  for (const std::string& name : args) {
    if (TakeFlag(name, &o)) {
      if (o.show == Show::kAbbrevRef && o.abbrev_default) {
        o.abbrev_strict = WarnAmbiguousRefs(store);
      }
      continue;
    }
    if (IsRepoQuestion(name)) {
      if (!g.stack_dir.empty()) return GitDie("rev-parse " + name + ": needs a git repository");
      if (!location) {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd)) return GitDie("unable to get current working directory");
        Result<GitRepoLocation> at = LocateGitRepo(cwd, g.git_dir, store.config());
        if (!at.ok()) return GitDie(at.status().message());
        location = std::move(*at);
      }
      if (int rc = AnswerRepoQuestion(name, *location); rc >= 0) return rc;
      continue;
    }
    if (int rc = RefuseRange(store, name); rc >= 0) return rc;
    ObjectNameResult r;
    RevisionOptions ro;
    ro.quiet = o.quiet;
    Status s = ResolveRevision(store, name, &r, ro);
    if (!s.ok()) return GitDie(s.message());
    ReportObjectName(r);
    if (r.dies) return ObjectNameDied(r);
    if (!r.found) {
      if (o.verify) return NoSingleRevision(o.quiet);
      return NotARevision(store, name);
    }
    if (!o.verify) {
      ShowName(store, o, name, r);
    } else {
      found.push_back(std::move(r));
      found_names.push_back(name);
    }
  }
  if (!o.verify) return kExitOk;
  if (found.size() != 1) return NoSingleRevision(o.quiet);
  return ShowName(store, o, found_names[0], found[0]);
}

}  // namespace reftab::cli

// `reftab help rev-parse` and `reftab rev-parse -h` (cli/commands.h).
const char* const reftab::cli::kRevParseUsage =
    "usage: reftab rev-parse [--verify] [-q | --quiet] [--short[=<n>]] [--symbolic |\n"
    "                        --symbolic-full-name | --abbrev-ref[=strict|loose]]\n"
    "                        [--git-dir | --absolute-git-dir | --show-toplevel |\n"
    "                        --is-inside-work-tree | --is-inside-git-dir |\n"
    "                        --is-bare-repository | --show-ref-format]... <revision>...\n"
    "\n"
    "A revision names one object, in git's syntax: a full or abbreviated id, a ref name,\n"
    "@, <ref>@{<n>}, <ref>@{<date>}, @{-<n>}, <branch>@{upstream}, <branch>@{push},\n"
    "followed by ~<n>, ^<n>, ^{}, ^{<type>}, ^{/<regex>}; or :/<regex>. Ranges (A..B,\n"
    "^A) and paths (<rev>:<path>) are not supported.\n"
    "\n";
