// Public API: git's test of whether a commit is "complete" — its ancestors, their trees and
// every entry of those trees all in the object database — as `git reflog expire --stale-fix`
// makes it to find the reflog entries a pruned or damaged repository left pointing at broken
// history. Like git, it trusts what the refs reach: objects met on a walk from the refs count
// as complete, whatever they lack, and every answer is remembered for the next question.
#ifndef REFTAB_STORE_GIT_OBJECTS_COMPLETE_HISTORY_H_
#define REFTAB_STORE_GIT_OBJECTS_COMPLETE_HISTORY_H_

#include <memory>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/objects/objects.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class GitCompleteHistory {
 public:
  // `objects` (kept, not owned) must be available(): commits and trees are read through it,
  // commits as ReadCommitLinks reads them (a shallow commit has no parents).
  GitCompleteHistory(GitObjects* objects, size_t hash_size);
  ~GitCompleteHistory();
  GitCompleteHistory(const GitCompleteHistory&) = delete;
  GitCompleteHistory& operator=(const GitCompleteHistory&) = delete;

  // git's walk from one of the refs (mark_reachable_objects, told to pass by missing
  // objects): the commits `tip` reaches — through annotated tags, then over parents — and the
  // trees read on the way (each commit's tree, its subtrees, or `tip`'s tree) are trusted
  // from now on. A commit counts once met, even one that cannot be read (IsSound still finds
  // that out), a tree once read, whatever entries it lacks. *readable is false, and nothing
  // is trusted, when `tip` itself cannot be read (missing, or a commit or tag that does not
  // parse): git dies there. A tree the walk reads that does not parse is a Corruption error.
  Status Trust(const ObjectId& tip, bool* readable);

  // git's keep_entry for one id of a reflog entry: the zero id is sound; another id is sound
  // when it stands for a commit (GitObjects::PeelToCommit) that is complete: every commit
  // reached from it over parents, stopping at complete ones (trusted, or found so before),
  // can be read, and the tree of each of them (the stopping ones included) is complete: it
  // is trusted, or it can be read, every entry is in the database (submodule commits too:
  // git checks them as well) and every subtree is complete. Blobs are not read.
  Status IsSound(const ObjectId& id, bool* sound);

 private:
  struct State;
  Status TrustTree(const ObjectId& tree);
  Status TrustCommits(const ObjectId& tip);
  Status CommitComplete(const ObjectId& id, bool* complete);
  Status TreeComplete(const ObjectId& id, int depth, bool* complete);

  GitObjects* objects_;
  size_t hash_size_;
  std::unique_ptr<State> state_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_COMPLETE_HISTORY_H_
