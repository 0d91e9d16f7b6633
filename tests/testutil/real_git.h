// Running git (or reftab's command) the way the tests that race against or compare with the
// real git need it: a deterministic git environment on top of testing::RunProcess
// (tests/testutil/process.h, which also finds a reftable-capable git).
#ifndef REFTAB_TESTS_TESTUTIL_REAL_GIT_H_
#define REFTAB_TESTS_TESTUTIL_REAL_GIT_H_

#include <string>
#include <vector>

namespace reftab::testutil {

// Runs `program args...` with no system config, HOME = `home` (and the XDG config below it),
// and a fixed committer and author. `input` goes to its standard input; its standard output
// and then its standard error go to `output` when given. Returns the exit status, or 128 +
// the signal number when it was killed, or -1 if it could not be started.
int RunProgram(const std::string& program, const std::vector<std::string>& args,
               const std::string& home, const std::string& input = "",
               std::string* output = nullptr);

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_REAL_GIT_H_
