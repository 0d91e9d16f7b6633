// Concurrent writers through the CLI ($REFTAB_CLI), as git's t0610 "many concurrent writers"
// does with `git update-ref`: several processes each run `reftab --git-dir G update-ref --stdin`
// many times against one repository whose config sets a generous reftable.lockTimeout. Every
// update must land; each transaction creates a branch and moves a counter from k-1 to k, so
// the final state is fully determined. Skipped when $REFTAB_CLI is not set.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "store/git_repo.h"
#include "tests/store/store_test_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

constexpr int kWriters = 4;
constexpr int kRounds = 25;

std::string Hex(uint64_t n) { return HexId(testutil::TestId(n, 20), 20); }
uint64_t Encode(int w, int k) { return uint64_t(w) * 1000 + uint64_t(k) + 1; }

// Runs `cli --git-dir G update-ref --stdin` with `input`; returns its exit status.
int RunUpdateRef(const std::string& cli, const std::string& git_dir, const std::string& input) {
  int in[2];
  if (pipe(in) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(in[0], 0);
    close(in[0]);
    close(in[1]);
    setenv("GIT_COMMITTER_NAME", "C O Mitter", 1);
    setenv("GIT_COMMITTER_EMAIL", "committer@example.com", 1);
    setenv("GIT_COMMITTER_DATE", "1700000000 +0000", 1);
    execl(cli.c_str(), cli.c_str(), "--git-dir", git_dir.c_str(), "update-ref", "-m", "concurrent",
          "--stdin", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  size_t off = 0;
  while (off < input.size()) {
    ssize_t n = write(in[1], input.data() + off, input.size() - off);
    if (n <= 0) break;
    off += size_t(n);
  }
  close(in[1]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

TEST(CliConcurrencyTest, ParallelUpdateRefProcessesAllLand) {
  const char* cli_env = std::getenv("REFTAB_CLI");
  if (!cli_env || access(cli_env, X_OK) != 0) GTEST_SKIP() << "REFTAB_CLI is not an executable";
  const std::string cli = cli_env;
  testutil::TempDir tmp("cli-concurrency");
  const std::string g = tmp.Subdir("repo.git");
  testutil::WriteFileOrDie(g + "/config",
                           "[core]\n\trepositoryformatversion = 1\n\tbare = true\n"
                           "\tlogAllRefUpdates = always\n"
                           "[extensions]\n\trefstorage = reftable\n"
                           "[reftable]\n\tlockTimeout = 10000\n");
  testutil::WriteFileOrDie(g + "/HEAD", "ref: refs/heads/.invalid\n");
  tmp.Subdir("repo.git/refs");
  tmp.Subdir("repo.git/reftable");
  std::fflush(nullptr);

  std::vector<pid_t> writers;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int k = 0; k < kRounds; ++k) {
        char branch[64];
        std::snprintf(branch, sizeof branch, "refs/heads/c%d/k%03d", w, k);
        std::string counter = "refs/counters/c" + std::to_string(w);
        std::string input = "create " + std::string(branch) + " " + Hex(Encode(w, k)) + "\n" +
                            "update " + counter + " " + Hex(Encode(w, k)) + " " +
                            (k == 0 ? std::string(40, '0') : Hex(Encode(w, k - 1))) + "\n";
        int rc = RunUpdateRef(cli, g, input);
        if (rc != 0) {
          std::fprintf(stderr, "writer %d round %d: update-ref exited %d\n", w, k, rc);
          _exit(1);
        }
      }
      _exit(0);
    }
    writers.push_back(pid);
  }
  int failures = 0;
  for (pid_t pid : writers) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
  }
  EXPECT_EQ(failures, 0);

  auto repo = GitRepo::Open(g, StackOptions());
  ASSERT_TRUE(repo.ok()) << repo.status().ToString();
  int branches = 0;
  ASSERT_TRUE((*repo)->ForEachRef("refs/heads/", [&](const RefRecord&) {
                       ++branches;
                       return true;
                     }).ok());
  EXPECT_EQ(branches, kWriters * kRounds);
  for (int w = 0; w < kWriters; ++w) {
    RefRecord r;
    bool found = false;
    ASSERT_TRUE((*repo)->ReadRef("refs/counters/c" + std::to_string(w), &r, &found).ok());
    ASSERT_TRUE(found);
    EXPECT_EQ(HexId(r.value, 20), Hex(Encode(w, kRounds - 1)));
  }
  Stack& s = (*repo)->main_stack();
  EXPECT_EQ(s.snapshot()->max_update_index(), uint64_t(kWriters * kRounds));
  EXPECT_TRUE(testutil::StrayFiles(testutil::CaptureStack(s.dir())).empty());
  std::printf("cli concurrency: %d processes x %d `update-ref --stdin` runs = %d transactions "
              "landed; %zu tables\n",
              kWriters, kRounds, branches, s.names().size());
}

}  // namespace
}  // namespace reftab
