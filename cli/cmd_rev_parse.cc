// reftab rev-parse [--verify] [-q|--quiet] [--symbolic | --symbolic-full-name |
//                  --abbrev-ref[=strict|loose]] NAME...
// The part of git's rev-parse that refs answer: NAME is a full hex object id, "@", or a ref
// name, short or full, resolved by git's rules (store/git/refs/ref_dwim.h) with git's warnings
// ("refname 'x' is ambiguous.", "ignoring dangling symref ..."). No revision syntax (~, ^,
// @{...}, abbreviated ids, ranges) and no paths. Output, messages and exit statuses as git's:
// --verify needs exactly one name ("fatal: Needed a single revision", 128; 1 with -q).
#include <cstdio>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/stack_access.h"
#include "store/git/refs/ref_dwim.h"

namespace reftab::cli {
namespace {

enum class Show { kId, kSymbolic, kFullName, kAbbrevRef };

struct RevParseOptions {
  bool verify = false;
  bool quiet = false;
  Show show = Show::kId;
  bool abbrev_strict = false;
  bool abbrev_default = false;  // strictness from core.warnAmbiguousRefs
};

void Warn(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) GitWarning(w);
}

// git's show_rev for a name that resolved.
int ShowName(Store& store, const RevParseOptions& o, const std::string& name,
             const ObjectNameResult& r) {
  if (o.show == Show::kId) return std::printf("%s\n", HexId(r.id, store.hash_size()).c_str()), 0;
  if (o.show == Show::kSymbolic) return std::printf("%s\n", name.c_str()), 0;
  // The full name is looked up again, as git does, so its warnings come twice.
  DwimResult d;
  Status s = DwimRef(store, name == "@" ? "HEAD" : name, /*all_rules=*/true, &d);
  if (!s.ok()) return GitDie(s.message());
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
int UnknownArgument(const std::string& arg, const std::vector<std::string>& warnings) {
  Warn(warnings);  // git looks the name up once more before giving up
  std::printf("%s\n", arg.c_str());
  std::fflush(stdout);
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

}  // namespace

int CmdRevParse(const GlobalOptions& g, const Args& args) {
  RevParseOptions o;
  Args names;
  for (const std::string& a : args) {
    if (TakeFlag(a, &o)) continue;
    if (a.size() > 1 && a[0] == '-') {
      return GitDie("rev-parse: unsupported option '" + a +
                    "' (reftab's rev-parse reads ref names only)");
    }
    names.push_back(a);
  }
  auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  if (o.abbrev_default) o.abbrev_strict = WarnAmbiguousRefs(store);
  std::vector<ObjectNameResult> found;
  for (const std::string& name : names) {
    ObjectNameResult r;
    Status s = ResolveObjectName(store, name, &r);
    if (!s.ok()) return GitDie(s.message());
    if (!o.quiet) {
      Warn(r.warnings);
    } else {
      for (const std::string& w : r.warnings) {
        if (w.starts_with("ignoring ")) GitWarning(w);
      }
    }
    if (!r.found) {
      if (o.verify) return NoSingleRevision(o.quiet);
      return UnknownArgument(name, r.warnings);
    }
    if (!o.verify) {
      ShowName(store, o, name, r);
    } else {
      found.push_back(std::move(r));
    }
  }
  if (!o.verify) return kExitOk;
  if (found.size() != 1) return NoSingleRevision(o.quiet);
  return ShowName(store, o, names[0], found[0]);
}

}  // namespace reftab::cli

// `reftab help rev-parse` and `reftab rev-parse -h` (cli/commands.h).
const char* const reftab::cli::kRevParseUsage =
    "usage: reftab rev-parse [--verify] [-q | --quiet] [--symbolic | --symbolic-full-name |\n"
    "                        --abbrev-ref[=strict|loose]] <name>...\n"
    "\n"
    "Names are ref names (short ones resolved by git's rules), @, or full hex ids; no\n"
    "revision syntax (~, ^, @{...}, abbreviated ids, ranges).\n"
    "\n";
