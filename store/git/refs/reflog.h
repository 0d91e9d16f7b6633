// Public API: git's reflogs over the git ref store — reading one (newest first, as git's
// reflog walk numbers them), listing them, finding the reflog a user's name means, and
// pruning entries (`git reflog delete` / `git reflog expire`) the way git's reftable backend
// writes it: one new table holding a deletion record for every pruned entry, every kept
// entry again under its own update index (rewritten with --rewrite), the ref moved with
// --updateref, and an existence marker when no entry is left.
#ifndef REFTAB_STORE_GIT_REFS_REFLOG_H_
#define REFTAB_STORE_GIT_REFS_REFLOG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/config/config.h"
#include "store/git/objects/complete_history.h"
#include "store/git/refs/ref_store.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// Whether a log record is git's "this reflog exists" marker (both ids zero): git never
// shows it as an entry.
bool IsReflogExistenceMarker(const LogRecord& log, size_t hash_size);

// The live entries of `refname`'s reflog, newest first (entry N is `refname@{N}`), without
// deleted entries and existence markers.
Status ReadReflog(GitRefStore& store, std::string_view refname, std::vector<LogRecord>* out);

// Every name with a reflog (a live record, markers included), in name order. In a linked
// worktree, as git's merged view: every name of its own stack, and the shared names of the
// main stack (not per-worktree, not main-worktree/... or worktrees/<id>/...), its own
// shadowing a main one of the same name.
Status ListReflogs(GitRefStore& store, std::vector<std::string>* names);

// Which worktrees' reflogs `reflog expire --all` and `reflog drop --all` visit.
enum class ReflogWorktrees : uint8_t {
  kAll,      // git's default
  kCurrent,  // --single-worktree
};

// The reflogs `git reflog expire --all` / `git reflog drop --all` visit, in git's order:
// worktree by worktree as ListGitWorktrees lists them (store/git/worktrees.h). The current
// worktree contributes every name ListReflogs gives; another one only the names of its own
// stack that are not shared (the shared ones are the same everywhere): per-worktree ones under
// the names that reach them from here, "main-worktree/<ref>" or "worktrees/<id>/<ref>", and
// names stored already prefixed as they are (git lists such a name twice when it also has
// the ref it addresses; so does this). Over a bare directory: ListReflogs.
Status ListReflogsOfWorktrees(GitRefStore& store, ReflogWorktrees which,
                              std::vector<std::string>* names);

// git's `reflog drop` of one reflog: one new table with a deletion record for each of
// `refname`'s live log records (existence marker included), under the record's own update
// index, so the name has no reflog afterwards; the ref itself is left alone. Nothing is
// written when there is none. As in git 2.55, Locate chooses the stack but the records are
// looked up under the name as given: "worktrees/<id>/HEAD" or "main-worktree/HEAD" finds
// nothing there (those reflogs are stored as "HEAD"), so git's `drop --all` leaves other
// worktrees' reflogs in place, and so does this; only a record stored under the prefixed
// name itself (as WriteReflogEntry stores one) goes.
Status DropReflog(GitRefStore& store, std::string_view refname);

// git's `reflog write`: one entry added to `refname`'s reflog (created if there is none)
// with the given ids, the committer identity and time (GitRefStore::committer()) and
// `message` cleaned as git cleans reflog messages; the ref itself is neither read nor
// changed. Like git, the entry keeps the name as given ("main-worktree/HEAD" stays that)
// while Locate chooses the stack. Another worktree without a stack fails as git's does
// (kIoError "reftable: transaction prepare: I/O error"); a held lock is kLockHeld
// "cannot lock references". Names and ids are the caller's to check.
Status WriteReflogEntry(GitRefStore& store, std::string_view refname, const ObjectId& old_id,
                        const ObjectId& new_id, std::string_view message);

