// Running a child process from a test: argv (no shell, so any bytes reach it unchanged), extra
// environment, standard input; captures standard output, standard error and the exit status.
// Also finds a reftable-capable git for the tests that compare with the real thing.
#ifndef REFTAB_TESTS_TESTUTIL_PROCESS_H_
#define REFTAB_TESTS_TESTUTIL_PROCESS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace reftab::testing {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal number when killed by a signal; 127 if it did not start
  std::string out;
  std::string err;
};

struct ProcessOptions {
  std::string cwd;                         // empty: the test's own
  std::map<std::string, std::string> env;  // set on top of the test's environment
  std::string input;                       // written to standard input
};

ProcessResult RunProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// A git that can create reftable repositories: $REFTAB_GIT, else `git` on PATH if it is at
// least 2.45. nullopt when there is none; `why` then says what was looked at.
std::optional<std::string> FindReftableGit(std::string* why);

// Whether a test without a reftable-capable git must fail rather than skip: REFTAB_REQUIRE_GIT
// is set (tests/run_all.sh builds git and sets it, so that no comparison silently checks
// nothing).
bool GitIsRequired();

}  // namespace reftab::testing

// In a test body or SetUp: skips the test without a reftable-capable git (`why` says what was
// looked at), or fails it when GitIsRequired().
#define REFTAB_SKIP_WITHOUT_GIT(why)                                                          \
  do {                                                                                        \
    if (::reftab::testing::GitIsRequired())                                                   \
      FAIL() << "REFTAB_REQUIRE_GIT is set, but there is no reftable-capable git: " << (why); \
    GTEST_SKIP() << "no reftable-capable git: " << (why);                                     \
  } while (0)

namespace reftab::testing {}  // namespace reftab::testing

#endif  // REFTAB_TESTS_TESTUTIL_PROCESS_H_
