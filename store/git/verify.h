// Public API: git-level checks of a repository's refs, on top of the structural checks of
// store/verify.h: what `git refs verify` reports for a reftable repository, in its words, and
// what it does not check but git's other commands trip over.
//
// From `git refs verify` (git's message ids and wording):
//   badReftableTableName (warning)  a table name git would not have made
//   badRefOid            (error)    a ref holding the null object id
//   badHeadTarget        (error)    HEAD a symref to something outside refs/heads/
//   badReferentName      (error)    a symref target that is not a valid ref name
//   symrefTargetIsNotARef (info)    a symref target outside refs/ and worktrees/
// Beyond it (git's wording where git has some):
//   badRefName           (error)    not a valid ref name ("invalid refname format" as git's
//                                   files backend says, then what is wrong), unsafe
//                                   ("refname is dangerous": git's listing commands die on
//                                   it), or holding a NUL byte (git reads it cut there)
//   badRefNameEncoding   (warning)  a name whose bytes are not UTF-8 (git takes it)
// A finding's path shows a name's bytes escaped when they would not print as they are
// (EscapedRefname, store/git/refs/refname.h).
//   refDirectoryConflict (error)    a live ref and a live ref below it ("'a' exists; cannot
//                                   create 'a/b'", git's transaction message)
//   danglingSymref       (warning)  a symref whose chain ends at a missing ref (HEAD exempt:
//                                   an unborn branch is normal)
//   symrefTooDeep        (error)    a chain git cannot resolve within its 5 reads (or a loop)
//   refInWrongStack      (error)    a linked worktree's stack holding a shared ref, which git
//                                   never reads from there
// Findings in a linked worktree's stack are named "worktrees/<id>/<ref>", as git names them.
#ifndef REFTAB_STORE_GIT_VERIFY_H_
#define REFTAB_STORE_GIT_VERIFY_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/repo.h"
#include "store/verify.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// git's fsck levels: info is always shown as a warning; a warning counts as an error with
// `strict` (git refs verify --strict).
enum class FindingSeverity : uint8_t { kInfo, kWarning, kError };

struct GitVerifyFinding {
  FindingSeverity severity = FindingSeverity::kError;
  std::string path;  // "refs/heads/x", "worktrees/wt/HEAD", or a table's file name
  std::string id;    // "badRefName", ...
  std::string message;
};

struct GitVerifyOptions {
  bool strict = false;
};

struct GitVerifyReport {
  std::vector<GitVerifyFinding> findings;  // in git's order: tables, then refs by name
  bool strict = false;
  bool IsError(const GitVerifyFinding& f) const {
    return f.severity == FindingSeverity::kError ||
           (strict && f.severity == FindingSeverity::kWarning);
  }
  size_t errors() const;
  // git's line for a finding: "error: <path>: <id>: <message>" or "warning: ...".
  std::string Line(const GitVerifyFinding& f) const;
};

// Whether a finding's id is one `git refs verify` reports itself (the first list above); the
// others are reftab's additions.
bool IsGitRefsVerifyCheck(std::string_view id);

// Checks the main stack and every linked worktree's stack ($GIT_COMMON_DIR/worktrees/*).
// Problems go into `report`; a non-OK status means a stack could not be read at all.
Status VerifyGitRepo(GitRepo& repo, const GitVerifyOptions& options, GitVerifyReport* report);

// VerifyStack (store/verify.h) on each of repo.stacks() into `tables`, then VerifyGitRepo,
// with the same outcome as the two in turn: the first structural problem is the status
// returned (and `report` is then incomplete). When the main stack is one table (as after a
// compaction) its refs are read once, by the structural scan, for both. `progress` (may be
// null) counts tables as VerifyStack's does.
Status VerifyGitRepoAndTables(GitRepo& repo, const GitVerifyOptions& options, VerifyReport* tables,
                              GitVerifyReport* report, Progress* progress = nullptr);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_VERIFY_H_
