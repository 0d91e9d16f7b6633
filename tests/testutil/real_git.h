// Finding and running a reftable-capable git (>= 2.45) for tests that compare with, or race
// against, the real thing: $REFTAB_GIT, else `git` on PATH when it is recent enough. Tests
// skip (GTEST_SKIP with the reason) when there is none.
#ifndef REFTAB_TESTS_TESTUTIL_REAL_GIT_H_
#define REFTAB_TESTS_TESTUTIL_REAL_GIT_H_

#include <string>
#include <vector>

namespace reftab::testutil {

// The path of a git that knows --ref-format=reftable, or "" with *why saying what is missing.
std::string FindReftableGit(std::string* why);

// Runs `program args...` (git, or reftab's command) with a deterministic git environment:
// no system config, HOME = `home`, fixed committer and author. `input` goes to its
// standard input; its output is discarded unless `output` is given (stdout and stderr,
// interleaved). Returns the exit status, or 128 + the signal number when it was killed, or
// -1 if it could not be started.
int RunProgram(const std::string& program, const std::vector<std::string>& args,
               const std::string& home, const std::string& input = "",
               std::string* output = nullptr);

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_REAL_GIT_H_
