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
#include "store/git_repo.h"
#include "store/stack.h"
#include "store/table_reader.h"

namespace reftab::cli {

Result<std::unique_ptr<TableReader>> OpenTableFile(const std::string& path);

// The selected ref store: a bare stack (--stack) or a git repository.
class Store {
 public:
  Store(std::unique_ptr<Stack> stack) : stack_(std::move(stack)) {}  // NOLINT
  Store(std::unique_ptr<GitRepo> repo) : repo_(std::move(repo)) {}   // NOLINT

  GitRepo* repo() { return repo_.get(); }
  // The stack holding shared refs (the only one for --stack).
  Stack& main_stack() { return repo_ ? repo_->main_stack() : *stack_; }
  // The stack that stores `refname` (a linked worktree keeps its own refs apart).
  Stack& StackFor(std::string_view refname) { return repo_ ? repo_->StackFor(refname) : *stack_; }
  Status ReadRef(std::string_view refname, RefRecord* ref, bool* found);
  Status ForEachRef(std::string_view prefix, const std::function<bool(const RefRecord&)>& fn);
  // Whether reflogs are written for `refname` by default (core.logAllRefUpdates).
  bool LogsByDefault(std::string_view refname) const;

 private:
  std::unique_ptr<Stack> stack_;
  std::unique_ptr<GitRepo> repo_;
};

// Stack options the CLI uses: git's defaults, with auto-compaction off when
// GIT_TEST_REFTABLE_AUTOCOMPACTION=false (as git).
StackOptions CliStackOptions();

// --stack DIR, --git-dir GITDIR, or the repository found upwards from the current directory.
Result<std::unique_ptr<Store>> OpenStore(const GlobalOptions& g);
// The main stack of the selected store.
Result<std::unique_ptr<Stack>> OpenSelectedStack(const GlobalOptions& g);

// The merged view in git's `dump-reftable -s` text (tombstones included), or as jsonl.
Status DumpStack(const Stack& stack, bool git_format, Output* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_STACK_ACCESS_H_
