// GitObjects' reading of commits (parents as git sees them, the shallow file honoured) and its
// walks over commit parents: ancestry and ahead/behind counts, through the commit parser.
#include <algorithm>
#include <optional>
#include <queue>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "store/file.h"
#include "store/git/objects/commit_graph.h"
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

Status GitObjects::GenerationOf(const ObjectId& id, const CommitNode** out) {
  if (!graph_) graph_ = std::make_unique<CommitGraph>();
  auto node = [&](const ObjectId& c) -> Result<CommitNode*> {
    CommitNode& n = graph_->nodes[c];
    if (!n.read) {
      n.read = true;
      Status s = ReadCommit(c, &n.parents, &n.date);
      if (!s.ok() && s.code() != Code::kInvalidArgument) return s;  // else: not a commit
    }
    return &n;
  };
  // Depth first down to commits whose parents all have theirs: a commit's generation is
  // one more than its parents' highest, or its date when that is higher.
  std::vector<ObjectId> stack{id};
  while (!stack.empty()) {
    Result<CommitNode*> c = node(stack.back());
    REFTAB_RETURN_IF_ERROR(c.status());
    if ((*c)->generation) {
      stack.pop_back();
      continue;
    }
    uint64_t max_parent = 0;
    bool ready = true;
    for (const ObjectId& p : (*c)->parents) {
      Result<CommitNode*> pn = node(p);
      REFTAB_RETURN_IF_ERROR(pn.status());
      if (!(*pn)->generation) {
        stack.push_back(p);
        ready = false;
        break;
      }
      max_parent = std::max(max_parent, (*pn)->generation);
    }
    if (!ready) continue;
    if ((*c)->date > max_parent) max_parent = (*c)->date - 1;
    (*c)->generation = max_parent + 1;
    stack.pop_back();
  }
  *out = &graph_->nodes[id];
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
Status GitObjects::AheadBehind(const ObjectId& a, const ObjectId& b, size_t* ahead, size_t* behind,
                               GitWalkOrder order) {
  *ahead = *behind = 0;
  struct Node {
    uint8_t marks = 0;
    bool queued = false;
    bool read = false;
    uint64_t date = 0;
    std::vector<ObjectId> parents;
  };
  std::unordered_map<ObjectId, Node, ObjectIdHash> nodes;
  // (generation or 0, date, id): the newest first.
  std::priority_queue<std::tuple<uint64_t, uint64_t, ObjectId>> queue;
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
    uint64_t generation = 0;
    if (order == GitWalkOrder::kGeneration) {
      const CommitNode* g = nullptr;
      REFTAB_RETURN_IF_ERROR(GenerationOf(id, &g));
      generation = g->generation;
    }
    queue.emplace(generation, n.date, id);
    return Status::Ok();
  };

  REFTAB_RETURN_IF_ERROR(mark(a, kFromA));
  REFTAB_RETURN_IF_ERROR(mark(b, kFromB));
  while (unpainted > 0 && !queue.empty()) {
    ObjectId id = std::get<2>(queue.top());
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

// git's get_branch_base_for_tip over first parents, highest generation first.
Status GitObjects::BranchBase(const ObjectId& tip, const std::vector<ObjectId>& bases, int* index) {
  *index = -1;
  if (bases.empty()) return Status::Ok();
  std::unordered_map<ObjectId, int, ObjectIdHash>
      best;  // -1: reached from the tip; i + 1: bases[i]
  // Highest generation first, then the newest date, then the first queued.
  struct Entry {
    uint64_t generation, date, order;
    ObjectId id;
    bool operator<(const Entry& o) const {
      if (generation != o.generation) return generation < o.generation;
      if (date != o.date) return date < o.date;
      return order > o.order;
    }
  };
  std::priority_queue<Entry> queue;
  uint64_t order = 0;
  auto put = [&](const ObjectId& id) -> Status {
    const CommitNode* n = nullptr;
    REFTAB_RETURN_IF_ERROR(GenerationOf(id, &n));
    queue.push(Entry{n->generation, n->date, order++, id});
    return Status::Ok();
  };
  best[tip] = -1;
  REFTAB_RETURN_IF_ERROR(put(tip));
  for (size_t i = 0; i < bases.size(); ++i) {
    int& b = best[bases[i]];
    if (b == -1) {  // the tip itself
      *index = int(i);
      return Status::Ok();
    }
    if (b) continue;
    b = int(i) + 1;
    REFTAB_RETURN_IF_ERROR(put(bases[i]));
  }
  int best_index = -1;
  std::optional<ObjectId> branch_point;
  while (!queue.empty()) {
    const ObjectId id = queue.top().id;
    queue.pop();
    if (branch_point && id == *branch_point) break;
    const CommitNode* c = nullptr;
    REFTAB_RETURN_IF_ERROR(GenerationOf(id, &c));
    if (c->parents.empty()) continue;
    const ObjectId parent = c->parents[0];
    const int best_for_c = best[id];
    int& best_for_p = best[parent];
    if (!best_for_p) {
      best_for_p = best_for_c;
      REFTAB_RETURN_IF_ERROR(put(parent));
      continue;
    }
    if (best_for_p > 0 && best_for_c > 0) {
      if (best_for_c < best_for_p) best_for_p = best_for_c;
      continue;
    }
    const int positive = best_for_c < 0 ? best_for_p : best_for_c;
    if (best_index < 0 || positive < best_index) best_index = positive;
    best_for_p = -1;
    branch_point = parent;
  }
  *index = best_index > 0 ? best_index - 1 : -1;
  return Status::Ok();
}

}  // namespace reftab