// git's `dwim_log`: the first of NAME, refs/NAME, refs/tags/NAME, refs/heads/NAME,
// refs/remotes/NAME, refs/remotes/NAME/HEAD that resolves to an object and has a reflog
// (its own, or that of the ref it points to). Empty when none. `*found` (optional): how
// many of them qualify (git warns when more than one does).
Status DwimReflog(GitRefStore& store, std::string_view name, std::string* refname,
                  int* found = nullptr);

// What `git log -g NAME` reads for NAME (without its @{...}): NAME's reflog, else that of
// the ref NAME points to, else refs/NAME's, else refs/heads/NAME's, else DwimReflog's.
// `*shown` is the name git prints in selectors (NAME as given, or the dwim result).
Status ReadReflogForWalk(GitRefStore& store, std::string_view name, std::string* shown,
                         std::vector<LogRecord>* entries);

// One reflog as git's reflog walk reads it (ReadReflogForWalk).
struct ReflogForWalk {
  std::string shown;
  std::vector<LogRecord> entries;
};

// The reflogs `git log -g --all` (and `git reflog show --all`) walks, in git's order: for each
// ref --all names (ForEachRevisionAllRef, store/git/refs/ref_list.h; `ref_paranoia` and
// `error` as GitListCallbacks' include_broken and error) whose object is a commit (an
// annotated tag is not), the reflog ReadReflogForWalk reads for its name, when not empty. A
// ref whose object is missing fails with git's fatal "bad object <name>" (kNotFound), and so
// does an annotated tag whose target (or a tag's on the way) is missing: "bad object <id>",
// as git's walk peels them. Without an object database every ref counts as a commit.
Status ReadAllReflogsForWalk(GitRefStore& store, bool ref_paranoia,
                             const std::function<void(const std::string&)>& error,
                             std::vector<ReflogForWalk>* out);

// A `REF@{...}` selector, split as git splits it: at the first "@{".
struct ReflogSelector {
  enum class Kind { kNone, kIndex, kDate };
  std::string ref;  // before "@{" (may be empty: the current branch)
  Kind kind = Kind::kNone;
  uint64_t index = 0;  // kIndex
  std::string date;    // kDate: what stands between the braces
};
ReflogSelector ParseReflogSelector(std::string_view spec);

// How an expiry or delete treats each entry (called oldest entry first, as git does).
// Returns true to prune it.
using ReflogPruneFn = std::function<Result<bool>(const LogRecord& entry)>;

struct ReflogExpireFlags {
  bool dry_run = false;     // decide, write nothing
  bool rewrite = false;     // a kept entry's old id becomes the new id of the kept one before
  bool update_ref = false;  // the ref (not through a symref) moves to the newest kept entry
};

// Runs `prune` over `refname`'s entries and writes the result as git does (see above).
// `prepare` (may be empty) is called first with the ref's own value (zero for a symref or a
// missing ref), as git's expiry policy wants it.
Status ExpireReflog(GitRefStore& store, std::string_view refname, const ReflogExpireFlags& flags,
                    const std::function<Status(const ObjectId& tip)>& prepare,
                    const ReflogPruneFn& prune);

// Which entry `reflog delete REF@{...}` removes, counted from the oldest (1 = the oldest;
// 0 or less: none), as git counts: for @{N} the reflog's size minus N, for @{<date>} the
// number of entries older than the date. `entries` newest first.
Status ReflogDeleteTarget(const std::vector<LogRecord>& entries, const ReflogSelector& sel,
                          uint64_t now, int64_t* kth_oldest);
// Prunes the kth-oldest entry (ExpireReflog calls the policy oldest first).
ReflogPruneFn PruneNthOldest(int64_t kth_oldest);

// git's expiry policy for `reflog expire`: entries older than `expire_total` go; entries
// older than `expire_unreachable` go too when `reachable` says their old or new commit is
// not reachable from the tip (0 means never). Times are seconds since the epoch; "all"
// is UINT64_MAX.
struct ReflogExpiryTimes {
  uint64_t expire_total = 0;
  uint64_t expire_unreachable = 0;
};

