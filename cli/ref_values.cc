// Atom values that come from the ref, the config and the ref store; the object part is in
// ref_object_values.cc.
#include "cli/ref_values.h"

#include <climits>

#include "cli/ref_objects.h"
#include "store/git/refs/ref_dwim.h"
#include "store/git/worktrees.h"

namespace reftab::cli {
namespace {

// git's count of components to strip: a negative N leaves |N| components.
int ComponentCount(std::string_view name, int n) {
  if (n >= 0) return n;
  int slashes = 0;
  for (char c : name) slashes += c == '/';
  return slashes + n + 1;
}

std::string Lstrip(std::string_view name, int n) {
  int remaining = ComponentCount(name, n);
  size_t i = 0;
  while (remaining > 0) {
    if (i == name.size()) return "";
    if (name[i++] == '/') --remaining;
  }
  return std::string(name.substr(i));
}

std::string Rstrip(std::string_view name, int n) {
  int remaining = ComponentCount(name, n);
  size_t end = name.size();
  while (remaining > 0) {
    if (end == 0) return "";
    if (name[--end] == '/') --remaining;
  }
  return std::string(name.substr(0, end));
}

}  // namespace

RefValues::RefValues(GitRefStore& store, int core_abbrev)
    : store_(store),
      hash_size_(store.hash_size()),
      abbrev_(store.objects(), store.hash_size(), core_abbrev),
      upstreams_(store.config(), [&store](const std::string& name, bool* exists) {
        return RefExists(store, name, exists);
      }) {}

// git's %(refname:short) is strict exactly when core.warnAmbiguousRefs is on (the default).
Status RefValues::ShortName(const std::string& refname, std::string* out) {
  std::string short_name;
  REFTAB_RETURN_IF_ERROR(ShortenRefname(store_, refname, WarnAmbiguousRefs(store_), &short_name));
  out->append(short_name);
  return Status::Ok();
}

Status RefValues::ShowRef(const UsedAtom& a, const std::string& name, std::string* out) {
  switch (a.refname) {
    case RefnameOption::kShort: return ShortName(name, out);
    case RefnameOption::kLstrip: out->append(Lstrip(name, a.strip)); break;
    case RefnameOption::kRstrip: out->append(Rstrip(name, a.strip)); break;
    case RefnameOption::kNormal: out->append(name); break;
  }
  return Status::Ok();
}

Status RefValues::Objects(const char* atom, GitObjects** objects) {
  std::string why = "the repository has no object database";
  *objects = store_.objects();
  if (*objects && ObjectsAvailable(**objects, &why)) return Status::Ok();
  return Status::InvalidArgument(std::string("%(") + atom + ") needs the object database: " + why);
}

Status RefValues::Abbrev(const ObjectId& id, const UsedAtom& a, std::string* out) {
  if (a.oid == OidOption::kFull) {
    out->append(HexId(id, hash_size_));
    return Status::Ok();
  }
  GitObjects* objects = nullptr;
  if (!store_.objects()) return Objects(a.name.c_str(), &objects);  // says why there is none
  std::string hex;
  const int length = a.oid == OidOption::kShort         ? kAbbrevDefault
                     : a.oid_length > unsigned(INT_MAX) ? INT_MAX
                                                        : int(a.oid_length);
  Status s = abbrev_.Abbreviate(id, length, &hex);
  if (!s.ok()) {
    // The whole id needs no database; a shorter one does, and an unavailable one is named.
    REFTAB_RETURN_IF_ERROR(Objects(a.name.c_str(), &objects));
    return s;
  }
  out->append(hex);
  return Status::Ok();
}

// The commit a ref finally names (tags peeled), or nullopt: git's "gone" upstream.
Status RefValues::Track(const UsedAtom& a, const std::string& branch, const std::string& base,
                        std::string* out) {
  GitObjects* objects = nullptr;
  REFTAB_RETURN_IF_ERROR(Objects(a.name.c_str(), &objects));
  auto commit_of = [&](const std::string& name, ObjectId* id, bool* ok) -> Status {
    ResolvedRef r;
    REFTAB_RETURN_IF_ERROR(store_.Resolve(name, &r));
    *ok = r.exists && !r.broken;
    if (!*ok) return Status::Ok();
    REFTAB_RETURN_IF_ERROR(objects->Peel(r.id, id, ok));
    GitObjectType type = GitObjectType::kNone;
    if (*ok) REFTAB_RETURN_IF_ERROR(objects->TypeOf(*id, &type));
    *ok = *ok && type == GitObjectType::kCommit;
    return Status::Ok();
  };
  ObjectId theirs{}, ours{};
  bool ok_theirs = false, ok_ours = false;
  REFTAB_RETURN_IF_ERROR(commit_of(base, &theirs, &ok_theirs));
  if (ok_theirs) REFTAB_RETURN_IF_ERROR(commit_of(branch, &ours, &ok_ours));
  bool short_form = a.remote == RemoteOption::kTrackShort;
  if (!ok_theirs || !ok_ours) {
    if (!short_form) out->append(a.nobracket ? "gone" : "[gone]");
    return Status::Ok();
  }
  size_t ahead = 0, behind = 0;
  if (ours != theirs)
    REFTAB_RETURN_IF_ERROR(CountAheadBehind(*objects, ours, theirs, &ahead, &behind));
  if (short_form) {
    out->append(ahead && behind ? "<>" : ahead ? ">" : behind ? "<" : "=");
    return Status::Ok();
  }
  std::string s;
  if (ahead && behind) {
    s = "ahead " + std::to_string(ahead) + ", behind " + std::to_string(behind);
  } else if (ahead) {
    s = "ahead " + std::to_string(ahead);
  } else if (behind) {
    s = "behind " + std::to_string(behind);
  }
  if (!s.empty() && !a.nobracket) {
    out->push_back('[');
    out->append(s).push_back(']');
  } else {
    out->append(s);
  }
  return Status::Ok();
}

Status RefValues::RemoteAtom(const UsedAtom& a, const RefItem& ref, AtomValue* v) {
  if (!ref.refname.starts_with("refs/heads/")) return Status::Ok();  // only branches
  std::string branch = ref.refname.substr(11);
  bool by_remote = a.remote == RemoteOption::kRemoteName || a.remote == RemoteOption::kRemoteRef;
  std::optional<std::string> target;
  if (!a.push) {
    REFTAB_RETURN_IF_ERROR(upstreams_.Upstream(branch, &target));
    if (!target) return Status::Ok();
  } else if (!by_remote) {
    REFTAB_RETURN_IF_ERROR(upstreams_.Push(branch, &target));
    if (!target) return Status::Ok();
  }
  switch (a.remote) {
    case RemoteOption::kRef: return ShowRef(a, *target, &v->s);
    case RemoteOption::kTrack:
    case RemoteOption::kTrackShort: return Track(a, ref.refname, *target, &v->s);
    case RemoteOption::kRemoteName: {
      bool explicit_ = false;
      std::string remote = a.push ? upstreams_.PushRemoteFor(branch, &explicit_)
                                  : upstreams_.RemoteFor(branch, &explicit_);
      if (explicit_) v->s = remote;
      return Status::Ok();
    }
    case RemoteOption::kRemoteRef:
      v->s = upstreams_.RemoteRef(branch, a.push).value_or("");
      return Status::Ok();
  }
  return Status::Ok();
}

Status RefValues::WorktreePath(const std::string& refname, std::string* out) {
  if (!worktrees_ && store_.repo()) {
    worktrees_.emplace();
    REFTAB_RETURN_IF_ERROR(ListWorktreeHeads(store_.repo()->common_dir(), &*worktrees_));
  }
  if (!worktrees_) return Status::Ok();
  for (const GitWorktreeHead& w : *worktrees_) {
    if (w.head_ref == refname) {
      out->append(w.path);
      break;
    }
  }
  return Status::Ok();
}

// The atoms that need no object; *done is false for the others.
Status RefValues::RefAtom(const UsedAtom& a, const RefItem& ref, AtomValue* v, bool* done) {
  *done = true;
  switch (a.kind) {
    case AtomKind::kRefname:
    case AtomKind::kSymref: {
      if (a.kind == AtomKind::kRefname || ref.is_symref) {
        REFTAB_RETURN_IF_ERROR(
            ShowRef(a, a.kind == AtomKind::kRefname ? ref.refname : ref.symref, &v->s));
      }
      if (a.deref) v->s.append("^{}");
      return Status::Ok();
    }
    case AtomKind::kUpstream:
    case AtomKind::kPush:
      // git knows "*push" as push by its name only without the '*': it then gets no value,
      // and git says the ref's object is missing.
      if (a.kind == AtomKind::kPush && a.deref) {
        return Status::InvalidArgument("missing object " + HexId(ref.oid, hash_size_) + " for " +
                                       ref.refname);
      }
      return RemoteAtom(a, ref, v);
    case AtomKind::kColor: v->s = a.color; return Status::Ok();
    case AtomKind::kFlag: v->s = ref.is_symref ? "symref" : ""; return Status::Ok();
    case AtomKind::kHead:
      if (!head_) {
        ResolvedRef r;
        REFTAB_RETURN_IF_ERROR(store_.Resolve("HEAD", &r));
        head_ = r.exists && !r.broken ? r.name : std::string();
      }
      v->s.assign(1, !head_->empty() && *head_ == ref.refname ? '*' : ' ');
      return Status::Ok();
    case AtomKind::kObjectname:
      if (a.deref) break;
      return Abbrev(ref.oid, a, &v->s);
    case AtomKind::kWorktreepath:
      if (ref.refname.starts_with("refs/heads/")) return WorktreePath(ref.refname, &v->s);
      return Status::Ok();
    case AtomKind::kAlign:
    case AtomKind::kEnd:
    case AtomKind::kIf:
    case AtomKind::kThen:
    case AtomKind::kElse:
    case AtomKind::kRest: return Status::Ok();
    default: break;
  }
  *done = false;
  return Status::Ok();
}

}  // namespace reftab::cli
