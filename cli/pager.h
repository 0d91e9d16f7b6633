// git's pager: when standard output is a terminal, a command's output goes through the user's
// pager (GIT_PAGER, core.pager, PAGER, else "less"; "cat" or "" mean none), started as git
// starts it (`sh -c`, with LESS=FRX and LV=-c unless set) and waited for when done.
#ifndef REFTAB_CLI_PAGER_H_
#define REFTAB_CLI_PAGER_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "format/status.h"
#include "store/git/config/config.h"

namespace reftab::cli {

// git's choice of pager for standard output: none (nullopt) when it is not a terminal, else
// GIT_PAGER, core.pager (or `command_pager`, pager.<command>'s command, when there is one),
// PAGER, "less"; none for "cat" or "".
std::optional<std::string> PagerCommand(const GitConfig& config,
                                        const std::optional<std::string>& command_pager);

// pager.<command> as git reads it: true/false, or a pager command (which means true).
struct CommandPagerConfig {
  std::optional<bool> want;  // unset: the command's default
  std::optional<std::string> command;
};
CommandPagerConfig ReadCommandPagerConfig(const GitConfig& config, std::string_view command);

// One running pager. Start sends standard output (and standard error when it is a terminal)
// into it; Finish (or the destructor) flushes, closes them so that it sees the end, and
// waits for it. Not copyable: one owner waits.
class Pager {
 public:
  Pager() = default;
  ~Pager() { Finish(); }
  Pager(const Pager&) = delete;
  Pager& operator=(const Pager&) = delete;

  // Starts `command` through `sh -c` and sets GIT_PAGER_IN_USE (as git does, so that child
  // processes know). A no-op when a pager already runs. Fails when it cannot be started.
  Status Start(const std::string& command);
  bool active() const { return pid_ > 0; }
  void Finish();

 private:
  pid_t pid_ = -1;
  int old_stdout_ = -1;
  int old_stderr_ = -1;
};

// Starts git's pager (PagerCommand) into `pager` unless it runs already; nothing when there
// is none. `command_pager`: pager.<command>'s command, if any.
Status StartPager(const GitConfig& config, const std::optional<std::string>& command_pager,
                  Pager* pager);

// What git decides before running `command` (git.c), starting the pager into `pager` when it
// says so: with -P/--no-pager (`paginate` false) none, for this command nor the ones it runs
// (GIT_PAGER=cat, as git sets it); with -p/--paginate (true) the pager; unset, when
// `reads_command_config` (a command git runs in a repository), what pager.<command> says:
// true, false (GIT_PAGER=cat) or a pager command. Off a terminal nothing starts and the
// configuration is not read: no pager would run, and pager.<command>=false would only tell
// child processes, of which reftab starts none that page. `config` supplies the
// configuration when needed (at most one call); nullopt: none is readable and git's setup
// would die before paging, so no pager starts and the command reports the problem itself.
Status StartCommandPager(std::optional<bool> paginate, bool reads_command_config,
                         std::string_view command,
                         const std::function<std::optional<GitConfig>()>& config, Pager* pager);

// Whether a pager is in use for this process (GIT_PAGER_IN_USE, as git's pager_in_use).
bool PagerInUse();

}  // namespace reftab::cli

#endif  // REFTAB_CLI_PAGER_H_
