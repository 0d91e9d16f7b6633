// GitObjects' reading of commits (parents as git sees them, the shallow file honoured) and its
// walks over commit parents: ancestry and ahead/behind counts. libgit2's graph functions need
// a git_repository (which would read refs); with only the object database we walk the parents
// ourselves, through the commit parser.
#include <algorithm>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "store/file.h"
#include "store/git/objects/id_hash.h"
#include "store/git/objects/object_parse.h"
#include "store/git/objects/objects.h"

namespace reftab {
namespace {

constexpr uint8_t kFromA = 1, kFromB = 2, kFromBoth = 3;

}  // namespace

Status GitObjects::IsShallow(const ObjectId& id, bool* shallow) {
  *shallow = false;
  if (!shallow_read_) {
    Result<std::string> text = shallow_file_.empty()
                                   ? Result<std::string>(Status::NotFound("no shallow file"))
                                   : PosixFileSystem()->ReadFile(shallow_file_);
    std::string_view rest = text.ok() ? std::string_view(*text) : std::string_view();
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl);
      rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
      ObjectId c{};
      if (line.size() < 2 * hash_size_ ||
          !ParseHexId(line.substr(0, 2 * hash_size_), hash_size_, &c)) {
        return Status::Corruption("bad shallow line: " + std::string(line));
      }
      shallow_.push_back(c);
    }
    std::sort(shallow_.begin(), shallow_.end());
    shallow_read_ = true;
  }
  *shallow = std::binary_search(shallow_.begin(), shallow_.end(), id);
  return Status::Ok();
}

Status GitObjects::ReadCommitLinks(const ObjectId& id, GitCommitLinks* out, bool* ok) {
  *ok = false;
  *out = GitCommitLinks();
  GitObjectType type = GitObjectType::kNone;
  std::string content;
  REFTAB_RETURN_IF_ERROR(Read(id, &type, &content));
  GitCommit commit;
  // git cannot parse such a commit either, and takes it for one it does not have.
  if (type != GitObjectType::kCommit || !ParseCommit(content, hash_size_, &commit).ok()) {
    return Status::Ok();
  }
  bool shallow = false;
  REFTAB_RETURN_IF_ERROR(IsShallow(id, &shallow));
  out->tree = commit.tree;
  if (!shallow) out->parents = std::move(commit.parents);
  if (commit.committer && commit.committer->has_date) out->date = commit.committer->timestamp;
  *ok = true;
  return Status::Ok();
}

Status GitObjects::ReadCommit(const ObjectId& id, std::vector<ObjectId>* parents, uint64_t* date) {
  parents->clear();
  *date = 0;
  GitObjectType type = GitObjectType::kNone;
  std::string content;
  REFTAB_RETURN_IF_ERROR(Read(id, &type, &content));
  if (type == GitObjectType::kNone) return Status::Ok();
  if (type != GitObjectType::kCommit) {
    return Status::InvalidArgument("object " + HexId(id, hash_size_) + " is a " +
                                   GitObjectTypeName(type) + ", not a commit");
  }
  GitCommit commit;
  REFTAB_RETURN_IF_ERROR(
      ParseCommit(content, hash_size_, &commit).WithContext("commit " + HexId(id, hash_size_)));
  bool shallow = false;
  REFTAB_RETURN_IF_ERROR(IsShallow(id, &shallow));
  if (!shallow) *parents = std::move(commit.parents);
  if (commit.committer && commit.committer->has_date) *date = commit.committer->timestamp;
  return Status::Ok();
}

Status GitObjects::IsAncestor(const ObjectId& ancestor, const ObjectId& descendant, bool* is) {
  *is = false;
  std::vector<ObjectId> parents;
  uint64_t date = 0;
  REFTAB_RETURN_IF_ERROR(ReadCommit(ancestor, &parents, &date));
  std::unordered_set<ObjectId, ObjectIdHash> seen{descendant};
  std::vector<ObjectId> todo{descendant};
  while (!todo.empty()) {
    ObjectId c = todo.back();
    todo.pop_back();
    if (c == ancestor) {
      *is = true;
      return Status::Ok();
    }
    REFTAB_RETURN_IF_ERROR(ReadCommit(c, &parents, &date));
    for (const ObjectId& p : parents) {
      if (seen.insert(p).second) todo.push_back(p);
    }
  }
  return Status::Ok();
}

// Paints commits with where they are reachable from (a, b or both), newest committer date
// first, and stops once every commit still to visit is reachable from both: what lies below
// those cannot count. A commit that gains a mark after its visit is visited again, so the
// marks spread fully; as in git, only commit dates older than their parents' (clock skew) can
// make the early stop miss a commit reachable from both.
Status GitObjects::AheadBehind(const ObjectId& a, const ObjectId& b, size_t* ahead,
                               size_t* behind) {
  *ahead = *behind = 0;
  struct Node {
    uint8_t marks = 0;
    bool queued = false;
    bool read = false;
    uint64_t date = 0;
    std::vector<ObjectId> parents;
  };
  std::unordered_map<ObjectId, Node, ObjectIdHash> nodes;
  std::priority_queue<std::pair<uint64_t, ObjectId>> queue;
  size_t unpainted = 0;  // queued commits not yet reachable from both

  auto mark = [&](const ObjectId& id, uint8_t marks) -> Status {
    Node& n = nodes[id];
    if (!n.read) {
      REFTAB_RETURN_IF_ERROR(ReadCommit(id, &n.parents, &n.date));
      n.read = true;
    }
    const uint8_t old = n.marks;
    n.marks |= marks;
    if (n.marks == old) return Status::Ok();
    if (n.queued) {
      if (n.marks == kFromBoth) --unpainted;
      return Status::Ok();
    }
    n.queued = true;
    if (n.marks != kFromBoth) ++unpainted;
    queue.emplace(n.date, id);
    return Status::Ok();
  };

  REFTAB_RETURN_IF_ERROR(mark(a, kFromA));
  REFTAB_RETURN_IF_ERROR(mark(b, kFromB));
  while (unpainted > 0 && !queue.empty()) {
    ObjectId id = queue.top().second;
    queue.pop();
    Node& n = nodes[id];
    n.queued = false;
    if (n.marks != kFromBoth) --unpainted;
    // (unordered_map nodes stay put as it grows, so `n` outlives the inserts of mark().)
    for (const ObjectId& p : n.parents) REFTAB_RETURN_IF_ERROR(mark(p, n.marks));
  }
  for (const auto& [id, n] : nodes) {
    if (n.marks == kFromA) ++*ahead;
    if (n.marks == kFromB) ++*behind;
  }
  return Status::Ok();
}

}  // namespace reftab
