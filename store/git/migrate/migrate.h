// Public API: `git refs migrate` — moving a repository's refs between git's "files" and
// "reftable" storage, producing what git 2.55's migration produces from the same
// repository (the same table bytes, table names aside; the same loose files, packed-refs
// and reflog files; the config's extensions.refstorage and core.repositoryformatversion;
// the stubs HEAD "ref: refs/heads/.invalid" and refs/heads "this repository uses the
// reftable format" a reftable repository keeps for older tools).
//
// Unlike git's, the switch is ordered so that a failure or a kill at any moment leaves a
// repository git can use, in the old format (before the config changes) or the new one
// (after): the new storage is written in full into $GIT_DIR/ref_migration.XXXXXX, then
// moved next to the old one where the old format ignores it, then the config is replaced
// in one rename, and only then is the old storage moved away. Directories trade places
// with renameat2(RENAME_EXCHANGE) where the file system has it.
//
// Repositories with linked worktrees are refused with git's message: each worktree keeps
// its own per-worktree refs in its own storage, so a migration would have to switch several
// stores at once and no single rename makes that atomic; a half-migrated set of worktrees
// is exactly what this module promises never to leave.
#ifndef REFTAB_STORE_GIT_MIGRATE_MIGRATE_H_
#define REFTAB_STORE_GIT_MIGRATE_MIGRATE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class Progress;  // store/progress.h

enum class RefStorageFormat : uint8_t { kFiles, kReftable };
std::optional<RefStorageFormat> ParseRefStorageFormat(std::string_view name);
std::string_view RefStorageFormatName(RefStorageFormat format);

// A ref (or reflog) that could not be migrated, and why ("not a valid ref name").
struct RefProblem {
  std::string refname;
  std::string reason;
};

struct MigrateOptions {
  RefStorageFormat target = RefStorageFormat::kReftable;
  bool dry_run = false;    // build the new storage in the temporary directory and stop there
  bool no_reflog = false;  // leave reflogs behind (git's --no-reflog)
  // Refs whose names cannot be migrated (see MigrateResult::not_migrated) fail the
  // migration, as in git, unless this is set: then the others are migrated.
  bool skip_unmigratable = false;
  // Whether the target file system folds case; unset: probed in the temporary directory.
  std::optional<bool> case_insensitive;
  // Called with 1, 2, ... before each step that changes the repository (tests kill the
  // process there), with a short name of the step.
  std::function<void(int step, std::string_view name)> on_step;
  // Told of the phases "Reading refs", "Reading reflogs" and "Writing refs" (may be null).
  Progress* progress = nullptr;
};

struct MigrateResult {
  std::string temp_dir;  // the temporary directory (with dry_run: the new storage, kept)
  uint64_t refs = 0;
  uint64_t reflogs = 0;
  uint64_t reflog_entries = 0;
  // What was not (or, on failure, could not be) migrated and why.
  std::vector<RefProblem> not_migrated;
  // Problems after the switch (the repository uses the new format; leftovers remain).
  std::vector<std::string> warnings;
  // On failure: git dies there rather than returning an error (writing the files-backend
  // stubs), so a git-like tool prints "fatal: " + the message and exits 128, not 255.
  bool died = false;
};

// Migrates the repository whose git directory is `git_dir`. Errors use git's words where
// git has them ("repository already uses 'reftable' format", "migrating repositories with
// worktrees is not supported yet").
Status MigrateRefStorage(const std::string& git_dir, const MigrateOptions& options,
                         MigrateResult* result);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_MIGRATE_MIGRATE_H_
