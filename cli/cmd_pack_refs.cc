// reftab pack-refs [--all] [--no-prune] [--auto] [--include <pattern>] [--exclude <pattern>]
// git's pack-refs (and `refs optimize`, its twin) as git runs it on a reftable repository:
// every table merged into one, or with --auto git's geometric auto-compaction, then the
// leftovers of killed writers cleaned. --all, --prune, --include and --exclude are accepted
// and change nothing, as in git's reftable backend (it has no loose refs to pack or prune).
// Also takes --progress / --no-progress (not in git's usage: git draws none here).
#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/progress.h"
#include "cli/stack_access.h"

namespace reftab::cli {
namespace {

GitOption ListOption(std::string_view name, std::string_view help) {
  GitOption o;
  o.long_name = name;
  o.arg = GitOption::Arg::kRequired;
  o.arg_help = "pattern";
  o.help = help;
  o.set = [](bool, std::optional<std::string_view>) { return std::string(); };
  return o;
}

}  // namespace

int PackRefsCore(const GlobalOptions& g, const Args& args, std::string_view usage_line) {
  bool all = false, prune = true, automatic = false;
  ProgressFlag progress_flag = ProgressFlag::kAuto;
  GitUsage usage;
  usage.lines = {usage_line};
  usage.options = {FlagOption(0, "all", "pack everything", &all),
                   FlagOption(0, "prune", "prune loose refs (default)", &prune),
                   FlagOption(0, "auto", "auto-pack refs as needed", &automatic),
                   ListOption("include", "references to include"),
                   ListOption("exclude", "references to exclude")};
  usage.options.push_back(ProgressOption(&progress_flag));
  Args pos;
  if (auto exit = ParseGitOptions(args, usage, &pos)) return *exit;
  if (!pos.empty()) return GitUsageError(usage);

  auto opened = OpenStore(g);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  // git optimizes one stack: the one this worktree's own refs live in.
  std::vector<Stack*> stacks = {store.stacks().back()};
  TerminalProgress reporter(progress_flag);
  CompactionOptions options;
  options.progress = reporter.get();
  const bool git = store.repo() != nullptr;
  for (Stack* stack : stacks) {
    Status s = automatic ? stack->CompactIfDue(options.progress) : stack->CompactAll(options);
    // git reports a failed optimization as an error and exits with -1 (255); a lock held by
    // another writer in its words.
    if (!s.ok()) {
      const bool locked = git && s.code() == Code::kLockHeld;
      return GitError(locked ? "unable to compact stack: data is locked" : s.message()), 255;
    }
    // git's clean returns the reftable library's lock error (-5) as the exit code, silently.
    s = stack->Clean();
    if (git && s.code() == Code::kLockHeld) return kExitGitLockHeld;
    if (!s.ok()) return GitError(s.message()), 255;
  }
  return kExitOk;
}

int CmdPackRefs(const GlobalOptions& g, const Args& args) {
  return PackRefsCore(
      g, args,
      "reftab pack-refs [--all] [--no-prune] [--auto] [--include <pattern>] [--exclude "
      "<pattern>]");
}

}  // namespace reftab::cli
