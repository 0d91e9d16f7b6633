#include "store/git/objects/complete_history.h"

#include <string>
#include <unordered_set>
#include <utility>

#include "store/git/objects/object_parse.h"

namespace reftab {
namespace {

using IdSet = std::unordered_set<ObjectId, ObjectIdHash>;

// Trees nest no deeper than this in any real repository (git refuses deeper ones on its
// walks); the check of a deeper one fails rather than exhaust the stack.
constexpr int kMaxTreeDepth = 4096;

}  // namespace

// git keeps one SEEN flag for "trusted" and "found complete" (both mean: stop here, it is
// whole) and an INCOMPLETE flag for what was found broken; these sets are those flags.
struct GitCompleteHistory::State {
  IdSet complete_commits, incomplete_commits;
  IdSet complete_trees, incomplete_trees;
};

GitCompleteHistory::GitCompleteHistory(GitObjects* objects, size_t hash_size)
    : objects_(objects), hash_size_(hash_size), state_(std::make_unique<State>()) {}

GitCompleteHistory::~GitCompleteHistory() = default;

Status GitCompleteHistory::TrustTree(const ObjectId& tree) {
  std::vector<ObjectId> todo{tree};
  std::vector<GitTreeEntry> entries;
  while (!todo.empty()) {
    const ObjectId id = todo.back();
    todo.pop_back();
    if (state_->complete_trees.count(id)) continue;
    GitObjectType type = GitObjectType::kNone;
    std::string content;
    REFTAB_RETURN_IF_ERROR(objects_->Read(id, &type, &content));
    if (type != GitObjectType::kTree) continue;  // git's walk passes by what it cannot read
    REFTAB_RETURN_IF_ERROR(
        ParseTree(content, hash_size_, &entries).WithContext("tree " + HexId(id, hash_size_)));
    state_->complete_trees.insert(id);
    for (const GitTreeEntry& e : entries) {
      if (IsTreeMode(e.mode)) todo.push_back(e.id);
    }
  }
  return Status::Ok();
}

Status GitCompleteHistory::TrustCommits(const ObjectId& tip) {
  if (!state_->complete_commits.insert(tip).second) return Status::Ok();
  GitCommitLinks c;
  bool ok = false;
  REFTAB_RETURN_IF_ERROR(objects_->ReadCommitLinks(tip, &c, &ok));
  if (!ok) return Status::Ok();
  std::vector<GitCommitLinks> todo{std::move(c)};
  while (!todo.empty()) {
    GitCommitLinks commit = std::move(todo.back());
    todo.pop_back();
    REFTAB_RETURN_IF_ERROR(TrustTree(commit.tree));
    for (const ObjectId& p : commit.parents) {
      // git marks a parent before it knows whether it can read it.
      if (!state_->complete_commits.insert(p).second) continue;
      GitCommitLinks parent;
      REFTAB_RETURN_IF_ERROR(objects_->ReadCommitLinks(p, &parent, &ok));
      if (ok) todo.push_back(std::move(parent));
    }
  }
  return Status::Ok();
}

Status GitCompleteHistory::Trust(const ObjectId& tip, bool* readable) {
  *readable = false;
  // Tags are followed to what they name; a target that cannot be read ends the walk there.
  // (Chains cannot loop: each tag names an object made before it.)
  ObjectId id = tip;
  GitObjectType type = GitObjectType::kNone;
  for (bool first = true;; first = false) {
    std::string content;
    REFTAB_RETURN_IF_ERROR(objects_->Read(id, &type, &content));
    GitCommit commit;
    GitTag tag;
    const bool parses =
        type != GitObjectType::kNone &&
        (type != GitObjectType::kCommit || ParseCommit(content, hash_size_, &commit).ok()) &&
        (type != GitObjectType::kTag || ParseTag(content, hash_size_, &tag).ok());
    if (first) *readable = parses;
    if (!parses) return Status::Ok();
    if (type != GitObjectType::kTag) break;
    id = tag.object;
  }
  if (type == GitObjectType::kCommit) return TrustCommits(id);
  if (type == GitObjectType::kTree) return TrustTree(id);
  return Status::Ok();  // a blob: no commit or tree to trust
}

Status GitCompleteHistory::TreeComplete(const ObjectId& id, int depth, bool* complete) {
  *complete = false;
  if (state_->complete_trees.count(id)) {
    *complete = true;
    return Status::Ok();
  }
  if (state_->incomplete_trees.count(id)) return Status::Ok();
  if (depth > kMaxTreeDepth) {
    return Status::Corruption("tree " + HexId(id, hash_size_) + " is nested too deeply");
  }
  GitObjectType type = GitObjectType::kNone;
  std::string content;
  REFTAB_RETURN_IF_ERROR(objects_->Read(id, &type, &content));
  bool whole = type == GitObjectType::kTree;
  std::vector<GitTreeEntry> entries;
  if (whole) {
    REFTAB_RETURN_IF_ERROR(
        ParseTree(content, hash_size_, &entries).WithContext("tree " + HexId(id, hash_size_)));
  }
  for (size_t i = 0; whole && i < entries.size(); ++i) {
    const GitTreeEntry& e = entries[i];
    // Every entry must be present, submodule commits included (git checks them alike).
    REFTAB_RETURN_IF_ERROR(objects_->Has(e.id, &whole));
    if (whole && IsTreeMode(e.mode)) REFTAB_RETURN_IF_ERROR(TreeComplete(e.id, depth + 1, &whole));
  }
  (whole ? state_->complete_trees : state_->incomplete_trees).insert(id);
  *complete = whole;
  return Status::Ok();
}

Status GitCompleteHistory::CommitComplete(const ObjectId& id, bool* complete) {
  *complete = false;
  if (state_->complete_commits.count(id)) {
    *complete = true;
    return Status::Ok();
  }
  if (state_->incomplete_commits.count(id)) return Status::Ok();
  // The commits down to complete ones (those included), and each one's tree.
  std::vector<std::pair<ObjectId, ObjectId>> found;
  std::vector<ObjectId> todo{id};
  IdSet queued{id};
  bool whole = true;
  while (whole && !todo.empty()) {
    const ObjectId c = todo.back();
    todo.pop_back();
    GitCommitLinks commit;
    bool ok = false;
    REFTAB_RETURN_IF_ERROR(objects_->ReadCommitLinks(c, &commit, &ok));
    if (!ok) state_->incomplete_commits.insert(c);
    // As in git, a broken commit is found so before a complete one is passed by.
    if (state_->incomplete_commits.count(c)) {
      whole = false;
      break;
    }
    found.emplace_back(c, commit.tree);
    if (state_->complete_commits.count(c)) continue;
    for (const ObjectId& p : commit.parents) {
      if (queued.insert(p).second) todo.push_back(p);
    }
  }
  for (size_t i = 0; whole && i < found.size(); ++i) {
    REFTAB_RETURN_IF_ERROR(TreeComplete(found[i].second, 0, &whole));
    if (!whole) state_->incomplete_commits.insert(found[i].first);
  }
  if (whole) {
    for (const auto& f : found) state_->complete_commits.insert(f.first);
  } else {
    state_->incomplete_commits.insert(id);
  }
  *complete = whole;
  return Status::Ok();
}

Status GitCompleteHistory::IsSound(const ObjectId& id, bool* sound) {
  *sound = true;
  if (IsZeroId(id, hash_size_)) return Status::Ok();
  ObjectId commit{};
  REFTAB_RETURN_IF_ERROR(objects_->PeelToCommit(id, &commit, sound));
  if (!*sound) return Status::Ok();
  return CommitComplete(commit, sound);
}

}  // namespace reftab
