#include "store/git/refs/object_name.h"

#include <cstdlib>
#include <string>

#include "store/git/objects/object_parse.h"
#include "store/git/refs/ref_store.h"

namespace reftab {
namespace {

// The commit `*id` peels to, read into `commit` (*id becomes the commit's id); *ok false when
// there is none: a missing object, a bad tag, or another type.
Status PeelToCommit(GitObjects& objects, size_t hash_size, ObjectId* id, GitCommit* commit,
                    bool* ok) {
  REFTAB_RETURN_IF_ERROR(objects.Peel(*id, id, ok));
  if (!*ok) return Status::Ok();
  GitObjectType type = GitObjectType::kNone;
  std::string content;
  REFTAB_RETURN_IF_ERROR(objects.Read(*id, &type, &content));
  *ok = type == GitObjectType::kCommit;
  if (!*ok) return Status::Ok();
  return ParseCommit(content, hash_size, commit);
}

// The number after '~' or '^' (1 when there is none); advances *i.
unsigned Count(std::string_view s, size_t* i) {
  size_t start = *i;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9') ++*i;
  if (*i == start) return 1u;
  return unsigned(std::strtoul(std::string(s.substr(start, *i - start)).c_str(), nullptr, 10));
}

// git's peel_to_type: follows tags, and a commit to its tree, until an object of type
// `want`; anything else fails with git's error line in *errors. *ok false when there is none.
Status PeelToType(GitObjects& objects, size_t hs, std::string_view name, GitObjectType want,
                  ObjectId* id, std::vector<std::string>* errors, bool* ok) {
  for (int depth = 0; depth < 64; ++depth) {
    GitObjectType type = GitObjectType::kNone;
    std::string content;
    REFTAB_RETURN_IF_ERROR(objects.Read(*id, &type, &content));
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
      errors->push_back(std::string(name) + ": expected " + GitObjectTypeName(want) +
                        " type, but the object dereferences to " + GitObjectTypeName(type) +
                        " type");
      return *ok = false, Status::Ok();
    }
  }
  return *ok = false, Status::Ok();  // a chain of tags too long to be real
}

// Applies one suffix at suffix[*i] (just after its '~' or '^', `op`) to *id; advances *i.
// *ok false when the result names no object.
Status ApplySuffix(GitObjects& objects, size_t hs, char op, std::string_view suffix, size_t* i,
                   ObjectId* id, std::vector<std::string>* errors, bool* ok) {
  GitCommit commit;
  if (op == '^' && suffix.substr(*i, 1) == "{") {
    size_t close = suffix.find('}', *i);
    *ok = close != std::string_view::npos;
    if (!*ok) return Status::Ok();
    std::string_view what = suffix.substr(*i + 1, close - *i - 1);
    *i = close + 1;
    if (what.empty()) return objects.Peel(*id, id, ok);
    if (what == "object") return objects.Has(*id, ok);
    GitObjectType want = GitObjectTypeNamed(what);
    *ok = want != GitObjectType::kNone;
    if (!*ok) return Status::Ok();
    // git names the whole argument up to this suffix in its error line.
    return PeelToType(objects, hs, suffix.substr(0, close + 1), want, id, errors, ok);
  }
  unsigned n = Count(suffix, i);
  if (op == '^' && n == 0) return PeelToCommit(objects, hs, id, &commit, ok);
  // ~N walks N first parents; ^N takes the N-th parent once.
  for (unsigned k = 0; k < (op == '~' ? n : 1u); ++k) {
    REFTAB_RETURN_IF_ERROR(PeelToCommit(objects, hs, id, &commit, ok));
    size_t parent = op == '~' ? 0 : n - 1;
    *ok = *ok && parent < commit.parents.size();
    if (!*ok) return Status::Ok();
    *id = commit.parents[parent];
  }
  return Status::Ok();
}

}  // namespace

Status ResolveRevision(GitRefStore& store, std::string_view name, ObjectNameResult* out) {
  const size_t cut = name.find_first_of("~^");
  REFTAB_RETURN_IF_ERROR(ResolveObjectName(store, name.substr(0, cut), out));
  if (!out->found || cut == std::string_view::npos) return Status::Ok();
  GitObjects* objects = store.objects();
  if (!objects || !objects->available()) {
    std::string message = "'";
    message.append(name).append("': ~ and ^ need the object database (");
    message.append(objects ? objects->reason() : "no object database here").append(")");
    return Status::InvalidArgument(message);
  }
  bool ok = true;
  for (size_t i = cut; ok && i < name.size();) {
    char op = name[i++];
    ok = op == '~' || op == '^';  // "x^{}junk" names nothing
    if (ok)
      REFTAB_RETURN_IF_ERROR(
          ApplySuffix(*objects, store.hash_size(), op, name, &i, &out->id, &out->errors, &ok));
  }
  out->found = ok;
  return Status::Ok();
}

}  // namespace reftab
