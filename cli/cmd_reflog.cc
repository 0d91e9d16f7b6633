// reftab reflog [show|list|exists|write|delete|drop|expire] ...: git's `git reflog`, with git's
// output, messages and exit codes: 128 after "fatal: ...", 129 for usage errors, 255 when a
// subcommand reports "error: ..." (git returns -1 there), 1 from `exists` for a missing reflog,
// 251 and 254 where git's reftable library's lock and I/O errors become the status.
// Which entries, selectors and expiry decisions: store/git/refs/reflog.h; printing:
// cli/reflog_format.h.
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/output.h"
#include "cli/pager.h"
#include "cli/reflog_format.h"
#include "cli/reflog_show.h"
#include "cli/stack_access.h"
#include "store/git/date.h"
#include "store/git/objects/abbrev.h"
#include "store/git/refs/ref_list.h"
#include "store/git/refs/reflog.h"
#include "store/git/refs/reflog_stale_fix.h"
#include "store/git/refs/refname.h"

namespace reftab::cli {
namespace {

constexpr const char kReflogUsageText[] =
    "usage: reftab reflog [show] [<log-options>] [<ref>]\n"
    "   or: reftab reflog list\n"
    "   or: reftab reflog exists <ref>\n"
    "   or: reftab reflog write <ref> <old-oid> <new-oid> <message>\n"
    "   or: reftab reflog delete [--rewrite] [--updateref]\n"
    "                            [--dry-run | -n] [--verbose] <ref>@{<specifier>}...\n"
    "   or: reftab reflog drop [--all [--single-worktree] | <refs>...]\n"
    "   or: reftab reflog expire [--expire=<time>] [--expire-unreachable=<time>]\n"
    "                            [--rewrite] [--updateref] [--stale-fix]\n"
    "                            [--dry-run | -n] [--verbose] [--all [--single-worktree] | "
    "<refs>...]\n"
    "\n"
    "    <log-options>: --all, -n <N>, --max-count=<N>, --date=<mode>, --format=<format>\n"
    "                   (%gd %gD %gs %gn %ge %H %h %s %an %ae %ad %cn %ce %cd ...),\n"
    "                   --format=json (one JSON object per entry), --[no-]color[=<when>],\n"
    "                   --decorate[=short|full|auto|no], --no-decorate\n"
    "\n";

constexpr const char kShowUsage[] = "usage: reftab reflog [show] [<log-options>] [<ref>]\n\n";
constexpr const char kExistsUsage[] = "usage: reftab reflog exists <ref>\n\n";
constexpr const char kListUsage[] = "usage: reftab reflog list\n\n";
constexpr const char kWriteUsage[] =
    "usage: reftab reflog write <ref> <old-oid> <new-oid> <message>\n\n";
constexpr const char kDropUsage[] =
    "usage: reftab reflog drop [--all [--single-worktree] | <refs>...]\n"
    "\n"
    "    --[no-]all            drop the reflogs of all references\n"
    "    --[no-]single-worktree\n"
    "                          drop reflogs from the current worktree only\n"
    "\n";
constexpr const char kDeleteUsage[] =
    "usage: reftab reflog delete [--rewrite] [--updateref]\n"
    "                            [--dry-run | -n] [--verbose] <ref>@{<specifier>}...\n"
    "\n"
    "    -n, --[no-]dry-run    do not actually prune any entries\n"
    "    --[no-]rewrite        rewrite the old SHA1 with the new SHA1 of the entry that now "
    "precedes it\n"
    "    --[no-]updateref      update the reference to the value of the top reflog entry\n"
    "    --[no-]verbose        print extra information on screen\n"
    "\n";
constexpr const char kExpireUsage[] =
    "usage: reftab reflog expire [--expire=<time>] [--expire-unreachable=<time>]\n"
    "                            [--rewrite] [--updateref] [--stale-fix]\n"
    "                            [--dry-run | -n] [--verbose] [--all [--single-worktree] | "
    "<refs>...]\n"
    "\n"
    "    -n, --[no-]dry-run    do not actually prune any entries\n"
    "    --[no-]rewrite        rewrite the old SHA1 with the new SHA1 of the entry that now "
    "precedes it\n"
    "    --[no-]updateref      update the reference to the value of the top reflog entry\n"
    "    --[no-]verbose        print extra information on screen\n"
    "    --expire <timestamp>  prune entries older than the specified time\n"
    "    --expire-unreachable <timestamp>\n"
    "                          prune entries older than <time> that are not reachable from "
    "the current tip of the branch\n"
    "    --[no-]stale-fix      prune any reflog entries that point to broken commits\n"
    "    --[no-]all            process the reflogs of all references\n"
    "    --[no-]single-worktree\n"
    "                          limits processing to reflogs from the current worktree only\n"
    "\n";

constexpr int kExitGitError = 255;  // a git command returning error()'s -1

int Error(const std::string& message) {
  (void)GitError(message);
  return kExitGitError;
}

// git's error line for what a walk or listing passes by (GitError: stdout flushed first).
void PrintError(const std::string& message) { (void)GitError(message); }

// git's parse-options complaint about an option it does not know, then the usage.
int UnknownOption(const std::string& arg, const char* usage) {
  if (arg.size() > 2 && arg[1] == '-') {
    std::fprintf(stderr, "error: unknown option `%s'\n", arg.c_str() + 2);
  } else {
    std::fprintf(stderr, "error: unknown switch `%c'\n", arg.size() > 1 ? arg[1] : '-');
  }
  std::fputs(usage, stderr);
  return kExitUsage;
}

// In a git repository a lock another writer holds fails a reflog change as git's does: no
// message, the library's lock error as the status (in a plain stack, the error says which).
bool IsGitLockHeld(Store& store, const Status& s) {
  return s.code() == Code::kLockHeld && store.repo() != nullptr;
}

// git's status for one reflog expiry, deletion or drop, to be or-ed into the command's: its
// reftable library's lock or I/O error, or error()'s -1.
int ChangeStatus(Store& store, const Status& s) {
  if (s.ok()) return 0;
  if (IsGitLockHeld(store, s)) return kExitGitLockHeld;
  const int status = Error(s.message());
  return s.code() == Code::kIoError && store.repo() != nullptr ? kExitGitIoError : status;
}

// Statuses or-ed as git's are (-1 | -5 is -1, -2 | -5 is -1): 0, 128, 251 or 254 alone
// stand, else 255.
int GitOrStatus(int status) {
  if (status == 0 || status == kExitGitFatal || status == kExitGitLockHeld ||
      status == kExitGitIoError) {
    return status;
  }
  return kExitGitError;
}

int Help(const char* usage) {
  std::fputs(usage, stdout);
  return kExitOk;
}

// Each subcommand's arguments are parsed apart from its work (-1 when they parse, else the
// exit status after git's words), so that they can be parsed where reftab cannot read the
// refs but git's parser would still answer (CmdReflog).
int ParseList(const Args& args) {
  for (const std::string& a : args) {
    if (a == "-h") return Help(kListUsage);
    if (a.size() > 1 && a[0] == '-' && a != "--") return UnknownOption(a, kListUsage);
  }
  if (!args.empty()) return Error("list does not accept arguments: '" + args[0] + "'");
  return -1;
}

int ReflogList(Store& store, const Args& args) {
  if (int r = ParseList(args); r >= 0) return r;
  std::vector<std::string> names;
  Status s = ListReflogs(store, &names);
  if (!s.ok()) return GitDie(s.message());
  Output out;
  for (const std::string& n : names) out.buf().append(n).push_back('\n');
  return out.Flush() ? kExitOk : kExitError;
}

int ParseExists(const Args& args, std::vector<std::string>* out) {
  std::vector<std::string>& refs = *out;
  for (const std::string& a : args) {
    if (a == "-h") return Help(kExistsUsage);
    if (a.size() > 1 && a[0] == '-') return UnknownOption(a, kExistsUsage);
    refs.push_back(a);
  }
  if (refs.empty()) {
    std::fputs(kExistsUsage, stderr);
    return kExitUsage;
  }
  if (!IsValidRefname(refs[0], kRefnameAllowOneLevel)) {
    return GitDie("invalid ref format: " + refs[0]);
  }
  return -1;
}

int ReflogExists(Store& store, const Args& args) {
  std::vector<std::string> refs;
  if (int r = ParseExists(args, &refs); r >= 0) return r;
  bool exists = false;
  Status s = store.ReflogExists(refs[0], &exists);
  if (!s.ok()) return GitDie(s.message());
  return exists ? kExitOk : kExitError;
}

// Options shared by delete and expire.
struct PruneOptions {
  ReflogExpireFlags flags;
  bool verbose = false;
  bool verbose_says_would = false;  // git says "would prune" only where it passes dry_run
};

// Takes one of delete's and expire's common options; false if `a` is none of them.
bool TakePruneOption(const std::string& a, PruneOptions* o) {
  if (a == "-n" || a == "--dry-run") return o->flags.dry_run = true;
  if (a == "--no-dry-run") return !(o->flags.dry_run = false);
  if (a == "--rewrite") return o->flags.rewrite = true;
  if (a == "--no-rewrite") return !(o->flags.rewrite = false);
  if (a == "--updateref") return o->flags.update_ref = true;
  if (a == "--no-updateref") return !(o->flags.update_ref = false);
  if (a == "--verbose") return o->verbose = true;
  if (a == "--no-verbose") return !(o->verbose = false);
  return false;
}

// Wraps a policy with --verbose's lines ("keep <message>", "prune <message>").
ReflogPruneFn Verbose(const PruneOptions& o, ReflogPruneFn inner, Output* out) {
  if (!o.verbose) return inner;
  bool would = o.verbose_says_would && o.flags.dry_run;
  return [inner = std::move(inner), would, out](const LogRecord& e) -> Result<bool> {
    REFTAB_ASSIGN_OR_RETURN(bool prune, inner(e));
    out->buf().append(!prune ? "keep " : would ? "would prune " : "prune ").append(e.message);
    return prune;
  };
}

// One `reflog delete` argument; returns git's status for it (0 or -1).
int DeleteOne(Store& store, const std::string& rev, const PruneOptions& o, Output* out) {
  if (rev.find("@{") == std::string::npos) return Error("not a reflog: " + rev);
  ReflogSelector sel = ParseReflogSelector(rev);
  std::string ref;
  Status s = DwimReflog(store, sel.ref, &ref);
  if (!s.ok()) return GitDie(s.message());
  if (ref.empty()) return Error("no reflog for '" + rev + "'");
  std::vector<LogRecord> entries;
  s = ReadReflog(store, ref, &entries);
  if (!s.ok()) return GitDie(s.message());
  int64_t kth = 0;
  s = ReflogDeleteTarget(entries, sel, GitDateNow(), &kth);
  if (!s.ok()) return GitDie(s.message());
  PruneOptions po = o;
  po.verbose_says_would = true;
  s = ExpireReflog(store, ref, o.flags, {}, Verbose(po, PruneNthOldest(kth), out));
  return ChangeStatus(store, s);
}

int ParseDelete(const Args& args, PruneOptions* po, std::vector<std::string>* out) {
  PruneOptions& o = *po;
  std::vector<std::string>& revs = *out;
  bool dashdash = false;
  for (const std::string& a : args) {
    if (dashdash || a.empty() || a[0] != '-' || a == "-") {
      revs.push_back(a);
    } else if (a == "--") {
      dashdash = true;
    } else if (a == "-h") {
      return Help(kDeleteUsage);
    } else if (!TakePruneOption(a, &o)) {
      return UnknownOption(a, kDeleteUsage);
    }
  }
  if (revs.empty()) return Error("no reflog specified to delete");
  return -1;
}

int ReflogDelete(Store& store, const Args& args) {
  PruneOptions o;
  std::vector<std::string> revs;
  if (int r = ParseDelete(args, &o, &revs); r >= 0) return r;
  Output out;
  int status = 0;
  for (const std::string& r : revs) {
    status |= DeleteOne(store, r, o, &out);
    out.Flush();
  }
  return GitOrStatus(status);
}

struct ExpireOptions {
  PruneOptions prune;
  bool all = false;
  bool single_worktree = false;
  bool stale_fix = false;
  std::optional<uint64_t> expire_total, expire_unreachable;
  std::vector<std::string> refs;
};

// Parses expire's arguments; returns -1 when done, else the exit status.
int ParseExpire(const Args& args, ExpireOptions* o) {
  const uint64_t now = GitDateNow();
  bool dashdash = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (dashdash || a.empty() || a[0] != '-' || a == "-") {
      o->refs.push_back(a);
    } else if (a == "--") {
      dashdash = true;
    } else if (a == "-h") {
      return Help(kExpireUsage);
    } else if (TakePruneOption(a, &o->prune)) {
    } else if (a == "--all") {
      o->all = true;
    } else if (a == "--no-all") {
      o->all = false;
    } else if (a == "--single-worktree" || a == "--no-single-worktree") {
      o->single_worktree = a == "--single-worktree";
    } else if (a == "--stale-fix" || a == "--no-stale-fix") {
      o->stale_fix = a == "--stale-fix";
    } else if (TakeValue(args, &i, "--expire-unreachable", &v) ||
               TakeValue(args, &i, "--expire", &v)) {
      bool unreach = a.starts_with("--expire-unreachable");
      uint64_t t = 0;
      if (!ParseExpiryDate(v, now, &t).ok()) {
        return GitDie("invalid timestamp '" + v + "' given to '--" +
                      (unreach ? "expire-unreachable" : "expire") + "'");
      }
      (unreach ? o->expire_unreachable : o->expire_total) = t;
    } else {
      return UnknownOption(a, kExpireUsage);
    }
  }
  return -1;
}

Status ExpireOne(Store& store, const ExpireOptions& o, const ReflogExpiryConfig& config,
                 GitCompleteHistory* stale_fix, const std::string& ref, Output* out) {
  ReflogExpiryPolicy policy(&store, ref, config.For(ref, o.expire_total, o.expire_unreachable),
                            stale_fix, PrintError);
  auto prune = [&policy](const LogRecord& e) { return policy.ShouldPrune(e); };
  auto prepare = [&policy](const ObjectId& tip) { return policy.Prepare(tip); };
  return ExpireReflog(store, ref, o.prune.flags, prepare, Verbose(o.prune, prune, out));
}

// --stale-fix's walk from the refs, once before any reflog is expired, with git's words
// around it. Returns -1 when done, else the exit status (after git's fatal line).
int MarkReachable(Store& store, bool verbose, Output* out,
                  std::unique_ptr<GitCompleteHistory>* history) {
  if (verbose) out->buf().append("Marking reachable objects...");
  Result<bool> paranoia = RefParanoia();
  Status s = paranoia.status();
  if (s.ok()) {
    Result<std::unique_ptr<GitCompleteHistory>> trusted =
        TrustReachableFromRefs(store, *paranoia, PrintError);
    s = trusted.status();
    if (s.ok()) *history = std::move(*trusted);
  }
  if (!s.ok()) {
    out->Flush();
    return GitDie(s.message());
  }
  if (verbose) out->buf().push_back('\n');
  return -1;
}

// The configuration, read before the options as git reads it, then the options.
int ParseExpireWithConfig(const GitConfig& git_config, const Args& args, ExpireOptions* o,
                          std::optional<ReflogExpiryConfig>* config) {
  std::string error;
  Result<ReflogExpiryConfig> read =
      ReflogExpiryConfig::Read(git_config, uint64_t(std::time(nullptr)), &error);
  if (!read.ok()) {
    (void)GitError(error);
    return GitDie(read.status().message());
  }
  *config = std::move(*read);
  // git's expire reads the rest of its configuration too, core.abbrev checked among it.
  Result<int> core_abbrev = ReadCoreAbbrev(git_config, &error);
  if (!core_abbrev.ok()) return GitConfigDie(core_abbrev.status(), error);
  return ParseExpire(args, o);
}

int ReflogExpire(Store& store, const Args& args) {
  ExpireOptions o;
  std::optional<ReflogExpiryConfig> config;
  int r = ParseExpireWithConfig(store.config(), args, &o, &config);
  if (r >= 0) return r;
  Output out;
  std::unique_ptr<GitCompleteHistory> stale_fix;
  if (o.stale_fix) {
    r = MarkReachable(store, o.prune.verbose, &out, &stale_fix);
    if (r >= 0) return r;
  }
  int status = 0;
  std::vector<std::string> all;
  if (o.all) {
    Status s = ListReflogsOfWorktrees(
        store, o.single_worktree ? ReflogWorktrees::kCurrent : ReflogWorktrees::kAll, &all);
    if (!s.ok()) return GitDie(s.message());
    o.prune.verbose_says_would = true;
  }
  for (const std::string& ref : all) {
    Status s = ExpireOne(store, o, *config, stale_fix.get(), ref, &out);
    out.Flush();
    status |= ChangeStatus(store, s);
  }
  o.prune.verbose_says_would = false;
  for (const std::string& name : o.refs) {
    std::string ref;
    Status s = DwimReflog(store, name, &ref);
    if (s.ok() && ref.empty()) {
      status = Error("reflog could not be found: '" + name + "'");
      continue;
    }
    if (s.ok()) s = ExpireOne(store, o, *config, stale_fix.get(), ref, &out);
    out.Flush();
    status |= ChangeStatus(store, s);
  }
  return status;
}

struct DropOptions {
  bool all = false;
  bool single_worktree = false;
  std::vector<std::string> refs;
};

// Parses drop's arguments; returns -1 when done, else the exit status.
int ParseDrop(const Args& args, DropOptions* o) {
  bool dashdash = false;
  for (const std::string& a : args) {
    if (dashdash || a.empty() || a[0] != '-' || a == "-") {
      o->refs.push_back(a);
    } else if (a == "--") {
      dashdash = true;
    } else if (a == "-h") {
      return Help(kDropUsage);
    } else if (a == "--all" || a == "--no-all") {
      o->all = a == "--all";
    } else if (a == "--single-worktree" || a == "--no-single-worktree") {
      o->single_worktree = a == "--single-worktree";
    } else {
      return UnknownOption(a, kDropUsage);
    }
  }
  if (o->all && !o->refs.empty()) {
    std::fputs("usage: references specified along with --all\n", stderr);
    return kExitUsage;
  }
  return -1;
}

int ReflogDrop(Store& store, const Args& args) {
  DropOptions o;
  if (int r = ParseDrop(args, &o); r >= 0) return r;
  int status = 0;
  if (o.all) {
    std::vector<std::string> names;
    Status s = ListReflogsOfWorktrees(
        store, o.single_worktree ? ReflogWorktrees::kCurrent : ReflogWorktrees::kAll, &names);
    if (!s.ok()) return GitDie(s.message());
    for (const std::string& n : names) status |= ChangeStatus(store, DropReflog(store, n));
    return GitOrStatus(status);
  }
  for (const std::string& name : o.refs) {
    std::string ref;
    Status s = DwimReflog(store, name, &ref);
    if (!s.ok()) return GitDie(s.message());
    if (ref.empty()) {
      status |= Error("reflog could not be found: '" + name + "'");
      continue;
    }
    status |= ChangeStatus(store, DropReflog(store, ref));
  }
  return GitOrStatus(status);
}

// An object id as git reads one here: the first 2*hash_size characters, hex in either case
// (git does not look past them).
bool ParseGitHexPrefix(std::string_view arg, size_t hash_size, ObjectId* id) {
  return arg.size() >= 2 * hash_size && ParseHexId(arg.substr(0, 2 * hash_size), hash_size, id);
}

// Checks one of write's ids as git does, in git's words ("old" or "new").
int CheckWriteId(Store& store, const std::string& arg, const char* which, ObjectId* id) {
  if (!ParseGitHexPrefix(arg, store.hash_size(), id)) {
    return GitDie(std::string("invalid ") + which + " object ID: '" + arg + "'");
  }
  // The zero id is no object but is accepted: it stands for "none" (a created ref's old id).
  bool exists = IsZeroId(*id, store.hash_size());
  if (!exists) {
    Status s = ObjectExists(store, *id, &exists);
    if (!s.ok()) return GitDie(s.message());
  }
  if (!exists) return GitDie(std::string(which) + " object '" + arg + "' does not exist");
  return -1;
}

int ParseWrite(const Args& args, std::vector<std::string>* out) {
  std::vector<std::string>& pos = *out;
  bool dashdash = false;
  for (const std::string& a : args) {
    if (dashdash || a.empty() || a[0] != '-' || a == "-") {
      pos.push_back(a);
    } else if (a == "--") {
      dashdash = true;
    } else if (a == "-h") {
      return Help(kWriteUsage);
    } else {
      return UnknownOption(a, kWriteUsage);
    }
  }
  if (pos.size() != 4) {
    std::fputs(kWriteUsage, stderr);
    return kExitUsage;
  }
  return -1;
}

int ReflogWrite(Store& store, const Args& args) {
  std::vector<std::string> pos;
  if (int r = ParseWrite(args, &pos); r >= 0) return r;
  const std::string& ref = pos[0];
  if (!IsRootRef(ref) && !IsValidRefname(ref)) return GitDie("invalid reference name: " + ref);
  ObjectId old_id{}, new_id{};
  if (int r = CheckWriteId(store, pos[1], "old", &old_id); r >= 0) return r;
  if (int r = CheckWriteId(store, pos[2], "new", &new_id); r >= 0) return r;
  Status s = WriteReflogEntry(store, ref, old_id, new_id, pos[3]);
  if (!s.ok()) return GitDie("cannot commit reflog update: " + s.message());
  return kExitOk;
}

// A subcommand's arguments parsed alone (see ParseList); -1 when they parse. Show's are
// left to it.
int ParseOnly(const std::string& sub, const Args& args, const GitConfig& config) {
  std::vector<std::string> names;
  if (sub == "list") return ParseList(args);
  if (sub == "exists") return ParseExists(args, &names);
  if (sub == "write") return ParseWrite(args, &names);
  if (sub == "delete") {
    PruneOptions o;
    return ParseDelete(args, &o, &names);
  }
  if (sub == "drop") {
    DropOptions o;
    return ParseDrop(args, &o);
  }
  if (sub == "expire") {
    ExpireOptions o;
    std::optional<ReflogExpiryConfig> expiry;
    return ParseExpireWithConfig(config, args, &o, &expiry);
  }
  return -1;
}

// git's parse-options answers -h anywhere before "--" (show keeps the options it does not
// know for the log machinery, and still answers -h).
bool AsksForHelp(const Args& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;
    if (a == "-h") return true;
  }
  return false;
}

}  // namespace

