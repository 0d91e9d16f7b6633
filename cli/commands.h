// The subcommands of `reftab`. Each returns the process exit status:
// 0 success, 1 bad input or I/O error (one line on stderr), 2 usage error.
#ifndef REFTAB_CLI_COMMANDS_H_
#define REFTAB_CLI_COMMANDS_H_

#include <string>
#include <vector>

#include "format/status.h"

namespace reftab::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

// Options that come before the subcommand and select the store.
struct GlobalOptions {
  std::string stack_dir;  // --stack DIR
  std::string git_dir;    // --git-dir DIR
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
int CmdRefs(const GlobalOptions& g, const Args& args);
int CmdRefsMigrate(const GlobalOptions& g, const Args& args);

// Prints "reftab: <message>" to stderr and returns kExitError.
int Fail(const Status& s);
// Prints "reftab <cmd>: <message>" plus a usage hint to stderr and returns kExitUsage.
int Usage(const char* cmd, const std::string& message);

// Parses "--name=value" or "--name value" at args[*i]; advances *i past what it used.
bool TakeValue(const Args& args, size_t* i, const char* name, std::string* value);
// Parses an unsigned decimal number; false if `s` is not one.
bool ParseUint(const std::string& s, uint64_t* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_COMMANDS_H_
