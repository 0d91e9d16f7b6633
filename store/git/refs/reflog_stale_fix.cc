#include "store/git/refs/reflog_stale_fix.h"

#include <string_view>
#include <vector>

#include "store/file.h"
#include "store/git/refs/ref_list.h"
#include "store/git/worktrees.h"

namespace reftab {
namespace {

// Trusts what `id` reaches; `name` is what git's fatal message calls it when it cannot read it.
Status TrustNamed(GitCompleteHistory& history, const ObjectId& id, const std::string& name) {
  bool readable = false;
  REFTAB_RETURN_IF_ERROR(history.Trust(id, &readable));
  if (!readable) return Status::NotFound("unable to parse object: " + name);
  return Status::Ok();
}

// An id a rebase in progress keeps in `path`, read as git reads it: the whole file, one
// trailing newline (and a carriage return before it) dropped, then trimmed of whitespace; it
// must start with an id in hex (what follows is ignored), else the file is passed by. Git's
// message names the object by the file's text.
Status TrustRebaseFile(GitCompleteHistory& history, const std::string& path, size_t hash_size) {
  Result<std::string> text = PosixFileSystem()->ReadFile(path);
  if (!text.ok()) return Status::Ok();
  std::string_view s = *text;
  if (s.ends_with('\n')) s.remove_suffix(1);
  if (s.ends_with('\r')) s.remove_suffix(1);
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const size_t start = s.find_first_not_of(kSpace);
  if (start == std::string_view::npos) return Status::Ok();
  s = s.substr(start, s.find_last_not_of(kSpace) - start + 1);
  ObjectId id{};
  if (s.size() < 2 * hash_size || !ParseHexId(s.substr(0, 2 * hash_size), hash_size, &id)) {
    return Status::Ok();
  }
  return TrustNamed(history, id, std::string(s));
}

}  // namespace

Result<std::unique_ptr<GitCompleteHistory>> TrustReachableFromRefs(
    GitRefStore& store, bool ref_paranoia, const std::function<void(const std::string&)>& error) {
  GitObjects* objects = store.objects();
  GitRepo* repo = store.repo();
  if (!repo || !objects || !objects->available()) {
    return Status::InvalidArgument("--stale-fix needs the object database (" +
                                   std::string(objects ? objects->reason() : "there is none here") +
                                   ")");
  }
  const size_t hs = store.hash_size();
  auto history = std::make_unique<GitCompleteHistory>(objects, hs);

  // What git's --all starts from, then the objects a rebase in progress keeps.
  GitListCallbacks cb;
  cb.include_broken = ref_paranoia;
  cb.error = error;
  Status inner;
  cb.ref = [&](const GitListedRef& ref) {
    inner = TrustNamed(*history, ref.id, *ref.name);
    return inner.ok();
  };
  REFTAB_RETURN_IF_ERROR(ForEachRevisionAllRef(store, cb));
  REFTAB_RETURN_IF_ERROR(inner);
  std::vector<GitWorktree> worktrees;
  REFTAB_RETURN_IF_ERROR(ListGitWorktrees(repo->common_dir(), repo->git_dir(), &worktrees));
  for (const GitWorktree& wt : worktrees) {
    for (const char* file : {"rebase-apply/autostash", "rebase-apply/orig-head",
                             "rebase-merge/autostash", "rebase-merge/orig-head"}) {
      REFTAB_RETURN_IF_ERROR(TrustRebaseFile(*history, wt.git_dir + "/" + file, hs));
    }
  }
  return history;
}

}  // namespace reftab