int CmdReflog(const GlobalOptions& g, const Args& args) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) return Help(kReflogUsageText);
  std::string sub = args.empty() ? "show" : args[0];
  bool named = sub == "show" || sub == "list" || sub == "exists" || sub == "delete" ||
               sub == "expire" || sub == "drop" || sub == "write";
  Args rest(args.begin() + (named && !args.empty() ? 1 : 0), args.end());
  if (!named) sub = "show";
  if (named && sub == "show" && AsksForHelp(rest)) {
    // After git's setup (which needs a repository), before the log machinery reads more.
    Result<GitConfig> config = SelectedConfig(g);
    return config.ok() ? Help(kShowUsage) : GitDie(config.status().message());
  }
  const bool writes = sub == "delete" || sub == "expire" || sub == "drop" || sub == "write";
  auto store = OpenStore(g, writes ? GitRepoAccess::kReadWrite : GitRepoAccess::kReadOnly);
  if (!store.ok()) {
    // git's setup accepts a repository whose refs reftab cannot open (a files-backend one, a
    // write setting only writers refuse, a broken stack), and the subcommand parses its
    // options before touching the refs: its usage and usage errors come first, as git's.
    if (Result<GitConfig> config = SelectedConfig(g); config.ok()) {
      if (int r = ParseOnly(sub, rest, *config); r >= 0) return r;
    }
    return GitDie(store.status().message());
  }
  Store& s = **store;
  if (sub == "list") return ReflogList(s, rest);
  if (sub == "exists") return ReflogExists(s, rest);
  if (sub == "delete") return ReflogDelete(s, rest);
  if (sub == "expire") return ReflogExpire(s, rest);
  if (sub == "drop") return ReflogDrop(s, rest);
  if (sub == "write") return ReflogWrite(s, rest);
  // Show starts the pager itself, as git's log does (main's, waited for after the command).
  Pager own;
  return ReflogShow(s, rest, g.pager ? *g.pager : own);
}

}  // namespace reftab::cli

// `reftab help reflog` and `reftab reflog -h` (cli/commands.h).
const char* const reftab::cli::kReflogUsage = reftab::cli::kReflogUsageText;
