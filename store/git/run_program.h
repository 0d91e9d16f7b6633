// Internal: runs a program the way git's run-command does for a filter such as gpg: no
// shell, a name without '/' looked up in $PATH, standard input fed from a buffer while
// standard output and standard error are collected.
#ifndef REFTAB_STORE_GIT_RUN_PROGRAM_H_
#define REFTAB_STORE_GIT_RUN_PROGRAM_H_

#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"

namespace reftab {

// What a run produced. When the program could not be started, `started` is false and
// `start_error` is git's message for it, with its prefix and newline: "error: cannot run
// gpg: No such file or directory\n" for a name not found in $PATH, "fatal: cannot exec
// '/bin/x': Permission denied\n" for a path that fails to execute.
struct ProgramRun {
  bool started = false;
  std::string start_error;
  std::string out, err;
  int exit_code = -1;  // the exit status, or -1 when killed by a signal or not started
};

// Runs args[0] with args (args must not be empty), feeding `input` on its standard input.
// Fails only where the system does (pipes, poll); a program that cannot start is a value.
Status RunProgram(const std::vector<std::string>& args, std::string_view input, ProgramRun* run);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_RUN_PROGRAM_H_
