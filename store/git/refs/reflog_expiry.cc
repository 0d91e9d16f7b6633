// git's expiry of reflog entries: the expiry times its configuration gives each ref, and
// the policy that decides on each entry (reachability as git marks it; --stale-fix's test).
#include <algorithm>

#include "store/git/date.h"
#include "store/git/refs/reflog.h"
#include "store/git/wildmatch.h"

namespace reftab {
namespace {

// HEAD, also as another worktree names it (main-worktree/HEAD, worktrees/<id>/HEAD).
bool IsHeadName(std::string_view name) {
  if (name == "HEAD" || name == "main-worktree/HEAD") return true;
  constexpr std::string_view kWorktrees = "worktrees/";
  if (name.substr(0, kWorktrees.size()) != kWorktrees) return false;
  name.remove_prefix(kWorktrees.size());
  size_t slash = name.find('/');
  return slash != std::string_view::npos && slash > 0 && name.substr(slash) == "/HEAD";
}

}  // namespace

Status ReflogExpiryPolicy::CommitOf(const ObjectId& id, ObjectId* commit, bool* ok) {
  *ok = false;
  GitObjects* objects = store_->objects();
  if (!objects || !objects->available()) {
    return Status::InvalidArgument("--expire-unreachable needs the object database (" +
                                   std::string(objects ? objects->reason() : "there is none here") +
                                   ")");
  }
  return objects->PeelToCommit(id, commit, ok);
}

Result<ReflogExpiryConfig> ReflogExpiryConfig::Read(const GitConfig& config, uint64_t now,
                                                    std::string* error) {
  ReflogExpiryConfig c;
  c.defaults_.expire_total = now - 30 * 24 * 3600;
  c.defaults_.expire_unreachable = now - 90 * 24 * 3600;
  for (const ConfigEntry& e : config.entries()) {
    // "gc.<variable>" or "gc.<pattern>.<variable>": the variable is lower case, the
    // pattern as written.
    if (e.key.compare(0, 3, "gc.") != 0) continue;
    const size_t last_dot = e.key.rfind('.');
    const std::string_view variable = std::string_view(e.key).substr(last_dot + 1);
    const bool total = variable == "reflogexpire";
    if (!total && variable != "reflogexpireunreachable") continue;
    uint64_t when = 0;
    if (!e.value || !ParseExpiryDate(*e.value, GitDateNow(), &when).ok()) {
      *error = e.value ? "'" + *e.value + "' for '" + e.key + "' is not a valid timestamp"
                       : "missing value for '" + e.key + "'";
      return Status::InvalidArgument(BadConfigVariable(e));
    }
    ReflogExpiryTimes* times = &c.defaults_;
    if (last_dot > 2) {
      std::string pattern = e.key.substr(3, last_dot - 3);
      auto it = std::find_if(c.patterns_.begin(), c.patterns_.end(),
                             [&](const PatternTimes& p) { return p.pattern == pattern; });
      if (it == c.patterns_.end()) {
        c.patterns_.push_back({std::move(pattern), {}});
        it = c.patterns_.end() - 1;
      }
      times = &it->times;
    }
    (total ? times->expire_total : times->expire_unreachable) = when;
  }
  return c;
}

ReflogExpiryTimes ReflogExpiryConfig::For(std::string_view refname, std::optional<uint64_t> total,
                                          std::optional<uint64_t> unreachable) const {
  ReflogExpiryTimes t = defaults_;
  auto match = std::find_if(patterns_.begin(), patterns_.end(),
                            [&](const PatternTimes& p) { return WildMatch(p.pattern, refname); });
  if (match != patterns_.end()) {
    t = match->times;
  } else if (refname == "refs/stash") {
    t = ReflogExpiryTimes{};  // never
  }
  if (total) t.expire_total = *total;
  if (unreachable) t.expire_unreachable = *unreachable;
  return t;
}

Status ReflogExpiryPolicy::Prepare(const ObjectId& tip) {
  mark_list_.clear();
  reachable_.clear();
  if (times_.expire_unreachable <= times_.expire_total) {
    kind_ = Unreachable::kAlways;
    return Status::Ok();
  }
  if (!times_.expire_unreachable || IsHeadName(refname_)) {
    kind_ = Unreachable::kHead;
    // git lists the tips and then turns the list around: the marking starts at the first ref.
    Status s;
    REFTAB_RETURN_IF_ERROR(store_->ForEachRef("refs/", [&](const RefRecord& r) {
      if (r.value_type == RefValueType::kSymref) return true;
      ObjectId c{};
      bool ok = false;
      s = CommitOf(r.value, &c, &ok);
      if (ok) mark_list_.push_back(c);
      return s.ok();
    }));
    REFTAB_RETURN_IF_ERROR(s);
    std::reverse(mark_list_.begin(), mark_list_.end());
  } else {
    ObjectId c{};
    bool ok = false;
    if (!IsZeroId(tip, store_->hash_size())) REFTAB_RETURN_IF_ERROR(CommitOf(tip, &c, &ok));
    kind_ = ok ? Unreachable::kNormal : Unreachable::kAlways;
    if (!ok) return Status::Ok();
    mark_list_.push_back(c);
  }
  mark_limit_ = times_.expire_total;
  return MarkReachable();
}

Status ReflogExpiryPolicy::ParseFailure(const ObjectId& id) {
  if (!error_) return Status::Ok();
  GitObjectType type = GitObjectType::kNone;
  REFTAB_RETURN_IF_ERROR(store_->objects()->TypeOf(id, &type));
  const std::string hex = HexId(id, store_->hash_size());
  error_(type == GitObjectType::kNone     ? "Could not read " + hex
         : type != GitObjectType::kCommit ? "Object " + hex + " not a commit"
                                          : "bogus commit object " + hex);
  return Status::Ok();
}

Status ReflogExpiryPolicy::MarkReachable() {
  GitObjects& objects = *store_->objects();
  // What the last marking left over (at the limit) is marked again, past the limit now.
  for (const ObjectId& c : mark_list_) reachable_.erase(c);
  std::vector<ObjectId> pending = std::move(mark_list_);  // the back is git's list head
  mark_list_.clear();
  GitCommitLinks commit;
  while (!pending.empty()) {
    const ObjectId c = pending.back();
    pending.pop_back();
    if (reachable_.count(c)) continue;
    bool ok = false;
    REFTAB_RETURN_IF_ERROR(objects.ReadCommitLinks(c, &commit, &ok));
    if (!ok) {
      // Not marked, so met again (and said again) from each other child.
      REFTAB_RETURN_IF_ERROR(ParseFailure(c));
      continue;
    }
    reachable_.insert(c);
    if (commit.date < mark_limit_) {
      mark_list_.push_back(c);
      continue;
    }
    for (const ObjectId& p : commit.parents) {
      if (!reachable_.count(p)) pending.push_back(p);
    }
  }
  return Status::Ok();
}

Result<bool> ReflogExpiryPolicy::IsUnreachable(const ObjectId& id) {
  if (IsZeroId(id, store_->hash_size())) return false;
  ObjectId commit{};
  bool ok = false;
  REFTAB_RETURN_IF_ERROR(CommitOf(id, &commit, &ok));
  if (!ok) return false;  // not a commit: git keeps the entry
  if (reachable_.count(commit)) return false;
  // The first marking stopped at commits older than the total expiry time; one not marked
  // yet may lie below them: mark the rest of the history, down to the roots.
  if (!mark_list_.empty() && mark_limit_) {
    mark_limit_ = 0;
    REFTAB_RETURN_IF_ERROR(MarkReachable());
  }
  return !reachable_.count(commit);
}

Result<bool> ReflogExpiryPolicy::ShouldPrune(const LogRecord& e) {
  if (e.time < times_.expire_total) return true;
  if (stale_fix_) {
    bool sound = false;
    REFTAB_RETURN_IF_ERROR(stale_fix_->IsSound(e.old_id, &sound));
    if (sound) REFTAB_RETURN_IF_ERROR(stale_fix_->IsSound(e.new_id, &sound));
    if (!sound) return true;
  }
  if (e.time < times_.expire_unreachable) {
    if (kind_ == Unreachable::kAlways) return true;
    REFTAB_ASSIGN_OR_RETURN(bool old_gone, IsUnreachable(e.old_id));
    if (old_gone) return true;
    REFTAB_ASSIGN_OR_RETURN(bool new_gone, IsUnreachable(e.new_id));
    if (new_gone) return true;
  }
  return false;
}

}  // namespace reftab
