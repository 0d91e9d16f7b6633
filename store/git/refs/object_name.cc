#include "store/git/refs/object_name.h"

#include <climits>
#include <cstdint>
#include <string>

#include "store/git/date.h"
#include "store/git/date_format.h"
#include "store/git/objects/abbrev.h"
#include "store/git/objects/commit_search.h"
#include "store/git/objects/object_parse.h"
#include "store/git/objects/short_id.h"
#include "store/git/refs/branch_name.h"
#include "store/git/refs/ref_list.h"
#include "store/git/refs/ref_store.h"
#include "store/git/refs/reflog.h"
#include "store/git/refs/reflog_at.h"
#include "store/git/refs/refname.h"

namespace reftab {
namespace {

// How one part of a name is looked up: git's lookup flags.
struct Flags {
  bool quiet = false;
  bool skip_full_id_check = false;
  ObjectKindHint hint = ObjectKindHint::kAny;  // what an ambiguous short id prefers
};

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// git's ambiguous_path: a name with an empty path component or one made only of dots (a
// leading or doubled '/', "a/./b", "..").
bool AmbiguousPath(std::string_view s) {
  bool slash = true;
  for (char c : s) {
    if (c == '/') {
      if (slash) return true;
      slash = true;
    } else if (c != '.') {
      slash = false;
    }
  }
  return slash;
}

// git's check that what comes before "-g<hex>" in describe output is "<ref>-<count>".
bool DescribeBaseValid(std::string_view s) {
  if (s.empty() || !IsHexDigit(s.back())) return false;
  size_t i = s.size() - 1;
  while (i > 0 && s[i - 1] != '-') {
    if (!IsHexDigit(s[i - 1])) return false;
    --i;
  }
  if (i == 0) return false;
  return IsValidRefname(s.substr(0, i - 1), kRefnameAllowOneLevel);
}

// The commits :/<regex> starts from, in git's order: HEAD, then the refs under refs/ last to
// first (git prepends each to its list); a tag counts as what it peels to, and anything that
// is not a commit in the end is left out.
Status CommitsOfRefs(GitRefStore& store, GitObjects& objects, std::vector<ObjectId>* tips) {
  std::vector<ObjectId> ids;
  GitListCallbacks cb;
  cb.ref = [&ids](const GitListedRef& r) {
    ids.push_back(r.id);
    return true;
  };
  REFTAB_RETURN_IF_ERROR(ForEachGitRef(store, "refs/", cb));
  ResolvedRef head;
  REFTAB_RETURN_IF_ERROR(ResolveRefAsGit(store, "HEAD", kResolveReading, &head));
  if (head.resolved) ids.push_back(head.id);
  for (size_t i = ids.size(); i-- > 0;) {
    ObjectId peeled{};
    bool ok = false;
    REFTAB_RETURN_IF_ERROR(objects.Peel(ids[i], &peeled, &ok));
    GitObjectType type = GitObjectType::kNone;
    if (ok) REFTAB_RETURN_IF_ERROR(objects.TypeOf(peeled, &type));
    if (type == GitObjectType::kCommit) tips->push_back(peeled);
  }
  return Status::Ok();
}

class Resolver {
 public:
  Resolver(GitRefStore& store, ObjectNameResult* out) : store_(store), out_(out) {}

  // git's get_oid_1: `name` read from its end (suffixes first).
  Status Get1(std::string_view name, Flags flags, ObjectId* id, bool* found);
  // git's :/<regex>, after Get1 failed on the whole name.
  Status OnelineFromRefs(std::string_view regex, ObjectId* id, bool* found);

