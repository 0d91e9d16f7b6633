// Public API: where a branch merges from and pushes to, from the repository's config, as git
// works it out for @{upstream}, @{push} and for-each-ref's %(upstream) / %(push):
// branch.<name>.remote / .merge / .pushRemote, remote.pushDefault, remote.<name>.fetch and
// .push refspecs (globs with one '*'), remote.<name>.mirror and push.default.
//
// Negative refspecs ("^refs/...") are ignored, and a remote configured only through the old
// $GIT_DIR/remotes or $GIT_DIR/branches files is not seen.
#ifndef REFTAB_STORE_GIT_UPSTREAM_H_
#define REFTAB_STORE_GIT_UPSTREAM_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/config/config.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class GitUpstreams {
 public:
  // Whether a full ref name exists (RefExists over a GitRefStore); errors are I/O or
  // corruption errors, handed back by Upstream and Push.
  using RefExistsFn = std::function<Status(const std::string& refname, bool* exists)>;

  // `ref_exists` is consulted only to expand a short branch.<name>.merge of a branch whose
  // remote is "." (by git's rev-parse rules, ExpandRefname).
  GitUpstreams(const GitConfig& config, RefExistsFn ref_exists);

  // The ref `branch` ("main" for refs/heads/main) merges from: the remote-tracking ref its
  // branch.<name>.merge maps to through the remote's fetch refspecs, or for remote "." the
  // local ref itself. nullopt when there is none; `why` (optional) then gets git's reason,
  // the message `git rev-parse branch@{upstream}` dies with ("no upstream configured for
  // branch 'main'", "no such branch: 'x'", "upstream branch 'refs/heads/y' not stored as a
  // remote-tracking branch").
  Status Upstream(std::string_view branch, std::optional<std::string>* out,
                  std::string* why = nullptr) const;
  // The remote-tracking ref of where `git push` would push `branch`, as @{push}; `why` as for
  // Upstream ("push destination 'refs/heads/main' on remote 'origin' has no local tracking
  // branch", "push has no destination (push.default is 'nothing')", ...).
  Status Push(std::string_view branch, std::optional<std::string>* out,
              std::string* why = nullptr) const;
  // The remote `git fetch` / `git push` use for `branch`; *explicit_ is false when it is only
  // the default ("origin", or the single configured remote).
  std::string RemoteFor(std::string_view branch, bool* explicit_) const;
  std::string PushRemoteFor(std::string_view branch, bool* explicit_) const;
  // The name on the remote: branch.<name>.merge (fetch) or the push refspec's destination.
  std::optional<std::string> RemoteRef(std::string_view branch, bool for_push) const;

 private:
  struct Refspec {
    std::string src, dst;
    bool pattern = false;
  };
  std::vector<Refspec> Refspecs(const std::string& remote, const char* var) const;
  static std::optional<std::string> Apply(const std::vector<Refspec>& specs, std::string_view name);
  std::optional<std::string> TrackingForPushDest(const std::string& remote, std::string_view ref,
                                                 std::string* why) const;
  std::optional<std::string> BranchValue(std::string_view branch, const char* var) const;

  const GitConfig& config_;
  RefExistsFn ref_exists_;
  std::vector<std::string> remotes_;  // configured remote names, in order of appearance
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_UPSTREAM_H_
