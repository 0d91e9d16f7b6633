// Finding and opening what the CLI works on: a single table file, a bare reftable directory
// (--stack), or a git repository (--git-dir, or found from the current directory).
#ifndef REFTAB_CLI_STACK_ACCESS_H_
#define REFTAB_CLI_STACK_ACCESS_H_

#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/output.h"
#include "store/stack.h"
#include "store/table_reader.h"

namespace reftab::cli {

Result<std::unique_ptr<TableReader>> OpenTableFile(const std::string& path);

// Where the selected store lives and which object format it uses.
struct StoreLocation {
  std::string reftable_dir;
  std::optional<HashId> hash_id;  // from the repository's config; unset for --stack
};

// --stack DIR, --git-dir GITDIR, or the repository found upwards from the current directory.
Result<StoreLocation> LocateStore(const GlobalOptions& g);
Result<std::unique_ptr<Stack>> OpenSelectedStack(const GlobalOptions& g);

// The merged view in git's `dump-reftable -s` text (tombstones included), or as jsonl.
Status DumpStack(const Stack& stack, bool git_format, Output* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_STACK_ACCESS_H_
