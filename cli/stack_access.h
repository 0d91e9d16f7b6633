// Finding and opening what the CLI works on: a single table file, a bare reftable directory
// (--stack), or a git repository (--git-dir, or found from the current directory).
#ifndef REFTAB_CLI_STACK_ACCESS_H_
#define REFTAB_CLI_STACK_ACCESS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/output.h"
#include "store/git/refs/ref_store.h"
#include "store/git/repo.h"
#include "store/stack.h"
#include "store/table_reader.h"

namespace reftab::cli {

Result<std::unique_ptr<TableReader>> OpenTableFile(const std::string& path);

// The selected ref store: a bare stack (--stack, git's rules with git's defaults) or a git
// repository. All git rules live in store/git/refs/ref_store.h; the CLI only calls them.
using Store = GitRefStore;

// Stack options the CLI uses: git's defaults, with auto-compaction off when
// GIT_TEST_REFTABLE_AUTOCOMPACTION=false (as git), and the stack's warnings printed as git's.
StackOptions CliStackOptions();

// --stack DIR, --git-dir GITDIR, or the repository found upwards from the current directory.
// Commands that only read pass kReadOnly: like git's readers, they work on a repository whose
// write settings (reftable.blockSize, ...) are malformed.
Result<std::unique_ptr<Store>> OpenStore(const GlobalOptions& g,
                                         GitRepoAccess access = GitRepoAccess::kReadWrite);
// The configuration git's setup reads before a command parses its options (GitRepo::
// ReadConfig) for the repository OpenStore would open; none (empty) with --stack, where
// git's defaults apply. Fails where OpenStore fails before the ref storage: no repository, a
// configuration every git command dies on.
Result<GitConfig> SelectedConfig(const GlobalOptions& g);
// git's GIT_REF_PARANOIA (read as git_env_bool reads it: on when unset), which decides what a
// listing does with broken refs (store/git/refs/ref_list.h). Read when a listing starts, as git
// does. Not a boolean: git's fatal message.
Result<bool> RefParanoia();

// The main stack of the selected store.
Result<std::unique_ptr<Stack>> OpenSelectedStack(const GlobalOptions& g);

// The merged view in git's `dump-reftable -s` text (tombstones included), or as jsonl.
Status DumpStack(const Stack& stack, bool git_format, Output* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_STACK_ACCESS_H_
