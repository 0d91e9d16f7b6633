// reftab rev-parse [--verify] [-q|--quiet] [--short[=N]] [--symbolic | --symbolic-full-name |
//                  --abbrev-ref[=strict|loose]] NAME...
// The part of git's rev-parse that refs and commits answer: NAME is a full hex object id,
// "@", or a ref name, short or full, resolved by git's rules (store/git/refs/ref_dwim.h) with
// git's warnings ("refname 'x' is ambiguous.", "ignoring dangling symref ..."), followed by
// any of git's ~N, ^N, ^{}, ^{type} suffixes (store/git/refs/object_name.h). --short is
// --verify printing the id abbreviated as git does (at least N digits, unique). No @{...},
// abbreviated ids as input, ranges or paths. Output, messages and exit statuses as git's:
// --verify needs exactly one name ("fatal: Needed a single revision", 128; 1 with -q).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/object_name_report.h"
#include "cli/stack_access.h"
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
    }
  }
  if (!o.verify) return kExitOk;
  if (found.size() != 1) return NoSingleRevision(o.quiet);
  return ShowName(store, o, names[0], found[0]);
}

}  // namespace reftab::cli

// `reftab help rev-parse` and `reftab rev-parse -h` (cli/commands.h).
const char* const reftab::cli::kRevParseUsage =
    "usage: reftab rev-parse [--verify] [-q | --quiet] [--short[=<n>]] [--symbolic |\n"
    "                        --symbolic-full-name | --abbrev-ref[=strict|loose]] <name>...\n"
    "\n"
    "Names are ref names (short ones resolved by git's rules), @, or full hex ids, followed\n"
    "by git's ~<n>, ^<n>, ^{}, ^{<type>} suffixes; not yet @{...}, abbreviated ids, ranges.\n"
    "\n";
