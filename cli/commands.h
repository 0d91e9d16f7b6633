// The subcommands of `reftab`. Each returns the process exit status:
// 0 success, 1 bad input or I/O error (one line on stderr), 2 usage error.
#ifndef REFTAB_CLI_COMMANDS_H_
#define REFTAB_CLI_COMMANDS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"

namespace reftab::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 129;  // git's status for a usage error, in every command
// What git exits with where its reftable backend hands the library's lock error (-5) up as
// the command's status unreported (pack-refs' clean, reflog expire and delete).
inline constexpr int kExitGitLockHeld = 251;
// The same for the library's I/O error (-2): a write of reflog expire, delete or drop that
// the file system refused. git says nothing then; reftab names the file, with git's status.
inline constexpr int kExitGitIoError = 254;
// What a git command exits with after die()'s "fatal: ..." (GitDie).
inline constexpr int kExitGitFatal = 128;

class Pager;  // cli/pager.h

// Options that come before the subcommand: the store, and paging.
struct GlobalOptions {
  std::string stack_dir;  // --stack DIR
  std::string git_dir;    // --git-dir DIR
  // -p / --paginate (true), -P / --no-pager (false), the last one given: whether the
  // command's output goes through the pager (cli/pager.h); unset: the command's choice.
  std::optional<bool> paginate;
  // The pager main started for the command, or that a command may start (git's log starts
  // one itself): main owns it and waits for it after the command. Null where no command
  // line runs (help).
  Pager* pager = nullptr;
};

using Args = std::vector<std::string>;

int CmdDump(const GlobalOptions& g, const Args& args);
int CmdWriteTable(const GlobalOptions& g, const Args& args);
int CmdDemo(const GlobalOptions& g, const Args& args);
int CmdShowRef(const GlobalOptions& g, const Args& args);
int CmdUpdateRef(const GlobalOptions& g, const Args& args);
int CmdCompact(const GlobalOptions& g, const Args& args);
int CmdVerify(const GlobalOptions& g, const Args& args);
int CmdForEachRef(const GlobalOptions& g, const Args& args);
int CmdSymbolicRef(const GlobalOptions& g, const Args& args);
int CmdRefs(const GlobalOptions& g, const Args& args);
int CmdPackRefs(const GlobalOptions& g, const Args& args);
int CmdRevParse(const GlobalOptions& g, const Args& args);
int CmdStats(const GlobalOptions& g, const Args& args);
// pack-refs and `refs optimize`: one command under two usage lines (cli/cmd_pack_refs.cc).
int PackRefsCore(const GlobalOptions& g, const Args& args, std::string_view usage_line);
// `refs verify`, git's form of verify (cli/cmd_verify.cc).
int RefsVerify(const GlobalOptions& g, const Args& args);
// `refs list`: for-each-ref under git 2.55's other name (its usage says "refs list").
int CmdRefsList(const GlobalOptions& g, const Args& args);
int CmdReflog(const GlobalOptions& g, const Args& args);

// git-style usage of each command ("usage: reftab <command> ..." and its options), printed
// by `reftab help <command>` and `reftab <command> -h` (to stdout, exit 0, as git 2.55 does
// for -h). Each is defined beside its command; kCommands (main.cc) points at it.
extern const char* const kDumpUsage;
extern const char* const kWriteTableUsage;
extern const char* const kDemoUsage;
extern const char* const kCompactUsage;
extern const char* const kVerifyUsage;
extern const char* const kReflogUsage;
extern const char* const kStatsUsage;
extern const char* const kRevParseUsage;
int CmdRefsMigrate(const GlobalOptions& g, const Args& args);
// `refs create|update|delete|rename`: one-ref writers (cli/cmd_refs_write.cc).
int CmdRefsCreate(const GlobalOptions& g, const Args& args);
int CmdRefsUpdate(const GlobalOptions& g, const Args& args);
int CmdRefsDelete(const GlobalOptions& g, const Args& args);
int CmdRefsRename(const GlobalOptions& g, const Args& args);

// Prints "reftab: <message>" to stderr and returns kExitError.
int Fail(const Status& s);
// A usage error of one of reftab's own commands, worded as git's parse-options words its
// own: "error: <message>" and the command's usage (its k*Usage text) on stderr; returns
// kExitUsage.
int Usage(const char* usage, const std::string& message);
// What git says of an argument no option matches: "unknown option `name'" for "--name",
// "unknown switch `c'" for "-c"; of an extra operand, "too many arguments"; and "option
// `name' requires a value" for one of `value_options` ("--name") given last, without one.
std::string UnknownArgument(const std::string& arg,
                            std::initializer_list<std::string_view> value_options = {});

// git's die(), error() and warning(): "fatal: ", "error: " or "warning: " and `message` on
// stderr, control characters shown as '?' as git's vreportf shows them, after flushing
// stdout. GitDie returns kExitGitFatal, GitError 1 (for convenience).
int GitDie(std::string_view message);
int GitError(std::string_view message);
void GitWarning(std::string_view message);

// Ends the process with `status` after flushing stdio, without destroying what the caller
// still holds. For a single-ref command whose store is still open: the kernel drops its
// mappings and memory at exit in one go, where unmapping a 9-table stack's files and freeing
// every block one by one was a tenth of `show-ref --verify`'s CPU time. Only main's commands
// call it (never code a test runs in-process). A running `pager` (may be null) is waited for
// first, as git waits for its pager at exit.
[[noreturn]] void ExitKeepingState(int status, Pager* pager);

// Parses "--name=value" or "--name value" at args[*i]; advances *i past what it used.
bool TakeValue(const Args& args, size_t* i, const char* name, std::string* value);
// Parses an unsigned decimal number; false if `s` is not one.
bool ParseUint(const std::string& s, uint64_t* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_COMMANDS_H_
