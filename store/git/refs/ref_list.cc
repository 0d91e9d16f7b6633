#include "store/git/refs/ref_list.h"

#include <string>
#include <vector>

#include "store/git/objects/objects.h"
#include "store/git/refs/ref_dwim.h"
#include "store/git/refs/ref_store.h"
#include "store/git/refs/refname.h"
#include "store/git/worktrees.h"

namespace reftab {
namespace {

// The id a listed record stands for. `ok` false: git counts the ref as broken (a symref that
// does not resolve, a null id, a name that is not well formed: its id is then null).
// `symref`: the record is one.
Status ResolveListed(GitRefStore& store, const RefRecord& rec, GitListedRef* out, bool* ok,
                     bool* symref) {
  *ok = true;
  *symref = rec.value_type == RefValueType::kSymref;
  if (*symref) {
    ResolvedRef r;
    REFTAB_RETURN_IF_ERROR(ResolveRefAsGit(store, rec.refname, kResolveReading, &r));
    *ok = r.resolved;
    out->id = r.id;
    // git peels a symref's id through the object database, which gives what the target
    // stores; the stored value also serves where no database can be read.
    out->peeled = r.peeled;
    out->symref_target = &rec.target;
  } else {
    out->id = rec.value;
    if (rec.value_type == RefValueType::kVal2) out->peeled = rec.peeled;
  }
  if (out->id == ObjectId{}) *ok = false;
  const ListedRefname judged = JudgeListedRefname(rec.refname);
  if (judged != ListedRefname::kGood) {
    if (judged == ListedRefname::kDangerous) {
      return Status::Corruption("refname is dangerous: " + rec.refname);
    }
    *ok = false;
    out->id = ObjectId{};
    out->peeled.reset();
  }
  return Status::Ok();
}

}  // namespace

Status ObjectExists(GitRefStore& store, const ObjectId& id, bool* exists) {
  *exists = true;
  if (!store.objects()) return Status::Ok();
  return store.objects()->Has(id, exists);
}

Status ForEachGitRef(GitRefStore& store, std::string_view prefix, const GitListCallbacks& cb) {
  Status inner;
  Status s = store.ForEachRef(prefix, [&](const RefRecord& rec) {
    if (rec.refname.compare(0, 5, "refs/") != 0) return true;
    GitListedRef ref;
    ref.name = &rec.refname;
    bool ok = false, symref = false;
    inner = ResolveListed(store, rec, &ref, &ok, &symref);
    if (!inner.ok()) return false;
    if (cb.include_broken) {
      // git's default: a broken ref is listed, unless it is a symref (a dangling one).
      return (ok || !symref) ? cb.ref(ref) : true;
    }
    if (!ok) return true;
    bool exists = true;
    inner = ObjectExists(store, ref.id, &exists);
    if (!inner.ok()) return false;
    if (!exists) {
      if (cb.error) cb.error(rec.refname + " does not point to a valid object!");
      return true;
    }
    return cb.ref(ref);
  });
  return inner.ok() ? s : inner;
}

Status ForEachRevisionAllRef(GitRefStore& store, const GitListCallbacks& cb) {
  bool go_on = true;
  GitListCallbacks listing = cb;
  listing.ref = [&](const GitListedRef& ref) { return go_on = cb.ref(ref); };
  REFTAB_RETURN_IF_ERROR(ForEachGitRef(store, "refs/", listing));
  std::vector<std::string> heads{"HEAD"};
  if (GitRepo* repo = store.repo()) {
    std::vector<GitWorktree> worktrees;
    REFTAB_RETURN_IF_ERROR(ListGitWorktrees(repo->common_dir(), repo->git_dir(), &worktrees));
    for (const GitWorktree& wt : worktrees) {
      if (wt.current) continue;
      heads.push_back(wt.id.empty() ? "main-worktree/HEAD" : "worktrees/" + wt.id + "/HEAD");
    }
  }
  for (const std::string& head : heads) {
    if (!go_on) break;
    ResolvedRef r;
    REFTAB_RETURN_IF_ERROR(ResolveRefAsGit(store, head, kResolveReading, &r));
    if (!r.resolved) continue;
    GitListedRef ref;
    ref.name = &head;
    ref.id = r.id;
    ref.peeled = r.peeled;
    go_on = cb.ref(ref);
  }
  return Status::Ok();
}

Status PeeledId(GitRefStore& store, const GitListedRef& ref, std::optional<ObjectId>* peeled) {
  *peeled = ref.peeled;
  if (peeled->has_value() || !store.objects()) {
    return Status::Ok();
  }
  GitObjectType type = GitObjectType::kNone;
  REFTAB_RETURN_IF_ERROR(store.objects()->TypeOf(ref.id, &type));
  if (type != GitObjectType::kTag) return Status::Ok();
  ObjectId id{};
  bool ok = false;
  REFTAB_RETURN_IF_ERROR(store.objects()->Peel(ref.id, &id, &ok));
  if (ok) *peeled = id;
  return Status::Ok();
}

}  // namespace reftab