// The expiry times git's configuration gives each reflog: gc.reflogExpire and
// gc.reflogExpireUnreachable (defaults 30 and 90 days before `now`, as git's code has
// them), their per-pattern forms gc.<pattern>.reflogExpire[Unreachable] (the first pattern
// that wildmatches the ref name wins, and gives both times: one it does not set is "never"),
// and refs/stash never expiring unless a pattern matches it. Values are git's expiry dates
// ("never", "now", "90.days.ago", a date; relative ones count from GitDateNow(), as git's).
class ReflogExpiryConfig {
 public:
  // Reads `config` as git does. A value that is not an expiry date (or has no '=') fails with
  // git's fatal message ("bad config variable '<key>' in file '<file>' at line <n>", or
  // "unable to parse '<key>' from command-line config"); `error` then gets the error line git
  // prints before it ("'<value>' for '<key>' is not a valid timestamp"), without "error: ".
  static Result<ReflogExpiryConfig> Read(const GitConfig& config, uint64_t now, std::string* error);

  // The times for `refname`; a time given on the command line (`total`, `unreachable`) takes
  // precedence over the configuration.
  ReflogExpiryTimes For(std::string_view refname, std::optional<uint64_t> total,
                        std::optional<uint64_t> unreachable) const;

 private:
  struct PatternTimes {
    std::string pattern;
    ReflogExpiryTimes times;  // 0 (never) where the pattern's section does not set one
  };
  ReflogExpiryTimes defaults_;
  std::vector<PatternTimes> patterns_;  // in the order git first meets each pattern
};

// The policy of `git reflog expire` for one ref: Prepare() with the ref's own value (as
// ExpireReflog passes it), then ShouldPrune() per entry. For HEAD an entry counts as
// reachable from any ref under refs/, for another ref from its own tip; a ref whose tip is
// not a commit has every old-enough entry pruned. Reachable is what git marks: commits
// reached over parents (a shallow commit has none) that can be read, first down to the
// total expiry time, the rest when an entry asks for an older one. Each commit that cannot be
// read on the way gives git's error line ("Could not read <id>", passed to `error` without
// "error: "), once each time it is met. Reachability needs the object database
// (store/git/objects/objects.h); without it only expiries that never ask about it work (the
// unreachable time not after the total one), others fail saying so.
// With `stale_fix` (--stale-fix: TrustReachableFromRefs, store/git/refs/reflog_stale_fix.h;
// kept, not owned) an entry older than no expiry time is pruned all the same when its old or
// its new id is not sound (GitCompleteHistory::IsSound), as git's rule has it: after the
// total time, before the unreachable one.
class ReflogExpiryPolicy {
 public:
  ReflogExpiryPolicy(GitRefStore* store, std::string refname, ReflogExpiryTimes times,
                     GitCompleteHistory* stale_fix = nullptr,
                     std::function<void(const std::string&)> error = {})
      : store_(store),
        refname_(std::move(refname)),
        times_(times),
        stale_fix_(stale_fix),
        error_(std::move(error)) {}
  Status Prepare(const ObjectId& tip);
  Result<bool> ShouldPrune(const LogRecord& entry);

 private:
  enum class Unreachable { kAlways, kNormal, kHead };
  Status CommitOf(const ObjectId& id, ObjectId* commit, bool* ok);
  Result<bool> IsUnreachable(const ObjectId& id);
  // git's mark_reachable: marks from mark_list_, stopping below mark_limit_ (whose commits
  // become the next mark_list_).
  Status MarkReachable();
  Status ParseFailure(const ObjectId& id);

  GitRefStore* store_;
  std::string refname_;
  ReflogExpiryTimes times_;
  GitCompleteHistory* stale_fix_;
  std::function<void(const std::string&)> error_;
  Unreachable kind_ = Unreachable::kAlways;
  std::vector<ObjectId> mark_list_;  // its back is the head of git's list
  uint64_t mark_limit_ = 0;
  std::set<ObjectId> reachable_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REFLOG_H_