 private:
  Status Objects(GitObjects** objects);
  Status Parent(std::string_view base, unsigned n, ObjectId* id, bool* found);
  Status Ancestor(std::string_view base, unsigned n, ObjectId* id, bool* found);
  Status PeelToCommit(ObjectId* id, GitCommit* commit, bool* ok);
  Status PeelOnion(std::string_view name, Flags flags, ObjectId* id, bool* found);
  Status PeelToType(std::string_view name, GitObjectType want, ObjectId* id, bool* ok);
  Status Basic(std::string_view name, Flags flags, ObjectId* id, bool* found);
  Status AtReflog(std::string_view base, std::string_view selector, const std::string& refname,
                  Flags flags, ObjectId* id, bool* found);
  Status ShortId(std::string_view hex, Flags flags, ObjectId* id, bool* found);
  Status Die(std::string message, bool quiet) {
    out_->dies = true;
    if (!quiet) out_->fatal = std::move(message);
    return Status::Ok();
  }

  GitRefStore& store_;
  ObjectNameResult* out_;
};

Status Resolver::Objects(GitObjects** objects) {
  *objects = store_.objects();
  if (*objects && (*objects)->available()) return Status::Ok();
  return Status::InvalidArgument(
      "this revision needs the object database (" +
      std::string(*objects ? (*objects)->reason() : "no object database here") + ")");
}

Status Resolver::PeelToCommit(ObjectId* id, GitCommit* commit, bool* ok) {
  GitObjects* objects = nullptr;
  REFTAB_RETURN_IF_ERROR(Objects(&objects));
  REFTAB_RETURN_IF_ERROR(objects->Peel(*id, id, ok));
  if (!*ok) return Status::Ok();
  GitObjectType type = GitObjectType::kNone;
  std::string content;
  REFTAB_RETURN_IF_ERROR(objects->Read(*id, &type, &content));
  *ok = type == GitObjectType::kCommit;
  if (!*ok) return Status::Ok();
  return ParseCommit(content, store_.hash_size(), commit);
}

Status Resolver::Parent(std::string_view base, unsigned n, ObjectId* id, bool* found) {
  REFTAB_RETURN_IF_ERROR(Get1(base, Flags{false, false, ObjectKindHint::kCommittish}, id, found));
  if (!*found || out_->dies) return Status::Ok();
  GitCommit commit;
  REFTAB_RETURN_IF_ERROR(PeelToCommit(id, &commit, found));
  if (!*found || n == 0) return Status::Ok();
  *found = n <= commit.parents.size();
  if (*found) *id = commit.parents[n - 1];
  return Status::Ok();
}

Status Resolver::Ancestor(std::string_view base, unsigned n, ObjectId* id, bool* found) {
  REFTAB_RETURN_IF_ERROR(Get1(base, Flags{false, false, ObjectKindHint::kCommittish}, id, found));
  if (!*found || out_->dies) return Status::Ok();
  GitCommit commit;
  REFTAB_RETURN_IF_ERROR(PeelToCommit(id, &commit, found));
  // Every commit on the way must be readable, but not the last: its id is the answer.
  for (unsigned k = 0; *found && k < n; ++k) {
    *found = !commit.parents.empty();
    if (!*found) break;
    *id = commit.parents[0];
    if (k + 1 < n) REFTAB_RETURN_IF_ERROR(PeelToCommit(id, &commit, found));
  }
  return Status::Ok();
}

// git's peel_to_type: tags followed, a commit taken to its tree, until an object of type
// `want`; another type ends it with git's error line.
Status Resolver::PeelToType(std::string_view name, GitObjectType want, ObjectId* id, bool* ok) {
  GitObjects* objects = nullptr;
  REFTAB_RETURN_IF_ERROR(Objects(&objects));
  const size_t hs = store_.hash_size();
  for (int depth = 0; depth < 64; ++depth) {
    GitObjectType type = GitObjectType::kNone;
    std::string content;
    REFTAB_RETURN_IF_ERROR(objects->Read(*id, &type, &content));
    if (type == GitObjectType::kNone) return *ok = false, Status::Ok();  // missing
    if (type == want) return *ok = true, Status::Ok();
    if (type == GitObjectType::kTag) {
      GitTag tag;
      REFTAB_RETURN_IF_ERROR(ParseTag(content, hs, &tag));
      *id = tag.object;
    } else if (type == GitObjectType::kCommit) {
      GitCommit commit;
      REFTAB_RETURN_IF_ERROR(ParseCommit(content, hs, &commit));
      *id = commit.tree;
    } else {
      out_->errors.push_back(std::string(name) + ": expected " + GitObjectTypeName(want) +
                             " type, but the object dereferences to " + GitObjectTypeName(type) +
                             " type");
      return *ok = false, Status::Ok();
    }
  }
  return *ok = false, Status::Ok();  // a chain of tags too long to be real
}

// git's peel_onion: "<rev>^{<what>}". *found false (nothing printed) when the name is not of
// that form.
Status Resolver::PeelOnion(std::string_view name, Flags flags, ObjectId* id, bool* found) {
  *found = false;
  if (name.size() < 4 || name.back() != '}') return Status::Ok();
  size_t open = name.size() - 1;  // the last "^{"
  while (open > 0 && !(name[open] == '{' && name[open - 1] == '^')) --open;
  if (open == 0) return Status::Ok();
  // As git, the kind is recognised by how what follows "^{" starts.
  const std::string_view rest = name.substr(open + 1);
  GitObjectType want = GitObjectType::kNone;
  bool any = false, search = false;
  if (rest.starts_with("commit}")) {
    want = GitObjectType::kCommit;
  } else if (rest.starts_with("tag}")) {
    want = GitObjectType::kTag;
  } else if (rest.starts_with("tree}")) {
    want = GitObjectType::kTree;
  } else if (rest.starts_with("blob}")) {
    want = GitObjectType::kBlob;
  } else if (rest.starts_with("object}")) {
    any = true;
  } else if (rest[0] == '/') {
    search = true;
    want = GitObjectType::kCommit;
  } else if (rest[0] != '}') {
    return Status::Ok();
  }
  Flags inner{flags.quiet, flags.skip_full_id_check, ObjectKindHint::kAny};
  if (want == GitObjectType::kCommit) inner.hint = ObjectKindHint::kCommittish;
  if (want == GitObjectType::kTree) inner.hint = ObjectKindHint::kTreeish;
  REFTAB_RETURN_IF_ERROR(Get1(name.substr(0, open - 1), inner, id, found));
  if (!*found || out_->dies) return Status::Ok();
  GitObjects* objects = nullptr;
  REFTAB_RETURN_IF_ERROR(Objects(&objects));
  REFTAB_RETURN_IF_ERROR(objects->Has(*id, found));
  if (!*found || any) return Status::Ok();
  if (rest[0] == '}') return objects->Peel(*id, id, found);
  REFTAB_RETURN_IF_ERROR(PeelToType(name, want, id, found));
  if (!*found || !search || rest == "/}") return Status::Ok();
  std::vector<ObjectId> start = {*id};
  return FindCommitByMessage(*objects, store_.hash_size(), rest.substr(1, rest.size() - 2), start,
                             id, found);
}

Status Resolver::ShortId(std::string_view hex, Flags flags, ObjectId* id, bool* found) {
  *found = false;
  if (hex.size() < size_t(kMinimumAbbrev) || hex.size() > 2 * kMaxHashSize) return Status::Ok();
  for (char c : hex) {
    if (!IsHexDigit(c)) return Status::Ok();
  }
  GitObjects* objects = nullptr;
  REFTAB_RETURN_IF_ERROR(Objects(&objects));
  std::string abbrev_error;
  Result<int> core_abbrev = ReadCoreAbbrev(store_.config(), &abbrev_error);
  ObjectKindHint hint = flags.hint;
  if (hint == ObjectKindHint::kAny) hint = ReadCoreDisambiguate(store_.config());
  ShortIdResult r;
  REFTAB_RETURN_IF_ERROR(ResolveShortId(*objects, store_.hash_size(),
                                        core_abbrev.ok() ? *core_abbrev : kAbbrevDefault, hex, hint,
                                        !flags.quiet, &r));
  if (r.kind == ShortIdResult::Kind::kAmbiguous && !flags.quiet) {
    std::string lower(hex);
    for (char& c : lower) c = char(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    out_->errors.push_back("short object ID " + lower + " is ambiguous");
    out_->hints.insert(out_->hints.end(), r.hints.begin(), r.hints.end());
  }
  *found = r.kind == ShortIdResult::Kind::kFound;
  if (*found) *id = r.id;
  return Status::Ok();
}

// The reflog part of git's get_oid_basic: `selector` is what stands between "@{" and "}".
Status Resolver::AtReflog(std::string_view base, std::string_view selector,
                          const std::string& refname, Flags flags, ObjectId* id, bool* found) {
  // A number is an entry (one of nine digits or more a time); anything else a date. As in
  // git, the number is an int that may wrap negative, which makes it a date too.
  int32_t nth = 0;
  for (size_t i = 0; nth >= 0 && i < selector.size(); ++i) {
    const char c = selector[i];
    if (c < '0' || c > '9') {
      nth = -1;
    } else {
      nth = int32_t(uint32_t(nth) * 10u + uint32_t(c - '0'));
    }
  }
  uint64_t at_time = 0;
  if (nth >= 100000000) {
    at_time = uint64_t(nth);
    nth = -1;
  } else if (nth < 0 && !ParseApproxDate(selector, GitDateNow(), &at_time).ok()) {
    return *found = false, Status::Ok();
  }
  RefAtResult at;
  REFTAB_RETURN_IF_ERROR(ReadRefAt(store_, refname, at_time, nth, *id, &at));
  out_->warnings.insert(out_->warnings.end(), at.warnings.begin(), at.warnings.end());
  if (at.empty) return Die("log for " + refname + " is empty", flags.quiet);
  *id = at.id;
  *found = true;
  if (at.found) return Status::Ok();
  std::string shown(base);
  if (shown.empty()) shown = refname.starts_with("refs/heads/") ? refname.substr(11) : "HEAD";
  if (at_time != 0) {
    if (!flags.quiet) {
      DateMode rfc;
      rfc.style = DateStyle::kRfc;
      out_->warnings.push_back("log for '" + shown + "' only goes back to " +
                               ShowDate(int64_t(at.cutoff_time), at.cutoff_tz, rfc));
    }
    return Status::Ok();
  }
  if (nth == at.cutoff_count && !IsZeroId(at.id, store_.hash_size())) return Status::Ok();
  *found = false;
  return Die("log for '" + shown + "' only has " + std::to_string(at.cutoff_count) + " entries",
             flags.quiet);
}

// git's get_oid_basic: a full id, or a ref name with an optional @{...} selector.
Status Resolver::Basic(std::string_view str, Flags flags, ObjectId* id, bool* found) {
  *found = false;
  const size_t hs = store_.hash_size();
  if (str.size() == 2 * hs && ParseHexId(str, hs, id)) {
    *found = true;
    // The setting is looked up only when it matters: a config lookup was a third of the
    // cost of each id of a large `update-ref --stdin`, which skips the check.
    if (flags.skip_full_id_check || !WarnAmbiguousRefs(store_)) return Status::Ok();
    DwimResult d;
    std::string fatal;
    REFTAB_RETURN_IF_ERROR(DwimRefShorthand(store_, str, /*nonfatal=*/true, &d, &fatal));
    if (d.matches > 0) {
      out_->warnings.push_back(AmbiguousRefnameWarning(str));
      if (store_.config().GetBool("advice.objectnamewarning", true)) {
        out_->advice.push_back(
            "Git normally never creates a ref that ends with 40 hex characters\n"
            "because it will be ignored when you just specify 40-hex. These refs\n"
            "may be created by mistake. For example,\n\n"
            "  git switch -c $br $(git rev-parse ...)\n\n"
            "where \"$br\" is somehow empty and a 40-hex ref is created. Please\n"
            "examine these refs and maybe delete them. Turn this message off by\n"
            "running \"git config set advice.objectNameWarning false\"");
      }
    }
    return Status::Ok();
  }
  const bool warn = WarnAmbiguousRefs(store_);
  // "<base>@{<selector>}": the last "@{" that is not an upstream or push mark; "@{-N}"
  // only at the start.
  std::string_view base = str, selector;
  bool reflog = false, nth_prior = false;
  if (!str.empty() && str.back() == '}' && str.size() >= 4) {
    for (size_t at = str.size() - 4 + 1; at-- > 0;) {
      if (str[at] != '@' || str[at + 1] != '{') continue;
      if (str[at + 2] == '-') {
        if (at != 0) return Status::Ok();
        nth_prior = true;
        continue;
      }
      if (BranchMarkLength(str.substr(at), false) == 0 &&
          BranchMarkLength(str.substr(at), true) == 0) {
        reflog = true;
        selector = str.substr(at + 2, str.size() - 1 - (at + 2));
        base = str.substr(0, at);
      }
      break;
    }
  }
  if (!base.empty() && AmbiguousPath(base)) return Status::Ok();
  if (nth_prior) {
    int used = -1;
    std::string branch;
    REFTAB_RETURN_IF_ERROR(NthPriorCheckout(store_, base, &used, &branch));
    if (used > 0 && branch.size() == 2 * hs && ParseHexId(branch, hs, id)) {
      return *found = true, Status::Ok();  // a detached checkout: its id
    }
  }
  int refs_found = 0;
  std::string refname, fatal;
  if (reflog && !base.empty()) {
    std::string full;
    REFTAB_RETURN_IF_ERROR(SubstituteBranchName(store_, base, /*nonfatal=*/false, &full, &fatal));
    if (!fatal.empty()) return Die(fatal, false);
    REFTAB_RETURN_IF_ERROR(DwimReflog(store_, full, &refname, &refs_found));
    if (refs_found > 0) {
      ResolvedRef r;
      REFTAB_RETURN_IF_ERROR(ResolveRefAsGit(store_, refname, kResolveReading, &r));
      *id = r.id;
      if (!warn) refs_found = 1;
    }
  } else {
    DwimResult d;
    REFTAB_RETURN_IF_ERROR(
        DwimRefShorthand(store_, base.empty() && reflog ? "HEAD" : base, flags.quiet, &d, &fatal));
    if (!fatal.empty()) return Die(fatal, false);
    out_->warnings.insert(out_->warnings.end(), d.warnings.begin(), d.warnings.end());
    refs_found = d.matches;
    refname = std::move(d.refname);
    *id = d.id;
  }
  if (refs_found == 0) return Status::Ok();
  if (warn && !flags.quiet) {
    bool also_id = false;
    if (refs_found == 1 && base.size() >= size_t(kMinimumAbbrev)) {
      // A ref spelled like an abbreviated id wins over the id, with git's warning; the
      // lookup only counts when the object database can answer.
      ObjectId ignored{};
      GitObjects* objects = store_.objects();
      bool hex = true;
      for (char c : base) hex = hex && IsHexDigit(c);
      if (hex && objects && objects->available()) {
        REFTAB_RETURN_IF_ERROR(
            ShortId(base, Flags{true, false, ObjectKindHint::kAny}, &ignored, &also_id));
      }
    }
    if (refs_found > 1 || also_id) out_->warnings.push_back(AmbiguousRefnameWarning(base));
  }
  if (out_->refname.empty()) out_->refname = refname;
  if (!reflog) return *found = true, Status::Ok();
  return AtReflog(base, selector, refname, flags, id, found);
}

Status Resolver::Get1(std::string_view name, Flags flags, ObjectId* id, bool* found) {
  *found = false;
  // "<rev>~N" / "<rev>^N": digits, then the operator, at the end.
  size_t cp = name.size();
  while (cp > 0 && name[cp - 1] >= '0' && name[cp - 1] <= '9') --cp;
  if (cp > 0 && (name[cp - 1] == '~' || name[cp - 1] == '^')) {
    const char op = name[cp - 1];
    unsigned long long num = 0;
    for (size_t i = cp; i < name.size(); ++i) {
      num = num * 10 + unsigned(name[i] - '0');
      if (num > INT_MAX) return Status::Ok();
    }
    if (num == 0 && cp == name.size()) num = 1;  // "X^" and "X~" are X^1 and X~1
    std::string_view base = name.substr(0, cp - 1);
    return op == '^' ? Parent(base, unsigned(num), id, found)
                     : Ancestor(base, unsigned(num), id, found);
  }
  REFTAB_RETURN_IF_ERROR(PeelOnion(name, flags, id, found));
  if (*found || out_->dies) return Status::Ok();
  REFTAB_RETURN_IF_ERROR(Basic(name, flags, id, found));
  if (*found || out_->dies) return Status::Ok();
  // "<anything>-g<hex>": git describe's output names the commit by its abbreviated id.
  for (size_t g = name.size(); g-- > 2;) {
    if (!IsHexDigit(name[g]) && name[g] == 'g' && name[g - 1] == '-' &&
        DescribeBaseValid(name.substr(0, g - 1))) {
      REFTAB_RETURN_IF_ERROR(
          ShortId(name.substr(g + 1), Flags{true, false, ObjectKindHint::kCommit}, id, found));
      if (*found) return Status::Ok();
      break;
    }
  }
  return ShortId(name, flags, id, found);
}

Status Resolver::OnelineFromRefs(std::string_view regex, ObjectId* id, bool* found) {
  GitObjects* objects = nullptr;
  REFTAB_RETURN_IF_ERROR(Objects(&objects));
  std::vector<ObjectId> tips;
  REFTAB_RETURN_IF_ERROR(CommitsOfRefs(store_, *objects, &tips));
  return FindCommitByMessage(*objects, store_.hash_size(), regex, tips, id, found);
}

}  // namespace

bool ParseFullObjectId(const GitRefStore& store, std::string_view name, ObjectId* id) {
  const size_t hs = store.hash_size();
  return name.size() == 2 * hs && ParseHexId(name, hs, id);
}

Status ResolveRevision(GitRefStore& store, std::string_view name, ObjectNameResult* out,
                       const RevisionOptions& options) {
  *out = ObjectNameResult();
  // A full id, with the ambiguity check skipped, names itself (no other syntax reads as 40
  // or 64 hex digits): each line of a large `update-ref --stdin` is spared the resolver.
  if (options.skip_full_id_check && ParseFullObjectId(store, name, &out->id)) {
    out->found = true;
    return Status::Ok();
  }
  Resolver resolver(store, out);
  REFTAB_RETURN_IF_ERROR(
      resolver.Get1(name, Flags{options.quiet, options.skip_full_id_check, ObjectKindHint::kAny},
                    &out->id, &out->found));
  if (out->found || out->dies) return Status::Ok();
  if (name.size() > 2 && name.starts_with(":/")) {
    // A second look (only_to_die) does not search again; git's answer stays "unknown".
    if (options.only_to_die) return Status::Ok();
    return resolver.OnelineFromRefs(name.substr(2), &out->id, &out->found);
  }
  // "<rev>:<path>" (the first ':' outside "@{...}" and "^{...}") and ":<path>" name files.
  int depth = 0;
  size_t colon = 0;
  for (; colon < name.size(); ++colon) {
    const char c = name[colon];
    if ((c == '@' || c == '^') && colon + 1 < name.size() && name[colon + 1] == '{') {
      ++colon;
      ++depth;
    } else if (depth > 0 && c == '}') {
      --depth;
    } else if (depth == 0 && c == ':') {
      break;
    }
  }
  if (colon == name.size()) return Status::Ok();
  if (colon > 0) {
    ObjectNameResult tree;
    Resolver tree_resolver(store, &tree);
    REFTAB_RETURN_IF_ERROR(tree_resolver.Get1(
        name.substr(0, colon),
        Flags{options.quiet, options.skip_full_id_check, ObjectKindHint::kTreeish}, &tree.id,
        &tree.found));
    if (!tree.found) {
      if (options.only_to_die) {
        out->dies = true;
        out->fatal = "invalid object name '" + std::string(name.substr(0, colon)) + "'.";
      }
      return Status::Ok();
    }
  }
  std::string message = "'";
  message.append(name).append("': paths in trees and the index are not supported");
  return Status::InvalidArgument(message);
}

}  // namespace reftab
