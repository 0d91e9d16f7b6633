#include "store/git/upstream.h"

#include <algorithm>

#include "store/git/refs/ref_dwim.h"

namespace reftab {
namespace {

// Sets git's reason for a missing upstream or push destination, when the caller wants it.
void Why(std::string* why, std::string text) {
  if (why) *why = std::move(text);
}

}  // namespace

GitUpstreams::GitUpstreams(const GitConfig& config, RefExistsFn ref_exists)
    : config_(config), ref_exists_(std::move(ref_exists)) {
  for (const ConfigEntry& e : config.entries()) {
    if (!std::string_view(e.key).starts_with("remote.")) continue;
    size_t dot = e.key.rfind('.');
    if (dot <= 7) continue;  // remote.pushdefault: no subsection
    std::string name = e.key.substr(7, dot - 7);
    if (std::find(remotes_.begin(), remotes_.end(), name) == remotes_.end()) {
      remotes_.push_back(name);
    }
  }
}

std::optional<std::string> GitUpstreams::BranchValue(std::string_view branch,
                                                     const char* var) const {
  return config_.Get("branch." + std::string(branch) + "." + var);
}

std::string GitUpstreams::RemoteFor(std::string_view branch, bool* explicit_) const {
  std::optional<std::string> r = BranchValue(branch, "remote");
  *explicit_ = r.has_value();
  if (r) return *r;
  return remotes_.size() == 1 ? remotes_[0] : "origin";
}

std::string GitUpstreams::PushRemoteFor(std::string_view branch, bool* explicit_) const {
  std::optional<std::string> r = BranchValue(branch, "pushremote");
  if (!r) r = config_.Get("remote.pushdefault");
  if (r) {
    *explicit_ = true;
    return *r;
  }
  return RemoteFor(branch, explicit_);
}

std::vector<GitUpstreams::Refspec> GitUpstreams::Refspecs(const std::string& remote,
                                                          const char* var) const {
  std::vector<Refspec> out;
  for (const ConfigEntry* e : config_.All("remote." + remote + "." + var)) {
    if (!e->value) continue;
    std::string_view v = *e->value;
    if (!v.empty() && v[0] == '+') v.remove_prefix(1);
    if (!v.empty() && v[0] == '^') continue;  // negative refspecs: not modelled
    Refspec r;
    size_t colon = v.find(':');
    r.src = std::string(v.substr(0, colon));
    r.dst = colon == std::string_view::npos ? r.src : std::string(v.substr(colon + 1));
    r.pattern = r.src.find('*') != std::string::npos;
    out.push_back(std::move(r));
  }
  return out;
}

// The destination the first matching refspec gives `name` (a '*' matches any run of bytes).
std::optional<std::string> GitUpstreams::Apply(const std::vector<Refspec>& specs,
                                               std::string_view name) {
  for (const Refspec& r : specs) {
    if (!r.pattern) {
      if (r.src == name) return r.dst;
      continue;
    }
    size_t star = r.src.find('*');
    std::string_view pre = std::string_view(r.src).substr(0, star);
    std::string_view post = std::string_view(r.src).substr(star + 1);
    if (name.size() < pre.size() + post.size() || !name.starts_with(pre) ||
        name.substr(name.size() - post.size()) != post) {
      continue;
    }
    std::string_view middle = name.substr(pre.size(), name.size() - pre.size() - post.size());
    size_t dstar = r.dst.find('*');
    if (dstar == std::string::npos) return r.dst;
    return r.dst.substr(0, dstar) + std::string(middle) + r.dst.substr(dstar + 1);
  }
  return std::nullopt;
}

Status GitUpstreams::Upstream(std::string_view branch, std::optional<std::string>* out,
                              std::string* why) const {
  *out = std::nullopt;
  std::optional<std::string> remote = BranchValue(branch, "remote");
  std::vector<const ConfigEntry*> merges = config_.All("branch." + std::string(branch) + ".merge");
  if (!remote || merges.empty() || !merges[0]->value) {
    // git cannot tell a branch without configuration from one that does not exist.
    bool exists = false;
    REFTAB_RETURN_IF_ERROR(ref_exists_("refs/heads/" + std::string(branch), &exists));
    Why(why, exists ? "no upstream configured for branch '" + std::string(branch) + "'"
                    : "no such branch: '" + std::string(branch) + "'");
    return Status::Ok();
  }
  const std::string& src = *merges[0]->value;
  if (std::optional<std::string> dst = Apply(Refspecs(*remote, "fetch"), src)) {
    *out = std::move(dst);
    return Status::Ok();
  }
  if (*remote != ".") {
    Why(why, "upstream branch '" + src + "' not stored as a remote-tracking branch");
    return Status::Ok();
  }
  // A local upstream: the ref the name stands for when exactly one rule finds one.
  std::string found;
  int count = 0;
  for (std::string& candidate : ExpandRefname(src)) {
    bool exists = false;
    REFTAB_RETURN_IF_ERROR(ref_exists_(candidate, &exists));
    if (exists && count++ == 0) found = std::move(candidate);
  }
  *out = count == 1 ? found : src;
  return Status::Ok();
}

std::optional<std::string> GitUpstreams::TrackingForPushDest(const std::string& remote,
                                                             std::string_view ref,
                                                             std::string* why) const {
  std::optional<std::string> out = Apply(Refspecs(remote, "fetch"), ref);
  if (!out) {
    Why(why, "push destination '" + std::string(ref) + "' on remote '" + remote +
                 "' has no local tracking branch");
  }
  return out;
}

Status GitUpstreams::Push(std::string_view branch, std::optional<std::string>* out,
                          std::string* why) const {
  *out = std::nullopt;
  bool explicit_ = false;
  std::string remote = PushRemoteFor(branch, &explicit_);
  std::string refname = "refs/heads/" + std::string(branch);
  std::vector<Refspec> push = Refspecs(remote, "push");
  if (!push.empty()) {
    std::optional<std::string> dst = Apply(push, refname);
    if (dst) {
      *out = TrackingForPushDest(remote, *dst, why);
    } else {
      Why(why, "push refspecs for '" + remote + "' do not include '" + std::string(branch) + "'");
    }
    return Status::Ok();
  }
  if (config_.GetBool("remote." + remote + ".mirror", false)) {
    *out = TrackingForPushDest(remote, refname, why);
    return Status::Ok();
  }
  std::string mode = config_.Get("push.default").value_or("simple");
  if (mode == "nothing") {
    Why(why, "push has no destination (push.default is 'nothing')");
    return Status::Ok();
  }
  if (mode == "matching" || mode == "current") {
    *out = TrackingForPushDest(remote, refname, why);
    return Status::Ok();
  }
  if (mode == "upstream" || mode == "tracking") return Upstream(branch, out, why);
  std::optional<std::string> up;
  REFTAB_RETURN_IF_ERROR(Upstream(branch, &up, why));
  if (!up) return Status::Ok();
  std::optional<std::string> cur = TrackingForPushDest(remote, refname, why);
  if (!cur) return Status::Ok();
  if (*cur == *up) {
    *out = std::move(cur);
  } else {
    Why(why, "cannot resolve 'simple' push to a single destination");
  }
  return Status::Ok();
}

std::optional<std::string> GitUpstreams::RemoteRef(std::string_view branch, bool for_push) const {
  if (!for_push) {
    std::optional<std::string> remote = BranchValue(branch, "remote");
    std::vector<const ConfigEntry*> merges =
        config_.All("branch." + std::string(branch) + ".merge");
    if (!remote || merges.empty() || !merges[0]->value) return std::nullopt;
    return *merges[0]->value;
  }
  bool explicit_ = false;
  std::string remote = PushRemoteFor(branch, &explicit_);
  std::vector<Refspec> push = Refspecs(remote, "push");
  if (push.empty()) return std::nullopt;
  return Apply(push, "refs/heads/" + std::string(branch));
}

}  // namespace reftab
